/**
 * Generic modal: title, optional close "x", overlay; closes on Escape or overlay click. Built on Radix's
 * dialog (docs/decisions/0004): focus moves into the dialog, is trapped there, and returns to the element that
 * opened it; the page behind is hidden from screen readers while it is open.
 */
import * as Dialog from '@radix-ui/react-dialog';
import X from 'lucide-react/icons/x';
import { useRef, type ReactNode } from 'react';
import { MODAL_Z_INDEX } from '@portal/contract/constants';
import { returnFocus } from './return-focus.ts';

export interface ModalProps {
  open: boolean;
  title: string;
  onClose: () => void;
  showClose?: boolean;
  children: ReactNode;
  footer?: ReactNode;
  width?: string;
}

export function Modal({ open, title, onClose, showClose = true, children, footer, width = 'max-w-lg' }: ModalProps) {
  // Our dialogs are opened by state, not by a Radix trigger: remember what had focus, to give it back on close.
  const returnFocusTo = useRef<HTMLElement | null>(null);
  return (
    <Dialog.Root
      open={open}
      onOpenChange={(next) => {
        if (!next) onClose();
      }}
    >
      <Dialog.Portal>
        <div className="fixed inset-0 flex items-center justify-center p-4" style={{ zIndex: MODAL_Z_INDEX }}>
          <Dialog.Overlay className="absolute inset-0 bg-slate-900/50 dark:bg-black/70" data-testid="modal-overlay" />
          <Dialog.Content
            aria-describedby={undefined}
            onOpenAutoFocus={() => {
              returnFocusTo.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
            }}
            onCloseAutoFocus={(event) => {
              event.preventDefault();
              returnFocus(returnFocusTo.current);
            }}
            className={`relative flex max-h-full w-full ${width} flex-col rounded-lg bg-white shadow-xl dark:bg-slate-900 dark:ring-1 dark:ring-slate-700`}
          >
            <div className="flex items-start justify-between border-b border-slate-200 px-6 py-4 dark:border-slate-700">
              <Dialog.Title className="text-lg font-semibold text-slate-900 dark:text-slate-100">{title}</Dialog.Title>
              {showClose && (
                <Dialog.Close
                  aria-label="Close"
                  className="rounded p-1 text-slate-500 hover:bg-slate-100 hover:text-slate-700 dark:text-slate-400 dark:hover:bg-slate-800 dark:hover:text-slate-200"
                >
                  <X className="h-5 w-5" />
                </Dialog.Close>
              )}
            </div>
            <div className="overflow-y-auto px-6 py-4">{children}</div>
            {footer && (
              <div className="flex flex-wrap justify-end gap-2 border-t border-slate-200 px-6 py-3 dark:border-slate-700">
                {footer}
              </div>
            )}
          </Dialog.Content>
        </div>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
