import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/*
 * Cloudflare's DNS records API (v4) and Amazon Route 53's API (2013-04-01) as their documentation
 * describes them, served on loopback for the hosted-provider adapter tests (the services
 * themselves are unreachable from test machines):
 * - Cloudflare (developers.cloudflare.com/api, "DNS Records for a Zone", "Zones"): Bearer API
 *   token; `GET /zones/{zone_id}`, `GET|POST /zones/{zone_id}/dns_records` (list filtered by
 *   type, name, content), `DELETE /zones/{zone_id}/dns_records/{id}`; every answer the envelope
 *   `{success, errors[{code, message}], messages[], result}`.
 * - Route 53 (docs.aws.amazon.com/Route53/latest/APIReference): GetHostedZone,
 *   ListResourceRecordSets (sets in DNS name order from `name`/`type`, so the first set may be
 *   another name's), ChangeResourceRecordSets (UPSERT replaces a set; DELETE must name the set
 *   exactly, else InvalidChangeBatch); errors as `<ErrorResponse><Error><Code>…`; every request
 *   must carry a valid AWS Signature Version 4, checked here independently of the client's signer.
 * Each records the requests it answered, for the tests to look at.
 */

interface Teardown { teardown(fn: () => unknown): void }

/** A request as a fake server received it. */
export interface SeenRequest { method: string; path: string; headers: IncomingMessage['headers']; body: string }

