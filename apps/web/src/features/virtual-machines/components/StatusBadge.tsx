import type { VmStatus } from '@portal/contract/constants';

const colours: Record<VmStatus, string> = {
  Running: 'bg-emerald-100 dark:bg-emerald-900/50 text-emerald-800 dark:text-emerald-200 ring-emerald-600/20',
  Stopped: 'bg-slate-100 dark:bg-slate-800 text-slate-700 dark:text-slate-300 ring-slate-500/20',
  Shutoff: 'bg-slate-200 dark:bg-slate-700 text-slate-800 dark:text-slate-200 ring-slate-600/20',
  Error: 'bg-red-100 dark:bg-red-900/50 text-red-800 dark:text-red-200 ring-red-600/20',
  Provisioning: 'bg-sky-100 dark:bg-sky-900/50 text-sky-800 dark:text-sky-200 ring-sky-600/20',
  Starting: 'bg-amber-100 dark:bg-amber-900/50 text-amber-800 dark:text-amber-200 ring-amber-600/20',
  Stopping: 'bg-orange-100 dark:bg-orange-900/50 text-orange-800 dark:text-orange-200 ring-orange-600/20',
  Resizing: 'bg-violet-100 dark:bg-violet-900/50 text-violet-800 dark:text-violet-200 ring-violet-600/20',
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
