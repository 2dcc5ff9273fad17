/**
 * A VM list row's action menu (issue 25 item 2): the VM page's actions, in its order and by its rules (Stop while
 * the VM can stop, otherwise Start; each enabled only when the caller's role grants it and the VM's status allows
 * it, a disabled one saying why). The menu is placed `fixed` beside its button (following it when the page
 * scrolls), so the table's sideways scroll region does not clip it; Escape, Tab or a click outside close it, focus
 * going back to the button.
 */
import EllipsisVertical from 'lucide-react/icons/ellipsis-vertical';
import { useCallback, useEffect, useId, useLayoutEffect, useRef, useState, type KeyboardEvent } from 'react';
import type { Permission } from '@portal/contract/permissions';
import { VM_ACTIONS, type VmActionName, type VmStatus } from '@portal/contract/vm-actions';
import { shownVmActions, vmActionRefusal } from '../vm-actions.ts';

const MENU_WIDTH = 224;

export function VmRowMenu({
  name,
  status,
  permissions,
  onAction,
}: {
  name: string;
  status: VmStatus;
  permissions: readonly Permission[];
  onAction: (action: VmActionName) => void;
}) {
  const [open, setOpen] = useState(false);
  const [place, setPlace] = useState<{ top: number; left: number; up: boolean } | null>(null);
  const button = useRef<HTMLButtonElement>(null);
  const menu = useRef<HTMLDivElement>(null);
  const id = useId();
  const actions = shownVmActions(status);

  // Beside the button, below it or (near the bottom of the window) above it; following it when the page or the
  // table scrolls.
  const position = useCallback(() => {
    if (!button.current) return;
    const r = button.current.getBoundingClientRect();
    const up = r.bottom + 320 > window.innerHeight && r.top > 320;
    const left = Math.max(8, Math.min(r.right - MENU_WIDTH, window.innerWidth - MENU_WIDTH - 8));
    setPlace({ top: up ? r.top - 4 : r.bottom + 4, left, up });
  }, []);
  useLayoutEffect(() => {
    if (open) position();
  }, [open, position]);

  const opened = open && place !== null;
  useEffect(() => {
    if (!opened) return;
    const first = menu.current?.querySelector<HTMLElement>('[role="menuitem"]:not([aria-disabled="true"])');
    (first ?? menu.current?.querySelector<HTMLElement>('[role="menuitem"]'))?.focus({ preventScroll: true });
    const outside = (e: Event) => {
      if (menu.current?.contains(e.target as Node) || button.current?.contains(e.target as Node)) return;
      setOpen(false);
    };
    document.addEventListener('pointerdown', outside);
    window.addEventListener('resize', position);
    window.addEventListener('scroll', position, true);
    return () => {
      document.removeEventListener('pointerdown', outside);
      window.removeEventListener('resize', position);
      window.removeEventListener('scroll', position, true);
    };
  }, [opened, position]);

  function closeAndFocus() {
    setOpen(false);
    button.current?.focus();
  }
  function choose(action: VmActionName) {
    // Focus back on the button first: the dialog the action opens gives focus back to it when it closes.
    closeAndFocus();
    onAction(action);
  }
  function onMenuKey(e: KeyboardEvent<HTMLDivElement>) {
    const items = Array.from(menu.current?.querySelectorAll<HTMLElement>('[role="menuitem"]') ?? []);
    const at = items.indexOf(document.activeElement as HTMLElement);
    const move = (to: number) => items[(to + items.length) % items.length]?.focus();
    if (e.key === 'Escape' || e.key === 'Tab') {
      e.preventDefault();
      closeAndFocus();
    } else if (e.key === 'ArrowDown') {
      e.preventDefault();
      move(at + 1);
    } else if (e.key === 'ArrowUp') {
      e.preventDefault();
      move(at - 1);
    } else if (e.key === 'Home') {
      e.preventDefault();
      move(0);
    } else if (e.key === 'End') {
      e.preventDefault();
      move(items.length - 1);
    }
  }

  return (
    // A click or key in the menu is not the row's (which opens the VM's page).
    <div onClick={(e) => e.stopPropagation()} onKeyDown={(e) => e.stopPropagation()} className="inline-block">
      <button
        ref={button}
        type="button"
        aria-label={`Actions for ${name}`}
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? id : undefined}
        onClick={() => setOpen((o) => !o)}
        className="inline-flex h-8 w-8 items-center justify-center rounded-md text-slate-600 hover:bg-slate-100 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600 dark:text-slate-300 dark:hover:bg-slate-800"
      >
        <EllipsisVertical className="h-4 w-4" aria-hidden />
      </button>
      {open && place && (
        <div
          ref={menu}
          id={id}
          role="menu"
          aria-label={`Actions for ${name}`}
          onKeyDown={onMenuKey}
          style={{
            position: 'fixed',
            left: place.left,
            width: MENU_WIDTH,
            ...(place.up ? { bottom: window.innerHeight - place.top } : { top: place.top }),
          }}
          className="z-50 rounded-md border border-slate-200 bg-white py-1 text-left shadow-lg dark:border-slate-700 dark:bg-slate-900"
        >
          {actions.map((action) => {
            const reason = vmActionRefusal(action, status, permissions);
            return (
              <button
                key={action}
                type="button"
                role="menuitem"
                tabIndex={-1}
                data-action={action}
                aria-disabled={reason !== null}
                title={reason ?? undefined}
                onClick={() => reason === null && choose(action)}
                className={`block w-full px-3 py-1.5 text-left text-sm focus:outline-none ${
                  reason !== null
                    ? 'cursor-not-allowed text-slate-400 dark:text-slate-500'
                    : action === 'delete'
                      ? 'text-red-700 hover:bg-red-50 focus:bg-red-50 dark:text-red-300 dark:hover:bg-red-950/50 dark:focus:bg-red-950/50'
                      : 'text-slate-700 hover:bg-slate-100 focus:bg-slate-100 dark:text-slate-200 dark:hover:bg-slate-800 dark:focus:bg-slate-800'
                }`}
              >
                {VM_ACTIONS[action].label}
                {reason !== null && <span className="sr-only">{` (${reason})`}</span>}
              </button>
            );
          })}
        </div>
      )}
    </div>
  );
}
