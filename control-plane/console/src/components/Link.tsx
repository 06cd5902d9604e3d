import type { ComponentChildren } from 'preact';
import { navigate } from '../router.js';

/** An in-app link: a real `<a href>` (keyboard, new tab) that navigates without a reload on a plain click. */
export function Link(props: { href: string; children: ComponentChildren; class?: string; 'aria-current'?: 'page' | undefined }) {
  return (
    <a {...props} onClick={(e) => {
      if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
      e.preventDefault();
      navigate(props.href);
    }}>{props.children}</a>
  );
}
