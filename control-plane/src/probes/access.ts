import type { MiddlewareHandler } from 'hono';
import type { PublicProbesMode } from '../config/probes.js';
import type { AppEnv } from '../env.js';
import { ApiError } from '../errors.js';

/**
 * Guard of probe creation (POST /v1/probe/{type}) by the operator setting VANTAGE_PUBLIC_PROBES
 * (docs/api/probes.md "Who may probe"), checked before the body is read:
 * - `anonymous`: everyone passes;
 * - `accounts`: an anonymous caller gets 401 AUTH_REQUIRED;
 * - `off`: every caller gets 403 FORBIDDEN.
 * Both errors name the setting in the message and in `details` ({setting, value}).
 * @throws TypeError for an unknown mode (when built)
 */
export function requireProbeAccess(mode: PublicProbesMode): MiddlewareHandler<AppEnv> {
  if (mode !== 'anonymous' && mode !== 'accounts' && mode !== 'off') throw new TypeError(`requireProbeAccess: unknown mode ${String(mode)}`);
  const details = { setting: 'VANTAGE_PUBLIC_PROBES', value: mode };
  return async function requireProbeAccessMiddleware(c, next) {
    if (mode === 'off') {
      throw new ApiError('FORBIDDEN', 'ad-hoc probes are turned off on this deployment (VANTAGE_PUBLIC_PROBES=off)', details);
    }
    if (mode === 'accounts' && !c.get('principal')) {
      throw new ApiError('AUTH_REQUIRED', 'probes need a credential on this deployment (VANTAGE_PUBLIC_PROBES=accounts): send Authorization: Bearer <token>', details);
    }
    await next();
  };
}