async function serve(t: Teardown, handle: (req: SeenRequest, res: ServerResponse) => void): Promise<{ url: string; seen: SeenRequest[] }> {
  const seen: SeenRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r = { method: req.method!, path: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      seen.push(r);
      handle(r, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

/** A DNS record a fake provider holds. */
export interface FakeRecord { id: string; name: string; type: string; content: string; ttl: number }

/** A running fake Cloudflare API: its base URL (…/client/v4), the zone, the valid token, the records. */
export interface FakeCloudflare { api_url: string; zone_id: string; token: string; records: FakeRecord[]; seen: SeenRequest[] }

/** Serve Cloudflare's v4 DNS records API for one zone (`example.test`) on loopback. */
export async function startFakeCloudflare(t: Teardown): Promise<FakeCloudflare> {
  const zone_id = randomBytes(16).toString('hex');
  const token = `cf-token-${randomBytes(12).toString('hex')}`;
  const records: FakeRecord[] = [{ id: randomBytes(16).toString('hex'), name: 'example.test', type: 'A', content: '192.0.2.1', ttl: 300 }];
  const send = (res: ServerResponse, status: number, body: object) => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
  const fail = (res: ServerResponse, status: number, code: number, message: string) => send(res, status, { success: false, errors: [{ code, message }], messages: [], result: null });
  const okWith = (res: ServerResponse, result: unknown, extra: object = {}) => send(res, 200, { success: true, errors: [], messages: [], result, ...extra });
  const shown = (r: FakeRecord) => ({ ...r, zone_id, zone_name: 'example.test', proxiable: false, proxied: false, created_on: '2026-01-01T00:00:00Z', modified_on: '2026-01-01T00:00:00Z' });

  const { url, seen } = await serve(t, (req, res) => {
    if (req.headers.authorization !== `Bearer ${token}`) return fail(res, 403, 9109, 'Invalid access token');
    const u = new URL(req.path, 'http://x');
    const m = /^\/client\/v4\/zones\/([^/]+)(\/dns_records(?:\/([^/]+))?)?$/.exec(u.pathname);
    if (!m || m[1] !== zone_id) return fail(res, 404, 7003, 'Could not route to /zones: perhaps your object identifier is invalid?');
    if (!m[2]) return req.method === 'GET' ? okWith(res, { id: zone_id, name: 'example.test', status: 'active' }) : fail(res, 405, 10000, 'method not allowed');
    if (m[3]) {
      if (req.method !== 'DELETE') return fail(res, 405, 10000, 'method not allowed');
      const at = records.findIndex((r) => r.id === m[3]);
      if (at < 0) return fail(res, 404, 81044, 'Record does not exist.');
      records.splice(at, 1);
      return okWith(res, { id: m[3] });
    }
    if (req.method === 'GET') {
      const q = u.searchParams;
      const found = records.filter((r) => (!q.get('type') || r.type === q.get('type')) && (!q.get('name') || r.name === q.get('name')!.toLowerCase()) && (!q.get('content') || r.content === q.get('content')));
      return okWith(res, found.map(shown), { result_info: { page: 1, per_page: 100, count: found.length, total_count: found.length, total_pages: 1 } });
    }
    if (req.method !== 'POST') return fail(res, 405, 10000, 'method not allowed');
    if (!/^application\/json/.test(req.headers['content-type'] ?? '')) return fail(res, 415, 10000, 'Content-Type must be application/json');
    let body: { type?: unknown; name?: unknown; content?: unknown; ttl?: unknown };
    try {
      body = JSON.parse(req.body);
    } catch {
      return fail(res, 400, 9207, 'Request body is invalid.');
    }
    if (typeof body.type !== 'string' || typeof body.name !== 'string' || typeof body.content !== 'string') return fail(res, 400, 9000, 'DNS name, type and content are required');
    if (body.ttl !== undefined && (typeof body.ttl !== 'number' || (body.ttl !== 1 && (body.ttl < 60 || body.ttl > 86400)))) return fail(res, 400, 9021, 'Invalid TTL. Must be between 60 and 86400 seconds, or 1 for Automatic.');
    const name = body.name.toLowerCase().replace(/\.$/, '');
    if (name !== 'example.test' && !name.endsWith('.example.test')) return fail(res, 400, 9005, 'Content for the record is outside the zone');
    if (records.some((r) => r.name === name && r.type === body.type && r.content === body.content)) return fail(res, 400, 81058, 'An identical record already exists.');
    const rec = { id: randomBytes(16).toString('hex'), name, type: body.type, content: body.content, ttl: (body.ttl as number | undefined) ?? 1 };
    records.push(rec);
    return okWith(res, shown(rec));
  });
  return { api_url: `${url}/client/v4`, zone_id, token, records, seen };
}

/** A Route 53 resource record set of the fake. */
export interface FakeRecordSet { name: string; type: string; ttl: number; values: string[] }

/** A running fake Route 53 API: its endpoint URL, the hosted zone, the access key pair, the record sets. */
export interface FakeRoute53 { api_url: string; hosted_zone_id: string; access_key_id: string; secret_access_key: string; sets: FakeRecordSet[]; seen: SeenRequest[] }

const NS = 'https://route53.amazonaws.com/doc/2013-04-01/';
const xml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const unxml = (s: string) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, '\'').replace(/&amp;/g, '&');
const all = (text: string, tag: string) => [...text.matchAll(new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, 'g'))].map((m) => m[1]!);
const hex = (data: string) => createHash('sha256').update(data, 'utf8').digest('hex');
const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data, 'utf8').digest();
/** RFC 3986 encoding as Signature Version 4 asks for (unreserved characters kept). */
const enc = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
/** DNS names in the order ListResourceRecordSets walks them: labels compared right to left. */
const dnsOrder = (a: string, b: string) => {
  const ka = a.toLowerCase().replace(/\.$/, '').split('.').reverse().join('\u0000');
  const kb = b.toLowerCase().replace(/\.$/, '').split('.').reverse().join('\u0000');
  return ka < kb ? -1 : ka > kb ? 1 : 0;
};

/**
 * Why `req` does not carry a valid AWS Signature Version 4 for `service` with the key pair, or
 * null (docs.aws.amazon.com/IAM/latest/UserGuide/create-signed-request.html: canonical request,
 * string to sign, the derived signing key).
 */
