/** A card of the dashboard's overview: a titled region with an icon and an optional action. */
import type { ReactNode } from 'react';

export const cardClass =
  'rounded-lg border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 shadow-sm';

export function OverviewCard({
  title,
  icon,
  action,
  children,
}: {
  title: string;
  icon: ReactNode;
  action?: ReactNode;
  children: ReactNode;
}) {
  return (
    <section aria-label={title} className={`${cardClass} min-w-0`}>
      <div className="flex items-center justify-between gap-2 border-b border-slate-200 dark:border-slate-700 px-4 py-3">
        <h2 className="flex items-center gap-2 font-semibold text-slate-900 dark:text-slate-100">
          {icon}
          {title}
        </h2>
        {action}
      </div>
      <div className="p-4">{children}</div>
    </section>
  );
}
