import type { Config } from '../config/index.js';
import { publicBaseUrl } from '../config/public-url.js';

/**
 * A link an e-mail carries: {@link publicBaseUrl} (configuration only, never a request's Host
 * header) followed by `path` and the URL-encoded `query`.
 * @example publicLink(config, '/v1/alert-channels/recipients/confirm', { token }) // https://vantage.example.com/v1/…?token=…
 */
export function publicLink(config: Pick<Config, 'public_url' | 'host' | 'port'>, path: string, query: Record<string, string> = {}): string {
  const base = publicBaseUrl(config);
  const search = new URLSearchParams(query).toString();
  return `${base}${path}${search ? `?${search}` : ''}`;
}