export function sigV4Fault(req: SeenRequest, access_key_id: string, secret_access_key: string, service: string): string | null {
  const auth = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/.exec(String(req.headers.authorization ?? ''));
  if (!auth) return 'IncompleteSignature';
  const [, key, day, region, svc, signed, signature] = auth as unknown as [string, string, string, string, string, string, string];
  if (key !== access_key_id) return 'InvalidClientTokenId';
  const amz_date = String(req.headers['x-amz-date'] ?? '');
  if (svc !== service || !amz_date.startsWith(day) || Math.abs(Date.parse(`${amz_date.slice(0, 4)}-${amz_date.slice(4, 6)}-${amz_date.slice(6, 11)}:${amz_date.slice(11, 13)}:${amz_date.slice(13, 15)}Z`) - Date.now()) > 5 * 60_000) return 'SignatureDoesNotMatch: date';
  const names = signed.split(';');
  if (!names.includes('host') || !names.includes('x-amz-date')) return 'SignatureDoesNotMatch: host and x-amz-date must be signed';
  const u = new URL(req.path, 'http://x');
  const query = [...u.searchParams.entries()].map(([k, v]) => [enc(k), enc(v)]).sort(([a, x], [b, y]) => (a! < b! ? -1 : a! > b! ? 1 : x! < y! ? -1 : 1)).map(([k, v]) => `${k}=${v}`).join('&');
  const uri = u.pathname.split('/').map((seg) => enc(enc(decodeURIComponent(seg)))).join('/');
  const headers = names.map((n) => `${n}:${String(req.headers[n] ?? '').trim().replace(/\s+/g, ' ')}\n`).join('');
  const canonical = [req.method, uri, query, headers, signed, hex(req.body)].join('\n');
  const scope = `${day}/${region}/${service}/aws4_request`;
  const to_sign = ['AWS4-HMAC-SHA256', amz_date, scope, hex(canonical)].join('\n');
  const signing_key = hmac(hmac(hmac(hmac(`AWS4${secret_access_key}`, day), region), service), 'aws4_request');
  const expected = createHmac('sha256', signing_key).update(to_sign, 'utf8').digest();
  return timingSafeEqual(expected, Buffer.from(signature, 'hex')) ? null : 'SignatureDoesNotMatch';
}

