/**
 * A box that scrolls sideways when its table is wider than the screen (a phone). While it does, it is a named
 * region in the tab order, so a keyboard user can scroll it with the arrow keys (WCAG 2.1.1; axe's
 * scrollable-region-focusable). While it fits, it is a plain box and adds no tab stop. `relative`: a visually
 * hidden header (absolutely positioned) stays inside the box instead of widening the page.
 */
import { useRef, type ReactNode } from 'react';
import { useOverflows } from './use-overflows.ts';

export function ScrollRegion({
  label,
  className = '',
  children,
}: {
  /** What the region holds, e.g. the table's title: read out when it takes focus. */
  label: string;
  className?: string;
  children: ReactNode;
}) {
  const ref = useRef<HTMLDivElement>(null);
  const scrolls = useOverflows(ref, 'x');
  return (
    <div
      ref={ref}
      className={`relative overflow-x-auto focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600 ${className}`}
      {...(scrolls ? { role: 'region', 'aria-label': label, tabIndex: 0 } : {})}
    >
      {children}
    </div>
  );
}
