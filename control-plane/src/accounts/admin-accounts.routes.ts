import { randomBytes } from 'node:crypto';
import { createRoute, z } from '@hono/zod-openapi';
import {
  adminAccountListSchema, adminAccountPatchSchema, adminAccountSchema, adminCreateAccountRequestSchema, adminCreatedAccountSchema,
  createdInviteSchema, createInviteRequestSchema, idSchema, inviteListSchema, newId, newSecret, offsetQuerySchema, type AdminAccount,
} from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import { ApiError } from '../errors.js';
import { AUTH_ERRORS, BEARER, jsonBody, jsonError, jsonOk } from '../http/openapi-responses.js';
import { ok } from '../http/respond.js';
import { createRouter } from '../http/router.js';
import { auditAdmin, requireAdmin } from './admin.js';
import { findAccount, listAccounts, updateAccount, type AdminAccountRow } from './admin-accounts.db.js';
import { sendVerificationEmail } from './email-verification.js';
import { toInvite } from './invites.js';
import { deleteUnusedInvite, insertInvite, listInvites } from './invites.db.js';
import { hashPassword } from './passwords.js';
import { assertStrongPassword, STRENGTH_UNAVAILABLE } from './password-strength.js';
import { createAccount } from './registration.js';
import { hashSecret } from './secrets.js';
import { revokeAllCredentials } from './account-status.db.js';

const ADMIN_ERRORS = { ...AUTH_ERRORS, 403: jsonError('FORBIDDEN: not an administrator of this deployment, or (changes) a credential without the write scope') };
const idParam = (example: string) => z.object({ id: z.string().max(64).openapi({ param: { name: 'id', in: 'path' }, example }) });

function toAdminAccount(row: AdminAccountRow): AdminAccount {
  return { ...row, created_at: row.created_at.toISOString() };
}

/**
 * `/v1/admin`: accounts and invites, for the deployment's administrators only (requireAdmin;
 * docs/api/accounts.md "Administration", docs/operators/self-hosting.md). Every change is written
 * to the admin audit log: `account.create`, `account.update`, `invite.create`, `invite.delete`.
 * An administrator cannot take away its own mark or disable itself (409 CONFLICT), so a
 * deployment always keeps the administrator that acts.
 */
