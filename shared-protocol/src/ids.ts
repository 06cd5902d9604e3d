import { randomBytes, randomFillSync } from 'node:crypto';
import { z } from 'zod';

/**
 * Prefixed opaque identifiers (docs/api/conventions.md).
 *
 * Shape: `<prefix><time><random>` where `time` is 10 Crockford base32 characters of the creation
 * time in milliseconds (so ids sort by creation, like a ULID) and `random` is 16 base32 characters
 * (80 bits). Secrets (`ent_`, `sk_live_`, `svc_pat_`, node credentials) carry 32 random
 * characters (160 bits) and no time part, so nothing about them can be guessed.
 */
export const ID_PREFIXES = {
  user: 'u_',
  request: 'req_',
  monitor: 'm_',
  probe_task: 'pt_',
  /** A diagnose run: one probe group per scope (docs/api/probes.md "Diagnose"). */
  diagnose: 'dg_',
  api_key: 'key_',
  enrollment_token_record: 'et_',
  node: 'n_',
  result: 'r_',
  session: 'ses_',
  alert_policy: 'ap_',
  alert_event: 'ae_',
  maintenance_window: 'mmw_',
  monitor_group: 'mg_',
  pat: 'pat_',
  webhook_endpoint: 'we_',
  delivery: 'dlv_',
  event: 'evt_',
  message: 'msg_',
  alert_channel: 'ach_',
  escalation_level: 'ael_',
  alert_silence: 'asl_',
  alert_group: 'agr_',
  /** An account invite (docs/api/accounts.md "Administration"). */
  account_invite: 'inv_',
  /** A team (workspace) and its invitations (docs/api/teams.md). */
  team: 'team_',
  team_invite: 'tinv_',
  /** An on-call schedule and its overrides (docs/api/teams.md "On-call schedules"). */
  oncall_schedule: 'ocs_',
  oncall_override: 'oco_',
  /** An alert noise rule (docs/api/alerting.md "Noise rules"). */
  alert_noise_rule: 'anr_',
  /** A passkey (WebAuthn credential) of an account (docs/api/accounts.md "Passkeys"). */
  passkey: 'pk_',
  /** A passkey registration or login challenge, usable once (docs/api/accounts.md "Passkeys"). */
  webauthn_challenge: 'wch_',
  /** An identity at an OpenID Connect / OAuth provider linked to an account (docs/api/accounts.md "Single sign-on"). */
  oauth_identity: 'idn_',
  /** A QR-code (device authorization) login attempt (docs/api/accounts.md "QR-code login"). */
  device_authorization: 'da_',
  /** An e-mail one-time code sent for a login or a sensitive action (docs/api/accounts.md "E-mail codes"). */
  email_otp: 'otp_',
  /** A status page and one of its components (docs/api/status-pages.md). */
  status_page: 'sp_',
  status_page_component: 'spc_',
  status_page_subscriber: 'sps_',
  /** An incident and one of its timestamped updates (docs/api/status-pages.md "Incidents"). */
  incident: 'inc_',
  incident_update: 'incu_',
  /** An MCP token, a session at the MCP entry point and one tool call in it (docs/api/mcp.md). */
  mcp_token: 'mcpt_',
  mcp_session: 'mcps_',
  mcp_tool_call: 'mctc_',
  /** An agent-obs monitor and one of its events (docs/api/agent-obs.md). */
  agent_obs_monitor: 'aom_',
  agent_obs_event: 'aoe_',
  /** A dashboard and one of its widgets (docs/api/dashboards.md). */
  dashboard: 'dash_',
  widget: 'wg_',
  /** A verdict order, an attestation signing key, one step of a signed report and a key ceremony (docs/api/verdicts.md). */
  verdict_order: 'v_',
  attest_key: 'atk_',
  attestation_record: 'att_',
  key_ceremony: 'kc_',
  /** A compliance subscription and one of its periodic reports (docs/api/compliance.md). */
  compliance_subscription: 'cs_',
  compliance_report: 'cr_',
  /** A plan subscription, an invoice (charge) and an entitlement (docs/api/billing.md). */
  billing_subscription: 'sub_',
  billing_invoice: 'bi_',
  entitlement: 'etl_',
  /** A monthly leaderboard report and a vendor's opt-out request (docs/api/leaderboards.md). */
  leaderboard_report: 'lb_',
  leaderboard_opt_out: 'lbo_',
} as const;

