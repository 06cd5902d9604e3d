import type { Logger } from './log.js';

/**
 * Who is calling (spec part 5): a session JWT, an API key (`sk_live_`/`sk_test_`) or a personal
 * access token (`svc_pat_`). `scopes` are the credential's scopes (`read`, `write`, …); sessions
 * carry every scope.
 */
export interface Principal {
  kind: 'session' | 'api_key' | 'pat';
  user_id: string;
  scopes: string[];
  /** Session id, API key id or PAT id: the credential itself (rate limits are keyed on it). */
  credential_id: string;
}

/** Hono environment of every router: per-request values set by the app-level middleware. */
export type AppEnv = {
  Variables: {
    request_id: string;
    /** null for anonymous callers (set by the app's identify middleware before any route). */
    principal: Principal | null;
    log: Logger;
  };
};
