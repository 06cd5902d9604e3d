import type { Logger } from './log.js';
import type { CallerStanding } from './accounts/caller-standing.db.js';

/**
 * Who is calling (docs/api/conventions.md): a session JWT, an API key (`sk_live_`/`sk_test_`) or a personal
 * access token (`svc_pat_`). `scopes` are the credential's scopes (`read`, `write`, …); sessions
 * carry every scope.
 */
export interface Principal {
  kind: 'session' | 'api_key' | 'pat';
  user_id: string;
  scopes: string[];
  /** Session id, API key id or PAT id: the credential itself (rate limits are keyed on it). */
  credential_id: string;
  /** When an API key or PAT expires (null: never); keys it creates may not outlive it. Unset for sessions. */
  expires_at?: Date | null;
  /** An API key's type (`test` = `sk_test_`); a test key creates only test keys. Unset for sessions and PATs. */
  key_type?: 'production' | 'test';
  /**
   * A workspace token's team (docs/api/teams.md "Workspace tokens"): the credential acts only on
   * that team's resources, never on personal ones. Unset or null for every other credential.
   */
  team_id?: string | null;
  /**
   * The caller's 2FA standing and team roles, read with the credential in the same statement
   * (accounts/caller-standing.db.ts); unset where a credential was resolved without them, and
   * then read when needed.
   */
  standing?: CallerStanding;
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
