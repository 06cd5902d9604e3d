import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { NODE_WS_PATH, isSecret, newId, type ErrorCode } from '@vantage/shared-protocol';
import type { Config } from '../config/index.js';
import type { Sql } from '../db/sql.js';
import { pickClientIp } from '../http/client-ip.js';
import type { Logger } from '../log.js';
import { FailedAuthLimiter, rateLimitHeaders } from '../middleware/rate-limit.js';
import { enrollmentTokenUse } from '../nodes/enrollment-tokens.db.js';
import { findNodesByCredential, type NodeLinkRow } from '../nodes/nodes.db.js';
import { batchCalls } from '../db/batch.js';
import { secretHash } from '../nodes/secrets.js';
import { UpgradeCounter } from './upgrade-limit.js';
import { afterPreviousResponse, declaresBody, rejectUpgrade, serveAsPlainRequest } from './upgrade-answers.js';

/** Who is upgrading: a node enrolling with an `ent_` token, or an enrolled node with its `nk_` credential. */
export type UpgradeAuth =
  | { ok: true; kind: 'enroll'; token_hash: string }
  | { ok: true; kind: 'node'; node: NodeLinkRow }
  | { ok: false; status: number; code: ErrorCode; message: string; headers?: Record<string, string> };

/** The live node holding a credential hash (what the hub needs of it: nodes.db.ts NodeLinkRow), or null. */
export type CredentialLookup = (credential_hash: string) => Promise<NodeLinkRow | null>;

/** Upgrades whose credentials one statement looks up at most. */
const LOOKUP_BATCH_MAX = 500;

/**
 * {@link CredentialLookup} for a burst of upgrades (every node reconnecting after a restart) in a
 * few statements instead of one each ({@link batchCalls}).
 */
export function batchedCredentialLookup(sql: Sql): CredentialLookup {
  return batchCalls<string, NodeLinkRow | null>(async (hashes) => {
    const found = await findNodesByCredential(sql, hashes);
    return hashes.map((h) => found.get(h) ?? null);
  }, { max: LOOKUP_BATCH_MAX });
}

/** Time from an upgrade request to its answer (the database may be slow or away), ms: then 503. */
export const UPGRADE_DECISION_MS = 10_000;
/** Retry-After of a 503 or 409 answer to a node upgrade, s: about one agent backoff step. */
const RETRY_AFTER_S = '5';

/**
 * Authenticate a WebSocket upgrade from its `Authorization: Bearer …` header BEFORE the upgrade
 * completes (docs/architecture/hub.md). 401 for a missing or unknown bearer, a spent or expired
 * `ent_` token (NODE_ENROLLMENT_TOKEN_INVALID), a revoked credential, or a disabled/banned node
 * (NODE_ALREADY_BANNED); 409 NODE_STATE_CONFLICT (with Retry-After) for a used token whose node
 * is online and has not confirmed its credential yet. Database failures propagate (503).
 * @param nodeByCredential how an `nk_` credential's node is found ({@link batchedCredentialLookup})
 */
export async function authenticateUpgrade(sql: Sql, req: IncomingMessage, nodeByCredential: CredentialLookup): Promise<UpgradeAuth> {
  const bearer = /^Bearer\s+(\S{1,512})\s*$/i.exec(req.headers.authorization ?? '')?.[1];
  if (!bearer) return { ok: false, status: 401, code: 'AUTH_REQUIRED', message: 'Authorization: Bearer <ent_… | nk_…> is required' };
  if (isSecret('enrollment_token', bearer)) {
    const use = await enrollmentTokenUse(sql, secretHash(bearer));
    if (!use) return { ok: false, status: 401, code: 'NODE_ENROLLMENT_TOKEN_INVALID', message: 'enrollment token invalid, used or expired' };
    if (use.kind === 'busy') {
      return {
        ok: false, status: 409, code: 'NODE_STATE_CONFLICT', headers: { 'Retry-After': RETRY_AFTER_S },
        message: 'the node this token enrolled is connected and has not confirmed its credential yet; retry shortly',
      };
    }
    return { ok: true, kind: 'enroll', token_hash: secretHash(bearer) };
  }
  if (isSecret('node_credential', bearer)) {
    const node = await nodeByCredential(secretHash(bearer));
    if (!node) return { ok: false, status: 401, code: 'AUTH_INVALID_TOKEN', message: 'node credential invalid or revoked' };
    if (node.status === 'disabled' || node.status === 'banned') {
      return { ok: false, status: 401, code: 'NODE_ALREADY_BANNED', message: `node is ${node.status}` };
    }
    return { ok: true, kind: 'node', node };
  }
  return { ok: false, status: 401, code: 'AUTH_INVALID_TOKEN', message: 'bearer is neither an ent_ enrollment token nor an nk_ node credential' };
}

/** Why a request cannot become a node WebSocket (RFC 6455 4.2.1), or null when it can. */
export function websocketProblem(req: IncomingMessage): string | null {
  if (req.method !== 'GET') return 'the node socket is opened with GET';
  if (!/(^|,)\s*websocket\s*(,|$)/i.test(req.headers.upgrade ?? '')) return 'the node socket needs Upgrade: websocket';
  if (!/^[+/0-9A-Za-z]{22}==$/.test(req.headers['sec-websocket-key'] ?? '')) return 'Sec-WebSocket-Key must be 16 bytes in base64';
  const version = req.headers['sec-websocket-version'];
  if (version !== '13' && version !== '8') return 'Sec-WebSocket-Version must be 13';
  return null;
}

