/**
 * Whether a scroll box's content is larger than the box along one axis: the box then needs to be reachable by
 * keyboard (WCAG 2.1.1; axe's scrollable-region-focusable) unless something inside it takes focus. Measured again
 * when the box resizes (the window) or its content does (rows arriving).
 */
import { useLayoutEffect, useState, type DependencyList, type RefObject } from 'react';

export function useOverflows(ref: RefObject<HTMLElement | null>, axis: 'x' | 'y', deps: DependencyList): boolean {
  const [overflows, setOverflows] = useState(false);
  useLayoutEffect(() => {
    const box = ref.current;
    if (!box) return;
    const measure = () =>
      setOverflows(axis === 'x' ? box.scrollWidth > box.clientWidth + 1 : box.scrollHeight > box.clientHeight + 1);
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(box);
    for (const child of Array.from(box.children)) observer.observe(child);
    return () => observer.disconnect();
    // The caller names what changes its content (its children); ref and axis are fixed for a box.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, deps);
  return overflows;
}
