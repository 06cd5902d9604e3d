import type { HttpMonitorConfig, HttpParams, HttpsMonitorConfig } from '@vantage/shared-protocol';
import { parseTargetUrl } from '../probes/http/redirects.js';
import { httpExchange, judgeResponse, type HttpCheckDeps } from './http-request.js';
import { failed, passed, type Check, type CheckContext, type CheckOutcome } from './types.js';

/** The HTTP request a monitor config describes (the probe params inside it). */
export function requestOf(config: HttpMonitorConfig): HttpParams {
  return { method: config.method, timeout_ms: config.timeout_ms, headers: config.headers, body: config.body, follow_redirects: config.follow_redirects, ip_version: config.ip_version };
}

async function runHttpLike<T extends 'http' | 'https'>(target: string, config: HttpMonitorConfig, ctx: CheckContext, deps: HttpCheckDeps, ignore_tls_errors: boolean): Promise<CheckOutcome<T>> {
  const ex = await httpExchange(target, requestOf(config), ctx, deps, ignore_tls_errors);
  const { verdict, assertions } = await judgeResponse(ex, config.expected_status, config.assertions, deps.sandbox);
  return (verdict.ok ? passed(ex.output, assertions) : failed(ex.output, verdict.error, verdict.error_class, assertions)) as CheckOutcome<T>;
}

/**
 * `http` check (docs/api/checks.md): one request as the HTTP probe sends it (method, headers,
 * body, follow_redirects, timeout_ms, ip_version), up when the final status is in
 * `expected_status` (default 200-399) and every assertion holds. An https:// target's certificate
 * must verify.
 */
export function createHttpCheck(deps: HttpCheckDeps): Check<'http'> {
  return { type: 'http', run: (target, config, ctx) => runHttpLike<'http'>(target, config, ctx, deps, false) };
}

/**
 * `https` check: the http check on an https:// URL, down on an invalid, expired or mismatched
 * certificate unless `ignore_tls_errors`, in which case the check goes on and
 * `certificate_error` names what was wrong.
 */
export function createHttpsCheck(deps: HttpCheckDeps): Check<'https'> {
  return {
    type: 'https',
    async run(target, config: HttpsMonitorConfig, ctx) {
      if (parseTargetUrl(target)?.protocol !== 'https:') {
        const output = { final_url: null, status_code: null, response_ms: null, response_size: null, headers: {}, timing: null, tls: null, certificate: null, redirects: [], resolved_address: null, body_truncated: false, certificate_error: null };
        return failed(output, `an https monitor needs an https:// URL, not ${target.slice(0, 200)}`, 'rejected');
      }
      return runHttpLike<'https'>(target, config, ctx, deps, config.ignore_tls_errors);
    },
  };
}
