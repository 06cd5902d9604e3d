/*
 * The part of Node's `node:net` that shared-protocol's validation uses (`isIP`), for the browser
 * build: the console validates monitor forms with the same zod schemas as the API, and those
 * check host:port targets with `isIP`. Aliased in vite.config.ts.
 */

const V4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/** 4 for a dotted-quad IPv4 address, 6 for an IPv6 address (RFC 4291 text forms, as the URL parser reads them), else 0 — Node's `net.isIP`. */
export function isIP(input: string): 0 | 4 | 6 {
  if (V4.test(input)) return 4;
  if (!input.includes(':') || /[^0-9a-fA-F:.]/.test(input)) return 0;
  try {
    new URL(`http://[${input}]/`);
    return 6;
  } catch {
    return 0;
  }
}
export const isIPv4 = (input: string): boolean => isIP(input) === 4;
export const isIPv6 = (input: string): boolean => isIP(input) === 6;