export function adminAccountsRouter(deps: AppDeps) {
  const r = createRouter();
  const log = deps.log.child({ module: 'admin' });
  const emails = deps.config.admin_emails;
  const guard = [requireAdmin(deps)];

  r.openapi(createRoute({
    tags: ['admin'], security: BEARER, middleware: guard, method: 'get', path: '/accounts', summary: 'List every account of the deployment, oldest first',
    request: { query: offsetQuerySchema },
    responses: { 200: jsonOk(adminAccountListSchema, '{accounts[], total, limit, offset}'), ...ADMIN_ERRORS },
  }), async (c) => {
    const { limit, offset } = c.req.valid('query');
    const { rows, total } = await listAccounts(deps.sql, emails, limit, offset);
    return ok(c, { accounts: rows.map(toAdminAccount), total, limit, offset }, 200);
  });

  r.openapi(createRoute({
    tags: ['admin'], security: BEARER, middleware: guard, method: 'post', path: '/accounts', summary: 'Create an account, whatever VANTAGE_REGISTRATION says; a password is generated when omitted',
    request: { body: jsonBody(adminCreateAccountRequestSchema) },
    responses: { 201: jsonOk(adminCreatedAccountSchema, 'the account; `password` only when generated (shown once)'), 400: jsonError('validation failed; AUTH_PASSWORD_WEAK for a given password'), ...ADMIN_ERRORS, 409: jsonError('ACCOUNT_EMAIL_TAKEN'), 503: jsonError(STRENGTH_UNAVAILABLE) },
  }), async (c) => {
    const body = c.req.valid('json');
    const generated = body.password === undefined ? randomBytes(18).toString('base64url') : null;
    if (body.password !== undefined) await assertStrongPassword(deps.config, body.password, { email: body.email });
    const user = await createAccount(deps, { id: newId('user'), email: body.email, password_hash: await hashPassword(body.password ?? generated!), is_admin: body.is_admin });
    if (!user) throw new ApiError('ACCOUNT_EMAIL_TAKEN', 'email already registered');
    await auditAdmin(c, deps, 'account.create', user.id, { email: user.email, is_admin: user.is_admin, password_generated: generated !== null });
    // Best effort, as at registration: the account works without it.
    await sendVerificationEmail(deps, user.id).catch((err: unknown) => log.error({ err, user_id: user.id }, 'verification e-mail could not be queued'));
    const account = await findAccount(deps.sql, emails, user.id);
    return ok(c, { ...toAdminAccount(account!), password: generated }, 201);
  });

  r.openapi(createRoute({
    tags: ['admin'], security: BEARER, middleware: guard, method: 'patch', path: '/accounts/{id}', summary: 'Mark or unmark an account as administrator, disable or enable it',
    request: { params: idParam('u_01jd3k6w9z4q8r2t7v5x1y3b6c'), body: jsonBody(adminAccountPatchSchema) },
    responses: {
      200: jsonOk(adminAccountSchema, 'the account as changed; disabling revokes its sessions, API keys, PATs and workspace tokens (enabling revives none)'),
      400: jsonError('validation failed'), ...ADMIN_ERRORS, 404: jsonError('ACCOUNT_NOT_FOUND'), 409: jsonError('CONFLICT: your own account, or an account scheduled for deletion'),
    },
  }), async (c) => {
    const { id } = c.req.valid('param');
    const body = c.req.valid('json');
    const target = idSchema('user').safeParse(id).success ? await findAccount(deps.sql, emails, id) : null;
    if (!target) throw new ApiError('ACCOUNT_NOT_FOUND', 'no such account');
    if (target.status === 'deleting' && body.status !== undefined) {
      throw new ApiError('CONFLICT', 'this account is scheduled for deletion: its owner restores it (POST /v1/auth/account/restore)', { status: target.status });
    }
    if (id === c.get('principal')!.user_id && (body.is_admin === false || body.status === 'disabled')) {
      throw new ApiError('CONFLICT', 'an administrator cannot unmark or disable its own account: ask another administrator');
    }
    await updateAccount(deps.sql, id, body);
    // Disabling ends every credential at once; enabling again revives none (docs/api/accounts.md "Account lifecycle").
    if (body.status === 'disabled') await revokeAllCredentials(deps.sql, id);
    await auditAdmin(c, deps, 'account.update', id, body);
    return ok(c, toAdminAccount((await findAccount(deps.sql, emails, id))!), 200);
  });

  r.openapi(createRoute({
    tags: ['admin'], security: BEARER, middleware: guard, method: 'post', path: '/invites', summary: 'Create an account invite; the token is returned once',
    request: { body: jsonBody(createInviteRequestSchema) },
    responses: { 201: jsonOk(createdInviteSchema, 'the invite with its `token` (`itk_…`, shown once)'), 400: jsonError('validation failed'), ...ADMIN_ERRORS },
  }), async (c) => {
    const body = c.req.valid('json');
    const token = newSecret('invite_token');
    const row = await insertInvite(deps.sql, { id: newId('account_invite'), token_hash: hashSecret(token), email: body.email ?? null, created_by: c.get('principal')!.user_id, expires_in_s: body.expires_in_s });
    await auditAdmin(c, deps, 'invite.create', row.id, { email: row.email, expires_at: row.expires_at.toISOString() });
    return ok(c, { ...toInvite(row), token }, 201);
  });

  r.openapi(createRoute({
    tags: ['admin'], security: BEARER, middleware: guard, method: 'get', path: '/invites', summary: 'List account invites, newest first (never their tokens)',
    request: { query: offsetQuerySchema },
    responses: { 200: jsonOk(inviteListSchema, '{invites[], total, limit, offset}'), ...ADMIN_ERRORS },
  }), async (c) => {
    const { limit, offset } = c.req.valid('query');
    const { rows, total } = await listInvites(deps.sql, limit, offset);
    return ok(c, { invites: rows.map((row) => toInvite(row)), total, limit, offset }, 200);
  });

  r.openapi(createRoute({
    tags: ['admin'], security: BEARER, middleware: guard, method: 'delete', path: '/invites/{id}', summary: 'Withdraw an unused invite',
    request: { params: idParam('inv_01jd3k6w9z4q8r2t7v5x1y3b6c') },
    responses: { 200: jsonOk(z.null(), 'withdrawn'), ...ADMIN_ERRORS, 404: jsonError('NOT_FOUND: no unused invite with this id') },
  }), async (c) => {
    const { id } = c.req.valid('param');
    if (!idSchema('account_invite').safeParse(id).success || !(await deleteUnusedInvite(deps.sql, id))) throw new ApiError('NOT_FOUND', 'no unused invite with this id');
    await auditAdmin(c, deps, 'invite.delete', id);
    return ok(c, null, 200);
  });

  return r;
}
