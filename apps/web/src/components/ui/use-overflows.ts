/**
 * Whether a scroll box's content is larger than the box along one axis: the box then needs to be reachable by
 * keyboard (WCAG 2.1.1; axe's scrollable-region-focusable) unless something inside it takes focus. Measured again
 * when the box resizes (the window), when a child resizes (rows arriving), and when children come and go (a spinner
 * replaced by the table): the observers follow the box itself, so no render has to re-subscribe them.
 */
import { useLayoutEffect, useState, type RefObject } from 'react';

export function useOverflows(ref: RefObject<HTMLElement | null>, axis: 'x' | 'y'): boolean {
  const [overflows, setOverflows] = useState(false);
  useLayoutEffect(() => {
    const box = ref.current;
    if (!box) return;
    const measure = () =>
      setOverflows(axis === 'x' ? box.scrollWidth > box.clientWidth + 1 : box.scrollHeight > box.clientHeight + 1);
    const resizes = new ResizeObserver(measure);
    const observeBoxAndChildren = () => {
      resizes.disconnect();
      resizes.observe(box);
      for (const child of Array.from(box.children)) resizes.observe(child);
    };
    const children = new MutationObserver(() => {
      observeBoxAndChildren();
      measure();
    });
    observeBoxAndChildren();
    children.observe(box, { childList: true });
    measure();
    return () => {
      resizes.disconnect();
      children.disconnect();
    };
  }, [ref, axis]);
  return overflows;
}
