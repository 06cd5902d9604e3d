import type { Config } from './index.js';

/** Listening addresses that name no one host: a URL built from them would reach nothing. */
const UNSPECIFIED = new Set(['', '0.0.0.0', '::', '[::]', '::0']);

/**
 * The base every absolute URL the control plane hands out starts with (heartbeat check-in URLs,
 * signed artifact URLs, e-mail links; docs/operators/install.md "Public URL"), from configuration
 * only: `public_url` (VANTAGE_PUBLIC_URL) without its trailing slashes, else this instance's own
 * listening address `http://<host>:<port>` (an unspecified host, 0.0.0.0 or ::, becomes
 * 127.0.0.1; an IPv6 literal is bracketed). Never the request's Host header, which any client
 * sets at will (host header injection: a forged Host would make links point elsewhere).
 * @returns `https://vantage.example` or `http://127.0.0.1:8080` (no trailing slash)
 */
export function publicBaseUrl(config: Pick<Config, 'public_url' | 'host' | 'port'>): string {
  if (config.public_url) return config.public_url.replace(/\/+$/, '');
  const host = UNSPECIFIED.has(config.host) ? '127.0.0.1' : config.host;
  return `http://${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}:${config.port}`;
}
