import { createRoute, z } from '@hono/zod-openapi';
import { DNS_PROVIDERS } from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import { ApiError } from '../errors.js';
import { AUTH_ERRORS, BEARER, jsonBody, jsonError, jsonOk } from '../http/openapi-responses.js';
import { ok } from '../http/respond.js';
import { createRouter } from '../http/router.js';
import { ownerForNew, ownerScope } from '../teams/authorize.js';
import { getDnsCredential, insertDnsCredential, listDnsCredentials, revokeDnsCredential } from './dns-credentials.db.js';
import { checkCredential } from './order-jobs.js';
import { providerSettings, secretFault, type ProviderName } from './providers/dns-provider.js';
import { boxOf, CONFLICT, idParam, listQuery, NOT_FOUND, owned, read, TAGS, write } from './route-kit.js';
import { dnsCredentialSchema, pageOf, toDnsCredential } from './views.js';

const createBody = z.object({
  provider: z.enum(DNS_PROVIDERS),
  display_name: z.string().trim().min(1).max(100),
  settings: z.record(z.string(), z.unknown()).openapi({ description: 'the provider\'s settings (docs/api/certificates.md "DNS credentials")' }),
  secret: z.string().min(1).max(500).openapi({ description: 'TSIG secret (base64), API token or secret access key; stored sealed, never returned' }),
  team_id: z.string().max(64).nullable().optional(),
}).strict();

const BAD = { 400: jsonError('VALIDATION_FAILED (a field; `settings` checked per provider)') };
const list = createRoute({
  method: 'get', path: '/', tags: TAGS, security: BEARER, middleware: read, summary: 'Your DNS credentials and your teams\', newest first',
  request: { query: listQuery }, responses: { 200: jsonOk(pageOf(dnsCredentialSchema), 'a page of DNS credentials'), ...BAD, ...AUTH_ERRORS },
});
const create = createRoute({
  method: 'post', path: '/', tags: TAGS, security: BEARER, middleware: write, summary: 'Store a DNS credential for DNS-01 challenges (secret sealed, never returned)',
  request: { body: jsonBody(createBody) }, responses: { 201: jsonOk(dnsCredentialSchema, 'the credential'), ...BAD, 404: jsonError('TEAM_NOT_FOUND'), 503: jsonError('UNAVAILABLE (no secrets key configured)'), ...AUTH_ERRORS },
});
const readOne = createRoute({
  method: 'get', path: '/{id}', tags: TAGS, security: BEARER, middleware: read, summary: 'One DNS credential',
  request: { params: idParam }, responses: { 200: jsonOk(dnsCredentialSchema, 'the credential'), ...NOT_FOUND, ...AUTH_ERRORS },
});
const check = createRoute({
  method: 'post', path: '/{id}/check', tags: TAGS, security: BEARER, middleware: write, summary: 'Check the credential now with a harmless call (no-op update, zone read); sets health_status',
  request: { params: idParam }, responses: { 200: jsonOk(dnsCredentialSchema, 'the credential with its new health'), ...NOT_FOUND, ...CONFLICT, ...AUTH_ERRORS },
});
const revoke = createRoute({
  method: 'post', path: '/{id}/revoke', tags: TAGS, security: BEARER, middleware: write, summary: 'Revoke the credential: its secret is erased; orders using it fail',
  request: { params: idParam }, responses: { 200: jsonOk(dnsCredentialSchema, 'the revoked credential'), ...NOT_FOUND, ...CONFLICT, ...AUTH_ERRORS },
});

/**
 * `/v1/dns-credentials` (docs/api/certificates.md "DNS credentials"): create, list, read, health
 * check, revoke. Secrets are sealed with the secret box, bound to the credential's id.
 */
export function dnsCredentialsRouter(deps: AppDeps) {
  const r = createRouter();
  const box = boxOf(deps);
  const load = (id: number) => getDnsCredential(deps.sql, id);

  r.openapi(list, async (c) => {
    const q = c.req.valid('query');
    const { rows, total } = await listDnsCredentials(deps.sql, await ownerScope(c, deps, 'read', q.team_id), q.page_size, (q.page - 1) * q.page_size);
    return ok(c, { items: rows.map(toDnsCredential), total, page: q.page, page_size: q.page_size, has_more: q.page * q.page_size < total }, 200);
  });

  r.openapi(create, async (c) => {
    const body = c.req.valid('json');
    const provider = body.provider as ProviderName;
    const settings = providerSettings[provider].safeParse(body.settings);
    if (!settings.success) {
      const fields = settings.error.issues.map((i) => ({ path: ['settings', ...i.path].join('.'), message: i.message }));
      throw new ApiError('VALIDATION_FAILED', `${fields[0]!.path}: ${fields[0]!.message}`, { fields });
    }
    const fault = secretFault(provider, body.secret);
    if (fault) throw new ApiError('VALIDATION_FAILED', `secret: must be ${fault}`, { fields: [{ path: 'secret', message: `must be ${fault}` }] });
    if (!box.key_id) throw new ApiError('UNAVAILABLE', 'DNS credentials cannot be stored: no secrets key is configured (VANTAGE_SECRETS_KEY)');
    const owner = await ownerForNew(c, deps, body.team_id);
    const row = await insertDnsCredential(deps.sql, { ...owner, provider, display_name: body.display_name, settings: settings.data as Record<string, unknown> },
      (id) => box.seal(body.secret, `dns-credential:${id}`));
    return ok(c, toDnsCredential(row), 201);
  });

  r.openapi(readOne, async (c) => ok(c, toDnsCredential(await owned(c, deps, c.req.valid('param').id, load, 'read', 'DNS credential')), 200));

  r.openapi(check, async (c) => {
    const row = await owned(c, deps, c.req.valid('param').id, load, 'write', 'DNS credential');
    if (row.revoked_at) throw new ApiError('CONFLICT', 'the credential is revoked', { status: 'revoked' });
    await checkCredential({ ...deps, box }, row);
    return ok(c, toDnsCredential((await load(row.id))!), 200);
  });

  r.openapi(revoke, async (c) => {
    const row = await owned(c, deps, c.req.valid('param').id, load, 'write', 'DNS credential');
    const revoked = await revokeDnsCredential(deps.sql, row.id);
    if (!revoked) throw new ApiError('CONFLICT', 'the credential is already revoked', { status: 'revoked' });
    return ok(c, toDnsCredential(revoked), 200);
  });

  return r;
}
