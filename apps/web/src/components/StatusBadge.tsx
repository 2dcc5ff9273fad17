/** A VM's status as a badge: the VM list, the VM page and the dashboard's summary show the same one (issue 25 defect 10). */
import { useEffect, useState } from 'react';
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
  Snapshotting: 'bg-cyan-100 dark:bg-cyan-900/50 text-cyan-800 dark:text-cyan-200 ring-cyan-600/20',
  Reverting: 'bg-fuchsia-100 dark:bg-fuchsia-900/50 text-fuchsia-800 dark:text-fuchsia-200 ring-fuchsia-600/20',
  Restoring: 'bg-fuchsia-100 dark:bg-fuchsia-900/50 text-fuchsia-800 dark:text-fuchsia-200 ring-fuchsia-600/20',
};

/** "12 s", "1 min 12 s", "1 h 3 min": how long a guest has been booting. */
export function formatBootTime(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

/** Seconds since `since`, ticking every second while it is set; null when it is not. */
function useSecondsSince(since: Date | null): number | null {
  const [now, setNow] = useState(() => Date.now());
  const from = since?.getTime() ?? null;
  useEffect(() => {
    if (from === null) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [from]);
  return from === null ? null : (now - from) / 1000;
}

/**
 * A VM's status. Starting with the moment the guest began to boot (`bootStartedAt`) shows the time so far,
 * "Starting · 1 min 12 s", counted in the browser: the machine is powered on and the portal waits for its guest to
 * answer (docs/virtual-machines.md, "Starting").
 */
export function StatusBadge({ status, bootStartedAt }: { status: VmStatus; bootStartedAt?: Date | null }) {
  const busy = ['Provisioning', 'Starting', 'Stopping', 'Resizing', 'Snapshotting', 'Reverting', 'Restoring'].includes(
    status,
  );
  const booting = useSecondsSince(status === 'Starting' ? (bootStartedAt ?? null) : null);
  return (
    <span
      data-status={status}
      title={booting === null ? undefined : 'Powered on; waiting for the system to answer'}
      className={`inline-flex items-center gap-1.5 whitespace-nowrap rounded-full px-2.5 py-0.5 text-xs font-medium ring-1 ring-inset ${colours[status]}`}
    >
      {busy && <span className="h-1.5 w-1.5 motion-safe:animate-pulse rounded-full bg-current" aria-hidden />}
      {status}
      {booting !== null && <span data-testid="boot-time">{` · ${formatBootTime(booting)}`}</span>}
    </span>
  );
}
