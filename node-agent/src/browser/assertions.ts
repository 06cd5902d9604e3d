import type { BrowserAssertionResult, BrowserMonitorConfig } from '@vantage/shared-protocol';

/** What the check saw of the page, gathered before the assertions are evaluated. */
export interface PageFacts {
  /** Why the page did not load (navigation error), null when it did. */
  navigation_error: string | null;
  /** The main document's HTTP status, null without a response. */
  document_status: number | null;
  /** The body has a non-empty box and some content (text or elements). */
  rendered: boolean;
  /**
   * ms from the navigation start until the page reached the configured `wait_until` point (the
   * load event, DOMContentLoaded, or network idle), null when it did not: what load budgets and
   * load_under_ms compare.
   */
  ready_ms: number | null;
  failed_resources: { url: string; status: number }[];
  console_errors: string[];
  /** element_present selectors → matched, or the selector's error. */
  selectors: Map<string, boolean | string>;
  /** The body's rendered text (innerText), '' when there is none. */
  text: string;
}

const quote = (s: string) => JSON.stringify(s.length > 80 ? `${s.slice(0, 80)}…` : s);

/**
 * Evaluate the browser assertions (docs/operators/agent.md "Browser checks") over `facts`: the
 * configured ones in order, then the load budget as a `load_under_ms` result when
 * `load_budget_ms` > 0. Each result's detail says what held or what did not.
 */
export function evaluateBrowserAssertions(config: BrowserMonitorConfig, facts: PageFacts): BrowserAssertionResult[] {
  const loadUnder = (limit_ms: number, what: string): BrowserAssertionResult => {
    if (facts.ready_ms === null) return { kind: 'load_under_ms', ok: false, detail: `the page never finished loading (${what} ${limit_ms} ms)` };
    const ok = facts.ready_ms <= limit_ms;
    return { kind: 'load_under_ms', ok, detail: `load took ${Math.round(facts.ready_ms)} ms, ${ok ? 'within' : 'over'} the ${what} of ${limit_ms} ms` };
  };
  const results: BrowserAssertionResult[] = config.assertions.map((a): BrowserAssertionResult => {
    switch (a.kind) {
      case 'renderable': {
        if (facts.navigation_error) return { kind: a.kind, ok: false, detail: `the page did not load: ${facts.navigation_error}` };
        if (facts.document_status !== null && facts.document_status >= 400) return { kind: a.kind, ok: false, detail: `the document answered HTTP ${facts.document_status}` };
        return facts.rendered ? { kind: a.kind, ok: true, detail: 'the page rendered content' } : { kind: a.kind, ok: false, detail: 'the page rendered nothing (empty body)' };
      }
      case 'resources_all_ok': {
        const first = facts.failed_resources[0];
        if (!first) return { kind: a.kind, ok: true, detail: 'every resource loaded' };
        return { kind: a.kind, ok: false, detail: `${facts.failed_resources.length} resource(s) failed, first ${first.url} (${first.status === 0 ? 'no response' : `HTTP ${first.status}`})` };
      }
      case 'load_under_ms':
        return loadUnder(a.value as number, 'limit');
      case 'no_console_errors': {
        const first = facts.console_errors[0];
        if (first === undefined) return { kind: a.kind, ok: true, detail: 'no console errors' };
        return { kind: a.kind, ok: false, detail: `${facts.console_errors.length} console error(s), first: ${first.slice(0, 300)}` };
      }
      case 'element_present': {
        const selector = a.selector as string;
        const found = facts.selectors.get(selector);
        if (typeof found === 'string') return { kind: a.kind, ok: false, detail: `selector ${quote(selector)} could not be used: ${found.slice(0, 300)}` };
        return found ? { kind: a.kind, ok: true, detail: `an element matches ${quote(selector)}` } : { kind: a.kind, ok: false, detail: `no element matches ${quote(selector)}` };
      }
      case 'text_present': {
        const text = a.value as string;
        const ok = facts.text.includes(text);
        return { kind: a.kind, ok, detail: ok ? `the page shows ${quote(text)}` : `the page does not show ${quote(text)}` };
      }
    }
  });
  if (config.load_budget_ms > 0) results.push(loadUnder(config.load_budget_ms, 'load budget'));
  return results;
}
