/**
 * Which request header values are secrets (docs/api/monitors.md "Secrets in headers"): the rule
 * shared by monitor configs (monitors/header-secrets.ts) and stored probe tasks
 * (probes/task-secrets.ts).
 */

/**
 * Headers that never carry a credential, stored and shown as sent. Every other header value is a
 * secret: credentials hide under many names (Authorization, Cookie, X-Api-Key, Private-Token,
 * X-Goog-Api-Key, vendor names), so the rule lists what is safe rather than guessing what is not.
 */
export const PUBLIC_HEADERS: ReadonlySet<string> = new Set([
  'accept', 'accept-charset', 'accept-encoding', 'accept-language', 'cache-control', 'content-language',
  'content-type', 'pragma', 'user-agent',
]);

/** True when header `name` is treated as a secret (any name not in PUBLIC_HEADERS, case-insensitive). */
export function isSecretHeader(name: string): boolean {
  return !PUBLIC_HEADERS.has(name.toLowerCase());
}
