/*
 * Code that runs inside the page (page.evaluate). Kept as source text: the node's TypeScript
 * has no DOM types, and these must not close over anything of the node's.
 */

/** What {@link PAGE_FACTS_SCRIPT} returns: timings in ms from the navigation start (0 = not reached). */
export interface PageSnapshot {
  time_origin: number;
  dcl: number;
  load: number;
  first_paint: number;
  rendered: boolean;
  text: string;
}

/** Navigation and Paint Timing entries, whether the body rendered anything, and its text (first 1,000,000 characters). */
export const PAGE_FACTS_SCRIPT = `(() => {
  const nav = performance.getEntriesByType('navigation')[0];
  const paint = performance.getEntriesByName('first-paint')[0] || performance.getEntriesByName('first-contentful-paint')[0];
  const body = document.body;
  const box = body ? body.getBoundingClientRect() : null;
  const text = body ? body.innerText || '' : '';
  return {
    time_origin: performance.timeOrigin,
    dcl: nav ? nav.domContentLoadedEventEnd : 0,
    load: nav ? nav.loadEventEnd : 0,
    first_paint: paint ? paint.startTime : 0,
    rendered: !!body && !!box && box.width > 0 && box.height > 0
      && (text.trim().length > 0 || body.querySelector('img,svg,canvas,video,iframe,input,button,object') !== null),
    text: text.slice(0, 1000000),
  };
})()`;

/** Evaluated with a selector: true/false whether a plain CSS selector matches, or the selector's syntax error. */
export const SELECTOR_SCRIPT = (selector: string): string => `(() => {
  try { return document.querySelector(${JSON.stringify(selector)}) !== null; } catch (e) { return String(e && e.message || e); }
})()`;
