/**
 * The VM page's section bar: links to its sections (Overview, Graphs, Snapshots, Settings). Following one scrolls
 * the section into view and moves keyboard focus to it, without touching the address (the portal may be served
 * under a base path, where a bare '#id' would leave the page).
 */
import type { MouseEvent } from 'react';

export interface PageSection {
  id: string;
  label: string;
}

export function SectionNav({ sections, label = 'Sections' }: { sections: readonly PageSection[]; label?: string }) {
  function go(e: MouseEvent<HTMLAnchorElement>, id: string) {
    const target = document.getElementById(id);
    if (!target) return;
    e.preventDefault();
    target.scrollIntoView({ block: 'start' });
    target.focus({ preventScroll: true });
  }
  return (
    <nav
      aria-label={label}
      className="flex gap-1 overflow-x-auto rounded-lg border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 p-1 shadow-sm"
    >
      {sections.map((s) => (
        <a
          key={s.id}
          href={`#${s.id}`}
          onClick={(e) => go(e, s.id)}
          className="whitespace-nowrap rounded-md px-3 py-1.5 text-sm font-medium text-slate-700 hover:bg-slate-100 hover:text-slate-900 focus-visible:outline focus-visible:outline-2 focus-visible:outline-brand-600 dark:text-slate-300 dark:hover:bg-slate-800 dark:hover:text-slate-100"
        >
          {s.label}
        </a>
      ))}
    </nav>
  );
}
