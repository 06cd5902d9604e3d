import { statusMatches, type Assertion, type AssertionResult, type CheckFailureClass, type HttpCheckOutput, type HttpParams } from '@vantage/shared-protocol';
import { toHttpOutput } from '../probes/http.js';
import type { Failure } from '../probes/http/classify.js';
import { measureHttp, type HttpMeasure } from '../probes/http/measure.js';
import { evaluateAssertions, firstFailure, type ResponseSubject } from './assertions/evaluate.js';
import type { PatternSandbox } from './assertions/sandbox.js';
import type { CheckContext } from './types.js';

/**
 * Body bytes an HTTP-like check reads and keeps for its assertions, keyword or token count by
 * default (docs/api/checks.md "Body cap"): 1 MiB. Past it the download stops and the result says
 * `body_truncated`; assertions see the first 1 MiB.
 */
export const DEFAULT_CHECK_BODY_MAX_BYTES = 1024 * 1024;

/** What the HTTP-like checks share: trusted CAs (tests), the body cap, the pattern sandbox. */
export interface HttpCheckDeps {
  ca?: string | string[];
  body_max_bytes: number;
  sandbox: PatternSandbox;
}

/** One HTTP request of a check: the probe's measure, its wire output, the body text. */
export interface HttpExchange {
  measure: HttpMeasure;
  output: HttpCheckOutput;
  /** The body read, as UTF-8 text (cut at the cap); null without a response. */
  body: string | null;
  /** No usable response (network, TLS or redirect failure): the probe's failure; null otherwise. */
  failure: Failure | null;
}

/**
 * Send the check's request with the HTTP probe's engine (probes/http/measure.ts: pinned
 * resolution and policy, redirects, timing), keeping the body up to `deps.body_max_bytes`.
 * `accept_invalid_certificate` goes on past a certificate that fails verification (https
 * `ignore_tls_errors`), reporting OpenSSL's reason in `output.certificate_error`.
 */
export async function httpExchange(target: string, request: HttpParams, ctx: CheckContext, deps: HttpCheckDeps, accept_invalid_certificate = false): Promise<HttpExchange> {
  const m = await measureHttp(target, request, ctx.policy, ctx.signal, {
    ca: deps.ca, body_cap_bytes: deps.body_max_bytes, keep_body: true, accept_invalid_certificate,
  });
  const output: HttpCheckOutput = { ...toHttpOutput(m), certificate_error: m.last?.certificate_error ?? null };
  const status = m.last?.status_code ?? null;
  // The probe also fails a status >= 400; a check judges the status by its own expected_status.
  const statusOnly = m.failure !== null && m.last?.failure === null && status !== null && status >= 400;
  return {
    measure: m,
    output,
    body: m.last?.body ? m.last.body.toString('utf8') : status !== null ? '' : null,
    failure: statusOnly ? null : m.failure,
  };
}

/** The assertion subject of a response. */
export function responseSubject(ex: HttpExchange): ResponseSubject {
  const o = ex.output;
  return {
    status_code: o.status_code,
    response_time_ms: o.response_ms,
    headers: o.status_code === null ? null : o.headers,
    body: ex.body,
    body_truncated: o.body_truncated,
    ssl_days_remaining: o.certificate?.days_left ?? null,
  };
}

/** The verdict of an HTTP-like check so far: passed, or the first failure with its class. */
export type Verdict = { ok: true } | { ok: false; error: string; error_class: CheckFailureClass };

/**
 * Judge a response in the order every HTTP-like check uses: no usable response → the probe's
 * error; a status outside `expected_status` → `target`; then `extra` (the type's own rule, e.g.
 * the keyword), then the first failing assertion (`assertion`). All assertions are evaluated and
 * returned whatever the verdict.
 */
export async function judgeResponse(
  ex: HttpExchange, expected_status: string, assertions: readonly Assertion[], sandbox: PatternSandbox, extra: () => Verdict | Promise<Verdict> = () => ({ ok: true }),
): Promise<{ verdict: Verdict; assertions: AssertionResult[] }> {
  const results = await evaluateAssertions(assertions, responseSubject(ex), sandbox);
  if (ex.failure) return { verdict: { ok: false, error: ex.failure.error, error_class: ex.failure.error_class }, assertions: results };
  const status = ex.output.status_code!;
  if (!statusMatches(expected_status, status)) {
    return { verdict: { ok: false, error: `HTTP status ${status} is not in expected_status ${expected_status}`, error_class: 'target' }, assertions: results };
  }
  const own = await extra();
  if (!own.ok) return { verdict: own, assertions: results };
  const failing = firstFailure(results);
  if (failing) return { verdict: { ok: false, error: failing.detail, error_class: 'assertion' }, assertions: results };
  return { verdict: { ok: true }, assertions: results };
}
