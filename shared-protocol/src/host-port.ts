import { isIP } from 'node:net';

/**
 * Split a target of the forms `host`, `host:port`, `[v6]`, `[v6]:port` or a bare IPv6 literal
 * (`::1`; no port possible) — the grammar of docs/api/probes.md's tcp `target` ("host:port, or host with
 * params.port") and dns `server` ("host or host:port"), shared by the control plane's pre-dispatch
 * check and the node's probes so both sides agree. The port, when present, must be 1-65535.
 * Host names are not validated here beyond "non-empty, no whitespace or slash"; callers that need
 * RFC 1123 names check them on top.
 * @returns `{ host, port }` (port null when absent), or null when malformed
 */
export function splitHostPort(target: string): { host: string; port: number | null } | null {
  const text = target.trim();
  let host: string;
  let port_text: string | null = null;
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(text);
  if (bracketed) {
    host = bracketed[1]!;
    port_text = bracketed[2] ?? null;
    if (isIP(host) !== 6) return null;
  } else if (isIP(text) === 6) {
    host = text;
  } else {
    const parts = text.split(':');
    if (parts.length > 2) return null;
    host = parts[0]!;
    port_text = parts[1] ?? null;
  }
  if (!host || /[\s/]/.test(host)) return null;
  if (port_text === null) return { host, port: null };
  if (!/^\d{1,5}$/.test(port_text)) return null;
  const port = Number(port_text);
  return port >= 1 && port <= 65535 ? { host, port } : null;
}

/**
 * Split an ssl_expiry target (docs/api/monitors.md): `host`, `host:port`, `[v6]:port` or an
 * https:// URL, so the control plane's check at creation and the node's check agree.
 * @returns `{ host, port }` (brackets removed from IPv6, port null when absent), or
 *   `{ error: 'syntax' }` when it is none of those forms, `{ error: 'scheme' }` for a URL that is
 *   not https://
 */
export function splitSslTarget(target: string): { host: string; port: number | null } | { error: 'syntax' | 'scheme' } {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(target)) return splitHostPort(target) ?? { error: 'syntax' };
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return { error: 'syntax' };
  }
  if (url.protocol !== 'https:') return { error: 'scheme' };
  return { host: url.hostname.replace(/^\[(.*)\]$/, '$1'), port: url.port ? Number(url.port) : null };
}