/** The path of a request target (origin or absolute form); the raw target when it does not parse. */
function pathOf(target: string | undefined): string {
  try {
    return new URL(target ?? '/', 'http://hub').pathname;
  } catch {
    return target ?? '/';
  }
}

/** What {@link createUpgradeHandler} needs from the hub. */
export interface UpgradeDeps {
  sql: Sql;
  log: Logger;
  config: Config;
  /** True once the hub is closing: node upgrades get 503. */
  closing(): boolean;
  /** Settles when the hub can take nodes (crash recovery ran); a rejection answers 503. */
  ready(): Promise<void>;
  /** Complete an authenticated node upgrade (the hub's WebSocket server takes the socket). */
  accept(req: IncomingMessage, socket: Duplex, head: Buffer, auth: Extract<UpgradeAuth, { ok: true }>, ip: string | null): void;
}

/**
 * The upgrade socket's error listener: closes it. A plain function, so the listener (which stays
 * on a held node's socket) keeps no request or closure context alive.
 */
function destroySocket(this: Duplex): void {
  this.destroy();
}

/**
 * The `upgrade` listener of the control plane's HTTP server. Every request carrying `Upgrade` is
 * answered and its socket closed unless it becomes a node WebSocket:
 * 1. counted per source IP in this instance's memory ({@link UpgradeCounter},
 *    `config.rate_limit_upgrades` per window): beyond it 429 RATE_LIMIT_EXCEEDED with Retry-After
 *    and X-RateLimit-*, before anything else;
 * 2. another path: served as the ordinary HTTP request it also is (`serveAsPlainRequest`,
 *    `Connection: close`); one declaring a body gets 400;
 * 3. the node path: 400 for a malformed WebSocket handshake, 503 while closing, 429 for an
 *    address over the invalid-credential limit, then {@link authenticateUpgrade} (a 401 counts
 *    as an invalid credential of that address), then `accept`.
 * Undecided after {@link UPGRADE_DECISION_MS} (database away) → 503 and closed.
 */
export function createUpgradeHandler(server: Server, deps: UpgradeDeps): (req: IncomingMessage, socket: Duplex, head: Buffer) => void {
  const { sql, config } = deps;
  const log = deps.log.child({ module: 'hub.upgrade' });
  const window_s = config.rate_limit_window_s;
  const failures = new FailedAuthLimiter(sql, config.rate_limit_invalid_credentials, window_s);
  const upgrades = new UpgradeCounter(window_s);
  const nodeByCredential = batchedCredentialLookup(sql);

  return function onUpgrade(req, socket, head) {
    socket.on('error', destroySocket);
    afterPreviousResponse(socket, () => decideUpgrade(req, socket, head), UPGRADE_DECISION_MS);
  };

  function decideUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const request_id = newId('request');
    const ip = pickClientIp(req.headers['x-forwarded-for'], req.socket.remoteAddress, config.trust_proxy);
    let decided = false;
    // Removed once decided: a listener left on the socket of a held node kept this request (its
    // headers, this closure's context) alive for as long as the node stayed connected.
    const onClose = (): void => void decide();
    const decide = (): boolean => {
      if (decided) return false;
      decided = true;
      clearTimeout(deadline);
      socket.off('close', onClose);
      return true;
    };
    const refuse = (status: number, code: ErrorCode, message: string, headers?: Record<string, string>): void => {
      if (decide()) rejectUpgrade(socket, status, code, message, request_id, headers);
    };
    const deadline = setTimeout(() => refuse(503, 'UNAVAILABLE', 'upgrade could not be decided in time', { 'Retry-After': RETRY_AFTER_S }), UPGRADE_DECISION_MS);
    deadline.unref();
    socket.once('close', onClose);

    (async () => {
      const limit = config.rate_limit_upgrades;
      const counted = upgrades.hit(ip ?? 'unknown');
      if (counted.count > limit) {
        return refuse(429, 'RATE_LIMIT_EXCEEDED', `at most ${limit} upgrade requests per ${window_s} s from one address`, rateLimitHeaders(limit, counted));
      }
      if (pathOf(req.url) !== NODE_WS_PATH) {
        if (declaresBody(req)) return refuse(400, 'REQUEST_BODY_INVALID', 'a request carrying Upgrade must not carry a body; send it without Upgrade');
        if (decide()) serveAsPlainRequest(server, req, socket);
        return;
      }
      const problem = websocketProblem(req);
      if (problem) return refuse(400, 'VALIDATION_FAILED', problem, { 'Sec-WebSocket-Version': '13' });
      if (deps.closing()) return refuse(503, 'UNAVAILABLE', 'server shutting down', { 'Retry-After': RETRY_AFTER_S });
      const blocked = failures.blocked(ip ?? 'unknown');
      if (blocked) return refuse(429, 'RATE_LIMIT_EXCEEDED', 'too many invalid credentials from this address', rateLimitHeaders(failures.limit, blocked));
      await deps.ready();
      const auth = await authenticateUpgrade(sql, req, nodeByCredential);
      if (!auth.ok) {
        if (auth.status === 401) {
          const fails = await failures.record(ip ?? 'unknown');
          if (fails.count > failures.limit) return refuse(429, 'RATE_LIMIT_EXCEEDED', 'too many invalid credentials from this address', rateLimitHeaders(failures.limit, fails));
        }
        return refuse(auth.status, auth.code, auth.message, auth.headers);
      }
      if (decide()) deps.accept(req, socket, head, auth, ip);
    })().catch((err: unknown) => {
      log.error({ err }, 'node upgrade failed');
      refuse(503, 'UNAVAILABLE', 'node hub unavailable', { 'Retry-After': RETRY_AFTER_S });
    });
  }
}
