/**
 * The toasts' container itself (react-toastify and its CSS, ~6.5 KB gzip of JS): loaded by toast.tsx once the
 * user is signed in, so the sign-in screens do not carry it (issue 25, /login's weight; docs/decisions/0010).
 */
import { ToastContainer } from 'react-toastify';
import 'react-toastify/dist/ReactToastify.css';
import { TOAST_AUTO_CLOSE_MS, TOAST_WIDTH_PX } from '@portal/contract/constants';
import type { Theme } from '../../lib/theme.ts';

/** Bottom-left, newest on top, no progress bar, draggable, close on click, 5 s, 320 px, queued over a limit. */
export function ToastContainerView({ theme }: { theme: Theme }) {
  return (
    <ToastContainer
      theme={theme}
      position="bottom-left"
      newestOnTop
      hideProgressBar
      draggable
      closeOnClick
      autoClose={TOAST_AUTO_CLOSE_MS}
      limit={5}
      style={{ width: TOAST_WIDTH_PX }}
    />
  );
}
