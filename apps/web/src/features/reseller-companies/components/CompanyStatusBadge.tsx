/** Active or Suspended, with the suspension's reason as the tooltip. */
import { COMPANIES_TEXT } from '@portal/contract/reseller-companies';

export function CompanyStatusBadge({ status, reason }: { status: 'active' | 'suspended'; reason?: string | null }) {
  const suspended = status === 'suspended';
  return (
    <span
      data-status={status}
      title={suspended && reason ? reason : undefined}
      className={`inline-flex items-center rounded-full px-2.5 py-0.5 text-xs font-medium ring-1 ring-inset ${
        suspended
          ? 'bg-red-100 text-red-800 ring-red-600/20 dark:bg-red-900/50 dark:text-red-200'
          : 'bg-emerald-100 text-emerald-800 ring-emerald-600/20 dark:bg-emerald-900/50 dark:text-emerald-200'
      }`}
    >
      {suspended ? COMPANIES_TEXT.statusSuspended : COMPANIES_TEXT.statusActive}
    </span>
  );
}
