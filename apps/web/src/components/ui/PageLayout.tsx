/** Page layout: title, optional secondary title, optional back arrow and action button, scrolling main area. */
import ArrowLeft from 'lucide-react/icons/arrow-left';
import { useRef, type ReactNode } from 'react';
import { Button } from './Button.tsx';
import { useOverflows } from './use-overflows.ts';

export interface PageLayoutProps {
  title: string;
  secondaryTitle?: string;
  onBack?: () => void;
  /** `danger` for an action whose dialog is a danger one (Suspend): the page and the dialog look alike. */
  action?: { name: string; onClick: () => void; disabled?: boolean; variant?: 'primary' | 'danger' };
  children?: ReactNode;
}

export function PageLayout({ title, secondaryTitle, onBack, action, children }: PageLayoutProps) {
  const main = useRef<HTMLElement>(null);
  const scrolls = useOverflows(main, 'y');
  return (
    <div className="flex h-full flex-col">
      <header className="flex flex-wrap items-center gap-3 border-b border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 px-4 py-4 sm:px-6">
        {onBack && (
          <button
            type="button"
            onClick={onBack}
            aria-label="Back"
            className="rounded-md p-1.5 text-slate-500 dark:text-slate-400 hover:bg-slate-100 dark:hover:bg-slate-800 hover:text-slate-800 dark:hover:text-slate-100"
          >
            <ArrowLeft className="h-5 w-5" />
          </button>
        )}
        <div className="min-w-0 flex-1">
          <h1 className="break-words text-xl sm:truncate font-semibold text-slate-900 dark:text-slate-100">{title}</h1>
          {/* Like the title: one line from `sm` up, wrapped on a phone rather than cut (the reseller area's are long). */}
          {secondaryTitle && (
            <p className="break-words text-sm sm:truncate text-slate-500 dark:text-slate-400">{secondaryTitle}</p>
          )}
        </div>
        {action && (
          <Button variant={action.variant ?? 'primary'} onClick={action.onClick} disabled={action.disabled}>
            {action.name}
          </Button>
        )}
      </header>
      {/* The skip link's target, focusable so the jump moves keyboard focus too. While its content is taller than
          the screen it is also in the tab order: a page with nothing focusable inside (a read-only company view)
          could otherwise not be scrolled by keyboard. */}
      <main
        id="main"
        ref={main}
        tabIndex={scrolls ? 0 : -1}
        className="min-w-0 flex-1 overflow-y-auto p-4 focus:outline-none focus-visible:outline-2 focus-visible:-outline-offset-2 focus-visible:outline-brand-600 sm:p-6"
      >
        {children}
      </main>
    </div>
  );
}
