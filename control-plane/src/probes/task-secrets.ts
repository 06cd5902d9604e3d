import type { CheckSpec } from '@vantage/shared-protocol';
import { isSecretHeader } from '../secrets/header-rule.js';
import { secretHeaderNames } from '../secrets/node-trust.js';
import { isSealed, type SecretBox } from '../secrets/secret-box.js';

/*
 * Secret request headers of stored probe tasks (docs/api/monitors.md "Secrets in headers"): an
 * HTTP probe's header values that may carry a credential (an ad-hoc probe with an Authorization
 * header, or a monitor's "Run now", which sends the monitor's opened headers) are sealed in
 * `probe_tasks.check` and opened only when the task is sent to its node again after a reconnect.
 * Each value is bound to its probe group and header name, so a sealed value copied elsewhere does
 * not open.
 */

type Headers = Record<string, string>;

/** What a sealed header value of a probe task is bound to: its group and the header's name. */
function aadOf(group_id: string, header: string): string {
  return `probe:${group_id}:header:${header.toLowerCase()}`;
}

function headersOf(check: CheckSpec): Headers | null {
  if (check.type !== 'http') return null;
  const headers = (check.params as { headers?: Headers }).headers;
  return headers && Object.keys(headers).some(isSecretHeader) ? headers : null;
}

/**
 * The names of the check's request headers whose values are secrets (HTTP probes only): a task
 * with any is sent only to nodes trusted with the requester's secrets (probes/select.ts PickLimits).
 */
export function taskSecretHeaders(check: CheckSpec): string[] {
  return secretHeaderNames(headersOf(check));
}

function withHeaders(check: CheckSpec, headers: Headers): CheckSpec {
  return { ...check, params: { ...check.params, headers } } as CheckSpec;
}

/**
 * The check as stored for probe group `group_id`: every secret header value sealed with `box`.
 * Unchanged when it has none, or when no key is configured (`box.key_id` null: only a control
 * plane built without main.ts, which always provides a key).
 */
export function sealTaskCheck(box: SecretBox, group_id: string, check: CheckSpec): CheckSpec {
  const headers = headersOf(check);
  if (!headers || box.key_id === null) return check;
  const out: Headers = {};
  for (const [name, value] of Object.entries(headers)) out[name] = isSecretHeader(name) && !isSealed(value) ? box.seal(value, aadOf(group_id, name)) : value;
  return withHeaders(check, out);
}

/**
 * The check as its node must run it: sealed header values of group `group_id` opened (plain
 * values, as stored before sealing existed, pass unchanged).
 * @throws SecretKeyError when a value's key is not configured or the value does not authenticate
 */
export function openTaskCheck(box: SecretBox, group_id: string, check: CheckSpec): CheckSpec {
  const headers = headersOf(check);
  if (!headers) return check;
  const out: Headers = {};
  for (const [name, value] of Object.entries(headers)) out[name] = isSealed(value) ? box.open(value, aadOf(group_id, name)) : value;
  return withHeaders(check, out);
}
