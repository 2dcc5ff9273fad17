import type { HostView } from '../api/catalog.ts';
import { formatDateTime } from '../../../lib/dates.ts';
/** A host's health as the host monitor last saw it; an unreachable host shows its last error. */

const colours = {
  healthy: 'bg-emerald-100 text-emerald-800 ring-emerald-600/20 dark:bg-emerald-900/50 dark:text-emerald-200',
  unreachable: 'bg-red-100 text-red-800 ring-red-600/20 dark:bg-red-900/50 dark:text-red-200',
  'not seen': 'bg-amber-100 text-amber-800 ring-amber-600/20 dark:bg-amber-900/50 dark:text-amber-200',
} as const;
const labels = { healthy: 'Healthy', unreachable: 'Unreachable', 'not seen': 'Not seen yet' } as const;

export function HostHealthBadge({ host }: { host: HostView }) {
  return (
    <div className="flex flex-col gap-1">
      <span
        data-health={host.health}
        className={`inline-flex w-fit rounded-full px-2.5 py-0.5 text-xs font-medium ring-1 ring-inset ${colours[host.health]}`}
      >
        {labels[host.health]}
      </span>
      {host.lastError && (
        <span className="max-w-xs break-words text-xs text-red-700 dark:text-red-300">{host.lastError}</span>
      )}
      {host.lastSeenAt && (
        <span className="text-xs text-slate-500 dark:text-slate-400">Seen {formatDateTime(host.lastSeenAt)}</span>
      )}
    </div>
  );
}
