import type { Context, MiddlewareHandler } from 'hono';
import type { AppDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { ApiError } from '../errors.js';
import { insertAdminAudit, isAdminUser } from './admin.db.js';

/**
 * Guard of every `/v1/admin/...` route (docs/operators/self-hosting.md "Administrators"):
 * 401 AUTH_REQUIRED for an anonymous caller, 403 FORBIDDEN for a credential without the `write`
 * scope (admin routes change the deployment) or for an account that is not an administrator.
 * API keys and PATs of an administrator work like its sessions.
 */
export function requireAdmin(deps: Pick<AppDeps, 'sql' | 'config'>): MiddlewareHandler<AppEnv> {
  return async function requireAdminMiddleware(c, next) {
    const principal = c.get('principal');
    if (!principal) throw new ApiError('AUTH_REQUIRED', 'authentication required: send Authorization: Bearer <token>');
    if (!(await isAdminUser(deps.sql, principal.user_id, deps.config.admin_emails))) {
      throw new ApiError('FORBIDDEN', 'this route is for the deployment\'s administrators (VANTAGE_ADMIN_EMAILS)');
    }
    if (c.req.method !== 'GET' && !principal.scopes.includes('write')) {
      throw new ApiError('FORBIDDEN', "this credential lacks the 'write' scope", { required_scope: 'write' });
    }
    await next();
  };
}

/**
 * Record an administrator's change in the audit log; call it after the change succeeded, from a
 * route behind requireAdmin. `action` is dotted (`account.create`, `node.platform`).
 */
export async function auditAdmin(
  c: Context<AppEnv>, deps: Pick<AppDeps, 'sql'>, action: string, target_id: string | null, details?: Record<string, unknown>,
): Promise<void> {
  await insertAdminAudit(deps.sql, { actor_user_id: c.get('principal')!.user_id, action, target_id, ...(details ? { details } : {}) });
}