/** Serve Route 53's API for one hosted zone (`example.test.`) on loopback. */
export async function startFakeRoute53(t: Teardown): Promise<FakeRoute53> {
  const hosted_zone_id = `Z${randomBytes(8).toString('hex').toUpperCase()}`;
  const access_key_id = `AKIA${randomBytes(8).toString('hex').toUpperCase()}`;
  const secret_access_key = randomBytes(30).toString('base64');
  // A set after every _acme-challenge name in DNS order, so a listing from such a name returns it when the name has none.
  const sets: FakeRecordSet[] = [
    { name: 'example.test.', type: 'NS', ttl: 172800, values: ['ns-1.awsdns-00.com.'] },
    { name: 'zzz.example.test.', type: 'TXT', ttl: 300, values: ['"unrelated"'] },
  ];
  const fail = (res: ServerResponse, status: number, code: string, message: string) => res.writeHead(status, { 'content-type': 'text/xml' })
    .end(`<?xml version="1.0"?>\n<ErrorResponse xmlns="${NS}"><Error><Type>Sender</Type><Code>${code}</Code><Message>${xml(message)}</Message></Error><RequestId>${randomBytes(8).toString('hex')}</RequestId></ErrorResponse>`);
  const okXml = (res: ServerResponse, body: string) => res.writeHead(200, { 'content-type': 'text/xml' }).end(`<?xml version="1.0"?>\n${body}`);
  const setXml = (s: FakeRecordSet) => `<ResourceRecordSet><Name>${xml(s.name)}</Name><Type>${s.type}</Type><TTL>${s.ttl}</TTL><ResourceRecords>${s.values.map((v) => `<ResourceRecord><Value>${xml(v)}</Value></ResourceRecord>`).join('')}</ResourceRecords></ResourceRecordSet>`;

  const { url, seen } = await serve(t, (req, res) => {
    const fault = sigV4Fault(req, access_key_id, secret_access_key, 'route53');
    if (fault) return fail(res, 403, fault.split(':')[0]!, `The request signature we calculated does not match the signature you provided (${fault})`);
    const u = new URL(req.path, 'http://x');
    const m = /^\/2013-04-01\/hostedzone\/([^/]+)(\/rrset)?$/.exec(u.pathname);
    if (!m) return fail(res, 404, 'UnknownOperation', 'no such operation');
    if (m[1] !== hosted_zone_id) return fail(res, 404, 'NoSuchHostedZone', `No hosted zone found with ID: ${m[1]}`);
    if (!m[2]) {
      if (req.method !== 'GET') return fail(res, 405, 'UnknownOperation', 'no such operation');
      return okXml(res, `<GetHostedZoneResponse xmlns="${NS}"><HostedZone><Id>/hostedzone/${hosted_zone_id}</Id><Name>example.test.</Name><CallerReference>test</CallerReference><ResourceRecordSetCount>${sets.length}</ResourceRecordSetCount></HostedZone></GetHostedZoneResponse>`);
    }
    if (req.method === 'GET') {
      const name = u.searchParams.get('name');
      const type = u.searchParams.get('type');
      const max = Number(u.searchParams.get('maxitems') ?? '300');
      if (type && !name) return fail(res, 400, 'InvalidInput', 'type requires name');
      const ordered = [...sets].sort((a, b) => dnsOrder(a.name, b.name) || (a.type < b.type ? -1 : 1));
      const from = ordered.filter((s) => !name || dnsOrder(s.name, name) > 0 || (dnsOrder(s.name, name) === 0 && (!type || s.type >= type)));
      const page = from.slice(0, max);
      return okXml(res, `<ListResourceRecordSetsResponse xmlns="${NS}"><ResourceRecordSets>${page.map(setXml).join('')}</ResourceRecordSets><IsTruncated>${from.length > max}</IsTruncated><MaxItems>${max}</MaxItems></ListResourceRecordSetsResponse>`);
    }
    if (req.method !== 'POST') return fail(res, 405, 'UnknownOperation', 'no such operation');
    if (!req.body.includes(`<ChangeResourceRecordSetsRequest xmlns="${NS}">`)) return fail(res, 400, 'InvalidInput', 'not a ChangeResourceRecordSetsRequest');
    const changes = all(req.body, 'Change').map((c) => ({
      action: all(c, 'Action')[0]!, name: unxml(all(c, 'Name')[0] ?? ''), type: all(c, 'Type')[0] ?? '', ttl: Number(all(c, 'TTL')[0]), values: all(c, 'Value').map(unxml),
    }));
    if (changes.length === 0) return fail(res, 400, 'InvalidChangeBatch', 'no change');
    // A batch applies whole or not at all: changes are made on a copy.
    const next = sets.map((s) => ({ ...s }));
    for (const c of changes) {
      if (!c.name.endsWith('.') || !(c.name === 'example.test.' || c.name.endsWith('.example.test.'))) return fail(res, 400, 'InvalidChangeBatch', `RRSet with DNS name ${c.name} is not permitted in zone example.test.`);
      if (c.type === 'TXT' && c.values.some((v) => !/^"([^"\\]|\\.)*"$/.test(v))) return fail(res, 400, 'InvalidChangeBatch', 'Invalid Resource Record: FATAL problem: InvalidCharacterString (Value should be enclosed in quotation marks)');
      const at = next.findIndex((s) => s.name.toLowerCase() === c.name.toLowerCase() && s.type === c.type);
      if (c.action === 'UPSERT') {
        if (at >= 0) next.splice(at, 1);
        next.push({ name: c.name.toLowerCase(), type: c.type, ttl: c.ttl, values: c.values });
      } else if (c.action === 'DELETE') {
        const s = next[at];
        if (!s || s.ttl !== c.ttl || s.values.length !== c.values.length || !s.values.every((v) => c.values.includes(v))) {
          return fail(res, 400, 'InvalidChangeBatch', `Tried to delete resource record set [name='${c.name}', type='${c.type}'] but the values provided do not match the current values`);
        }
        next.splice(at, 1);
      } else return fail(res, 400, 'InvalidChangeBatch', `unknown action ${c.action}`);
    }
    sets.splice(0, sets.length, ...next);
    return okXml(res, `<ChangeResourceRecordSetsResponse xmlns="${NS}"><ChangeInfo><Id>/change/C${randomBytes(6).toString('hex').toUpperCase()}</Id><Status>PENDING</Status><SubmittedAt>${new Date().toISOString()}</SubmittedAt></ChangeInfo></ChangeResourceRecordSetsResponse>`);
  });
  return { api_url: url, hosted_zone_id, access_key_id, secret_access_key, sets, seen };
}
