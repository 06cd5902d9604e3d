import { isSecret } from '@vantage/shared-protocol';
import type { Sql } from '../db/sql.js';
import { ApiError } from '../errors.js';
import { findNodeByCredential, type NodeRow } from '../nodes/nodes.db.js';
import { secretHash } from '../nodes/secrets.js';

/**
 * The node an `Authorization: Bearer nk_…` header belongs to (the credential its enrollment
 * gave it; only its hash is stored). Used by the node's HTTP routes (artifact uploads), which the
 * user-credential middleware leaves alone.
 * @throws ApiError 401 AUTH_REQUIRED (no header), AUTH_INVALID_TOKEN (not a node credential, or
 *   revoked or removed); 403 FORBIDDEN for a disabled or banned node
 */
export async function authenticateNode(sql: Sql, header: string | undefined): Promise<NodeRow> {
  if (header === undefined) throw new ApiError('AUTH_REQUIRED', 'send the node credential as Authorization: Bearer nk_…');
  const m = /^Bearer +(\S{1,200})\s*$/i.exec(header);
  if (!m || !isSecret('node_credential', m[1])) throw new ApiError('AUTH_INVALID_TOKEN', 'Authorization must be "Bearer nk_…" (a node credential)');
  const node = await findNodeByCredential(sql, secretHash(m[1]!));
  if (!node) throw new ApiError('AUTH_INVALID_TOKEN', 'unknown or revoked node credential');
  if (node.status === 'disabled' || node.status === 'banned') throw new ApiError('FORBIDDEN', `node ${node.id} is ${node.status}`);
  return node;
}
