/**
 * "Back" that never leaves the portal (issue 25, defect 1). navigate(-1) on a page opened directly (a bookmark,
 * a new tab, a link from a mail) goes to whatever the tab showed before, or to a blank page. React Router's
 * browser history numbers the entries it makes in this tab (`history.state.idx`, 0 for the entry the portal was
 * loaded on), so an idx above 0 means the previous entry is one of the portal's own; otherwise back goes to the
 * screen's parent (the list the page belongs to), replacing the current entry as a real back would leave it.
 */
import { useCallback } from 'react';
import { useNavigate } from 'react-router';

/** Whether the entry before this one (given its `history.state`) was made by the portal in this tab. */
export function hasInAppHistory(state: unknown): boolean {
  if (typeof state !== 'object' || state === null || !('idx' in state)) return false;
  const { idx } = state;
  return typeof idx === 'number' && idx > 0;
}

/** A back action: the previous in-app page when there is one, else `parent` (e.g. '/users'). */
export function useBack(parent: string): () => void {
  const navigate = useNavigate();
  return useCallback(() => {
    if (hasInAppHistory(window.history.state)) void navigate(-1);
    else void navigate(parent, { replace: true });
  }, [navigate, parent]);
}
