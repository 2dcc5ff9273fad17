/** Toasts: bottom-left, newest on top, no progress bar, draggable, close on click, 5 s, 320 px, queued over a limit. */
import { ToastContainer } from 'react-toastify';
import { useTheme } from '../../lib/theme.ts';
import { TOAST_AUTO_CLOSE_MS, TOAST_WIDTH_PX } from '@portal/contract/constants';

export function Toasts() {
  const { theme } = useTheme();
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
