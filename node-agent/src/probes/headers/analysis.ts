import type { HeadersOutput, HeadersSecurity } from '@vantage/shared-protocol';

/** CDNs recognised by a response header each sets (name, test), first match wins. */
const CDN_SIGNS: Array<[string, (h: Record<string, string>) => boolean]> = [
  ['cloudflare', (h) => 'cf-ray' in h || /cloudflare/i.test(h.server ?? '')],
  ['cloudfront', (h) => 'x-amz-cf-id' in h || /cloudfront/i.test(h.via ?? '')],
  ['fastly', (h) => 'x-fastly-request-id' in h || /^cache-/i.test(h['x-served-by'] ?? '')],
  ['akamai', (h) => /akamai/i.test(h.server ?? '') || Object.keys(h).some((k) => k.startsWith('x-akamai-'))],
  ['azure_front_door', (h) => 'x-azure-ref' in h],
  ['google_cloud_cdn', (h) => /google/i.test(h.via ?? '') && 'age' in h],
  ['bunnycdn', (h) => /bunnycdn/i.test(h.server ?? '') || 'cdn-pullzone' in h],
  ['vercel', (h) => 'x-vercel-id' in h],
  ['netlify', (h) => 'x-nf-request-id' in h],
];

/** The CDN the final response came through, recognised by its headers; undefined when none is. */
export function detectCdn(headers: Record<string, string>): string | undefined {
  return CDN_SIGNS.find(([, test]) => test(headers))?.[0];
}

/** docs/api/probes.md `security`: the security-relevant headers, each left out when absent or empty. */
export function securityOf(headers: Record<string, string>): HeadersSecurity {
  const pick: Record<keyof HeadersSecurity, string | undefined> = {
    cdn: detectCdn(headers),
    content_encoding: headers['content-encoding'],
    csp: headers['content-security-policy'],
    hsts: headers['strict-transport-security'],
    referrer_policy: headers['referrer-policy'],
    server: headers.server,
    x_content_type_options: headers['x-content-type-options'],
    x_frame_options: headers['x-frame-options'],
  };
  return Object.fromEntries(Object.entries(pick).filter(([, v]) => v !== undefined && v.trim() !== '')) as HeadersSecurity;
}

/**
 * The analysis rubric of docs/api/probes.md "HTTP headers analysis":
 * - `no_https_redirect`: an http:// URL whose chain does not end on https://;
 * - `no_hsts`: the final response has no Strict-Transport-Security (RFC 6797), or is not https;
 * - `no_compression`: the final response has no Content-Encoding other than identity although we
 *   offered gzip, deflate and br;
 * - `no_cdn`: no CDN recognised ({@link detectCdn});
 * `insecure` is true when the final URL is not https, or `no_https_redirect` or `no_hsts` holds.
 */
export function analyse(url: string, final_url: string | null, security: HeadersSecurity): HeadersOutput['analysis'] {
  const reasons: HeadersOutput['analysis']['reasons'] = [];
  const finalHttps = (final_url ?? '').startsWith('https:');
  if (url.startsWith('http:') && !finalHttps) reasons.push('no_https_redirect');
  if (!finalHttps || !security.hsts) reasons.push('no_hsts');
  if (!security.content_encoding || /^identity$/i.test(security.content_encoding)) reasons.push('no_compression');
  if (!security.cdn) reasons.push('no_cdn');
  return { insecure: !finalHttps || reasons.includes('no_https_redirect') || reasons.includes('no_hsts'), reasons };
}
