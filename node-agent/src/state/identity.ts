import { Secret } from '../secret.js';
import type { StateDb } from './db.js';
import { getMeta, setMeta } from './meta.js';

/** Who this node is, once enrolled (docs/architecture/node-agent.md, identity). */
export interface NodeIdentity {
  node_id: string;
  credential: Secret;
  control_plane_url: string;
  enrolled_at: string;
}

/** The stored identity, or null before enrollment. */
export function readIdentity(db: StateDb): NodeIdentity | null {
  const node_id = getMeta(db, 'node_id');
  const credential = getMeta(db, 'credential');
  if (!node_id || !credential) return null;
  return {
    node_id,
    credential: new Secret(credential),
    control_plane_url: getMeta(db, 'control_plane_url') ?? '',
    enrolled_at: getMeta(db, 'enrolled_at') ?? '',
  };
}

/**
 * Store the identity from an enrollment `welcome` in one transaction (before the
 * agent does anything else, so a crash right after enrollment does not lose the credential).
 */
export function saveIdentity(db: StateDb, id: { node_id: string; credential: Secret; control_plane_url: string }, now: Date = new Date()): NodeIdentity {
  const enrolled_at = now.toISOString();
  db.transaction(() => {
    setMeta(db, 'node_id', id.node_id);
    setMeta(db, 'credential', id.credential.reveal());
    setMeta(db, 'control_plane_url', id.control_plane_url);
    setMeta(db, 'enrolled_at', enrolled_at);
  })();
  return { ...id, enrolled_at };
}

/** Record a successful welcome (shown by `node-agent status`). */
export function markConnected(db: StateDb, now: Date = new Date()): void {
  setMeta(db, 'last_connected_at', now.toISOString());
}