/** Secret token prefixes (docs/api/accounts.md, docs/api/nodes.md, docs/api/conventions.md). Only a hash of each secret is stored. */
export const SECRET_PREFIXES = {
  enrollment_token: 'ent_',
  api_key_live: 'sk_live_',
  api_key_test: 'sk_test_',
  pat: 'svc_pat_',
  /** An MCP token's secret, accepted only at the MCP entry point (docs/api/mcp.md). */
  mcp_token: 'svc_mcp_',
  node_credential: 'nk_',
  refresh_token: 'rt_',
  /** A heartbeat monitor's check-in token (docs/api/monitors.md). */
  heartbeat_token: 'hb_',
  /** An account invite token, accepted once by POST /v1/auth/register (docs/api/accounts.md). */
  invite_token: 'itk_',
  /** A team invitation token, accepted once by POST /v1/teams/invites/accept (docs/api/teams.md). */
  team_invite_token: 'tit_',
  /** A QR-code login's device code, polled by the waiting browser (RFC 8628 3.2; docs/api/accounts.md). */
  device_code: 'dc_',
  /** A password reset link's token (docs/api/accounts.md "Passwords"). */
  password_reset_token: 'prt_',
  /** An account deletion's cancel link token (docs/api/accounts.md "Account lifecycle"). */
  account_restore_token: 'art_',
  /** The second step of a single sign-on to an account with TOTP on (docs/api/accounts.md "Single sign-on (OIDC, GitHub)"). */
  oauth_mfa_token: 'mfa_',
  /** A dashboard's share token: its public address, readable by the owner (docs/api/dashboards.md "Sharing"). */
  dashboard_share_token: 'dsh_',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;
export type SecretKind = keyof typeof SECRET_PREFIXES;

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';
const TIME_LEN = 10;
const RANDOM_LEN = 16;
const SECRET_LEN = 32;

/** `length` Crockford base32 characters from `bytes` at `start`, 5 bits of each byte. */
function base32Of(bytes: Uint8Array, start: number, length: number): string {
  let out = '';
  for (let i = start; i < start + length; i++) out += CROCKFORD[bytes[i]! & 31];
  return out;
}

function base32Random(length: number): string {
  return base32Of(randomBytes(length), 0, length);
}

/**
 * Random bytes for ids, drawn from the system CSPRNG 4 KiB at a time (each byte used once), as
 * Node's randomUUID caches its own: one call into the RNG per 256 ids instead of one per id, which
 * showed as ~2 % of the control plane's CPU at a few hundred probes a second. Secrets keep a call
 * of their own ({@link newSecret}).
 */
const ID_POOL = Buffer.alloc(4096);
let id_pool_at = ID_POOL.length;

function base32IdRandom(): string {
  if (id_pool_at + RANDOM_LEN > ID_POOL.length) {
    randomFillSync(ID_POOL);
    id_pool_at = 0;
  }
  const out = base32Of(ID_POOL, id_pool_at, RANDOM_LEN);
  id_pool_at += RANDOM_LEN;
  return out;
}

function base32Time(ms: number): string {
  let out = '';
  let rest = ms;
  for (let i = 0; i < TIME_LEN; i++) {
    out = CROCKFORD[rest % 32] + out;
    rest = Math.floor(rest / 32);
  }
  return out;
}

/**
 * Make a new sortable id of `kind`, e.g. `newId('monitor')` → `m_01jd3k6w9z4q8r2t7v5x1y3b6c`.
 * @param now_ms creation time in ms since the epoch (defaults to now); ids made later sort after.
 */
export function newId(kind: IdKind, now_ms: number = Date.now()): string {
  return ID_PREFIXES[kind] + base32Time(now_ms) + base32IdRandom();
}

/** Make a new secret of `kind` with 160 random bits, e.g. `newSecret('enrollment_token')` → `ent_…`. */
export function newSecret(kind: SecretKind): string {
  return SECRET_PREFIXES[kind] + base32Random(SECRET_LEN);
}

const ID_BODY = new RegExp(`^[${CROCKFORD}]{${TIME_LEN + RANDOM_LEN}}$`);
const SECRET_BODY = new RegExp(`^[${CROCKFORD}]{${SECRET_LEN}}$`);

/** True when `value` is an id of `kind` made by {@link newId}. */
export function isId(kind: IdKind, value: unknown): value is string {
  const prefix = ID_PREFIXES[kind];
  return typeof value === 'string' && value.startsWith(prefix) && ID_BODY.test(value.slice(prefix.length));
}

/** True when `value` has the shape of a secret of `kind` made by {@link newSecret}. */
export function isSecret(kind: SecretKind, value: unknown): value is string {
  const prefix = SECRET_PREFIXES[kind];
  return typeof value === 'string' && value.startsWith(prefix) && SECRET_BODY.test(value.slice(prefix.length));
}

/** Creation time (ms since the epoch) encoded in an id of `kind`, or null when it is not one. */
export function idTime(kind: IdKind, value: string): number | null {
  if (!isId(kind, value)) return null;
  const body = value.slice(ID_PREFIXES[kind].length, ID_PREFIXES[kind].length + TIME_LEN);
  let ms = 0;
  for (const ch of body) ms = ms * 32 + CROCKFORD.indexOf(ch);
  return ms;
}

/**
 * A zod schema accepting only ids of `kind`; the error names the kind in words and the expected
 * prefix: "must be an alert channel id (ach_…)".
 * @example idSchema('monitor').parse('m_01jd3k6w9z4q8r2t7v5x1y3b6c')
 */
export function idSchema(kind: IdKind) {
  const prefix = ID_PREFIXES[kind];
  const words = kind.replace(/_/g, ' ');
  return z.string().refine((v) => isId(kind, v), { message: `must be ${/^[aeiou]/.test(words) ? 'an' : 'a'} ${words} id (${prefix}…)` });
}

/** A zod schema accepting only secrets of `kind` (shape check only; the store decides validity). */
export function secretSchema(kind: SecretKind) {
  const prefix = SECRET_PREFIXES[kind];
  return z.string().refine((v) => isSecret(kind, v), { message: `must be a ${prefix}… token` });
}

/** Masked display form of a secret: prefix, first 4 and last 4 characters, e.g. `ent_abcd…wxyz`. */
export function maskSecret(secret: string): string {
  const cut = secret.indexOf('_', secret.startsWith('sk_') || secret.startsWith('svc_') ? secret.indexOf('_') + 1 : 0) + 1;
  const body = secret.slice(cut);
  return `${secret.slice(0, cut)}${body.slice(0, 4)}…${body.slice(-4)}`;
}
