import type { VmStatus } from '@portal/contract/constants';

const colours: Record<VmStatus, string> = {
  Running: 'bg-emerald-100 text-emerald-800 ring-emerald-600/20',
  Stopped: 'bg-slate-100 text-slate-700 ring-slate-500/20',
  Shutoff: 'bg-slate-200 text-slate-800 ring-slate-600/20',
  Error: 'bg-red-100 text-red-800 ring-red-600/20',
  Provisioning: 'bg-sky-100 text-sky-800 ring-sky-600/20',
  Starting: 'bg-amber-100 text-amber-800 ring-amber-600/20',
  Stopping: 'bg-orange-100 text-orange-800 ring-orange-600/20',
  Resizing: 'bg-violet-100 text-violet-800 ring-violet-600/20',
};

export function StatusBadge({ status }: { status: VmStatus }) {
  const busy = ['Provisioning', 'Starting', 'Stopping', 'Resizing'].includes(status);
  return (
    <span
      data-status={status}
      className={`inline-flex items-center gap-1.5 rounded-full px-2.5 py-0.5 text-xs font-medium ring-1 ring-inset ${colours[status]}`}
    >
      {busy && <span className="h-1.5 w-1.5 animate-pulse rounded-full bg-current" aria-hidden />}
      {status}
    </span>
  );
}
