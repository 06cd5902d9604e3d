import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { isSecret, type ErrorCode } from '@vantage/shared-protocol';
import { findUsableEnrollmentToken } from '../db/enrollment-tokens.js';
import { findNodeByCredential, type NodeRow } from '../db/nodes.js';
import type { Sql } from '../db/sql.js';
import { secretHash } from './secrets.js';

/** Who is upgrading: a node enrolling with an `ent_` token, or an enrolled node with its `nk_` credential. */
export type UpgradeAuth =
  | { ok: true; kind: 'enroll'; token_hash: string }
  | { ok: true; kind: 'node'; node: NodeRow }
  | { ok: false; status: number; code: ErrorCode; message: string };

/**
 * Authenticate a WebSocket upgrade from its `Authorization: Bearer …` header BEFORE the upgrade
 * completes (shared-protocol docs: node protocol). 401 for a missing or unknown bearer, a used or
 * expired `ent_` token (NODE_ENROLLMENT_TOKEN_INVALID), a revoked credential, or a disabled/banned
 * node (NODE_ALREADY_BANNED). Database failures propagate (the caller answers 503).
 */
export async function authenticateUpgrade(sql: Sql, req: IncomingMessage): Promise<UpgradeAuth> {
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1];
  if (!bearer) return { ok: false, status: 401, code: 'AUTH_REQUIRED', message: 'Authorization: Bearer <ent_… | nk_…> is required' };
  if (isSecret('enrollment_token', bearer)) {
    const token = await findUsableEnrollmentToken(sql, secretHash(bearer));
    if (!token) return { ok: false, status: 401, code: 'NODE_ENROLLMENT_TOKEN_INVALID', message: 'enrollment token invalid, used or expired' };
    return { ok: true, kind: 'enroll', token_hash: secretHash(bearer) };
  }
  if (isSecret('node_credential', bearer)) {
    const node = await findNodeByCredential(sql, secretHash(bearer));
    if (!node) return { ok: false, status: 401, code: 'AUTH_INVALID_TOKEN', message: 'node credential invalid or revoked' };
    if (node.status === 'disabled' || node.status === 'banned') {
      return { ok: false, status: 401, code: 'NODE_ALREADY_BANNED', message: `node is ${node.status}` };
    }
    return { ok: true, kind: 'node', node };
  }
  return { ok: false, status: 401, code: 'AUTH_INVALID_TOKEN', message: 'bearer is neither an ent_ enrollment token nor an nk_ node credential' };
}

/**
 * Refuse an upgrade on the raw socket with an HTTP response carrying the spec 7 error envelope
 * (the request never becomes a WebSocket), then destroy the socket.
 */
export function rejectUpgrade(socket: Duplex, status: number, code: string, message: string, request_id: string): void {
  const body = JSON.stringify({ error: { code, message, request_id }, request_id });
  const reason = { 401: 'Unauthorized', 404: 'Not Found', 503: 'Service Unavailable' }[status] ?? 'Error';
  const head = [
    `HTTP/1.1 ${status} ${reason}`,
    'Connection: close',
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    ...(status === 401 ? ['WWW-Authenticate: Bearer'] : []),
  ].join('\r\n');
  if (!socket.writable) return void socket.destroy();
  socket.once('finish', () => socket.destroy());
  socket.end(`${head}\r\n\r\n${body}`);
}
