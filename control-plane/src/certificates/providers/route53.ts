import aws4 from 'aws4';
import type { z } from 'zod';
import type { DnsProvider, ProviderConfig, providerSettings } from './dns-provider.js';

/*
 * DNS-01 through the Route 53 API (version 2013-04-01: GetHostedZone, ListResourceRecordSets,
 * ChangeResourceRecordSets), requests signed with AWS Signature Version 4 (aws4). A TXT record
 * set holds every value at a name, so adding or removing one value rewrites the set (UPSERT, or
 * DELETE of the last value). The health check reads the hosted zone.
 */

const NS = 'https://route53.amazonaws.com/doc/2013-04-01/';
const xmlEscape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const xmlUnescape = (s: string) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, '\'').replace(/&amp;/g, '&');
const tags = (xml: string, tag: string) => [...xml.matchAll(new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, 'g'))].map((m) => xmlUnescape(m[1]!));
/** A TXT value as Route 53 writes it: one quoted character-string. */
const quoted = (v: string) => `"${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;

/** Route 53's provider over `settings.hosted_zone_id`, signing with `settings.access_key_id` and `secret_access_key`. */
export function route53Provider(settings: z.infer<typeof providerSettings.route53>, secret_access_key: string, config: ProviderConfig): DnsProvider {
  const endpoint = new URL(config.certificates_route53_api_url);
  const zone = settings.hosted_zone_id.replace(/^\/hostedzone\//, '');

  async function call(method: 'GET' | 'POST', path: string, body?: string): Promise<string> {
    const req = aws4.sign({
      host: endpoint.host, path, method, service: 'route53', region: settings.region, body,
      headers: body === undefined ? {} : { 'content-type': 'text/xml' },
    }, { accessKeyId: settings.access_key_id, secretAccessKey: secret_access_key });
    let res: Response;
    try {
      res = await fetch(`${endpoint.protocol}//${endpoint.host}${path}`, {
        method, body, headers: req.headers as Record<string, string>, signal: AbortSignal.timeout(config.certificates_dns_timeout_ms),
      });
    } catch (err) {
      throw new Error(`Route 53 API unreachable: ${(err as Error).message}`);
    }
    const text = await res.text();
    if (!res.ok) throw new Error(`Route 53 API refused: ${tags(text, 'Code')[0] ?? `HTTP ${res.status}`}: ${tags(text, 'Message')[0] ?? ''}`.trim());
    return text;
  }

  /** The TXT values now at `fqdn` (unquoted as written). */
  async function values(fqdn: string): Promise<string[]> {
    const name = fqdn.replace(/\.?$/, '.');
    const xml = await call('GET', `/2013-04-01/hostedzone/${zone}/rrset?${new URLSearchParams({ name, type: 'TXT', maxitems: '1' })}`);
    const set = tags(xml, 'ResourceRecordSet')[0];
    if (!set || tags(set, 'Name')[0]?.toLowerCase() !== name.toLowerCase() || tags(set, 'Type')[0] !== 'TXT') return [];
    return tags(set, 'Value').map((v) => v.replace(/^"|"$/g, '').replace(/\\(.)/g, '$1'));
  }

  function change(action: 'UPSERT' | 'DELETE', fqdn: string, vals: string[]): Promise<string> {
    const records = vals.map((v) => `<ResourceRecord><Value>${xmlEscape(quoted(v))}</Value></ResourceRecord>`).join('');
    const body = `<?xml version="1.0" encoding="UTF-8"?><ChangeResourceRecordSetsRequest xmlns="${NS}"><ChangeBatch><Changes><Change><Action>${action}</Action>`
      + `<ResourceRecordSet><Name>${xmlEscape(fqdn.replace(/\.?$/, '.'))}</Name><Type>TXT</Type><TTL>60</TTL><ResourceRecords>${records}</ResourceRecords></ResourceRecordSet>`
      + '</Change></Changes></ChangeBatch></ChangeResourceRecordSetsRequest>';
    return call('POST', `/2013-04-01/hostedzone/${zone}/rrset`, body);
  }

  return {
    async present(fqdn, value) {
      const now = await values(fqdn);
      if (!now.includes(value)) await change('UPSERT', fqdn, [...now, value]);
    },
    async cleanup(fqdn, value) {
      const now = await values(fqdn);
      if (!now.includes(value)) return;
      const rest = now.filter((v) => v !== value);
      await (rest.length === 0 ? change('DELETE', fqdn, now) : change('UPSERT', fqdn, rest));
    },
    async check() {
      await call('GET', `/2013-04-01/hostedzone/${zone}`);
    },
  };
}
