import {
  MIN_PROTOCOL_VERSION, PROTOCOL_VERSION, isEnrollProof, newId, newSecret, parseNodeMessage,
  type EnrollConfirmMessage, type EnrollMessage, type HelloMessage,
} from '@vantage/shared-protocol';
import { consumeEnrollmentToken, enrollmentTokenUse, ENROLLMENT_RETRY_WINDOW_S, setConsumedNode } from '../nodes/enrollment-tokens.db.js';
import { confirmNodeCredential, insertNode, markNodeOffline, reissueUnconfirmedCredential } from '../nodes/nodes.db.js';
import { cityById } from '../nodes/geo/cities.js';
import type { GeoFacts } from '../nodes/geo/geoip.js';
import { providerOf } from '../nodes/geo/provider.js';
import { closeWith, sendError, sendFrame, sendWelcome, type Conn, type HubCore } from './core.js';
import { secretHash } from '../nodes/secrets.js';

const NO_GEO: GeoFacts = { country: null, region: null, city: null, asn: null, isp: null };

function versionSupported(v: number): boolean {
  return v >= MIN_PROTOCOL_VERSION && v <= PROTOCOL_VERSION;
}

/** `protocol_version` of a frame that failed validation, when it has one (a newer node's hello). */
function rawVersion(raw: Buffer): number | null {
  try {
    const v = (JSON.parse(raw.toString('utf8')) as { protocol_version?: unknown }).protocol_version;
    return typeof v === 'number' ? v : null;
  } catch {
    return null;
  }
}

/**
 * Handle the first frame of a connection (shared-protocol node protocol): `enroll` on an `ent_`
 * connection, `hello` on an `nk_` one, answered by `welcome`. An unsupported protocol version
 * closes with 4005, anything else unexpected with 4000 protocol_error after an `error` frame.
 */
export async function handshake(core: HubCore, conn: Conn, raw: Buffer): Promise<void> {
  const parsed = parseNodeMessage(raw);
  if (!parsed.ok) {
    const v = rawVersion(raw);
    if (v !== null && !versionSupported(v)) return closeWith(conn, 'unsupported_version');
    sendError(conn, 'VALIDATION_FAILED', `first message: ${parsed.error}`);
    return closeWith(conn, 'protocol_error');
  }
  const msg = parsed.value;
  if ((msg.type === 'enroll' || msg.type === 'hello') && !versionSupported(msg.protocol_version)) {
    return closeWith(conn, 'unsupported_version');
  }
  const expected = conn.auth.kind === 'enroll' ? 'enroll' : 'hello';
  if (msg.type !== expected) {
    sendError(conn, 'VALIDATION_FAILED', `first message must be ${expected}, got ${msg.type}`);
    return closeWith(conn, 'protocol_error');
  }
  if (msg.type === 'enroll') return enroll(core, conn, msg);
  return hello(core, conn, msg as HelloMessage);
}

/**
 * Enrollment (docs/architecture/node-agent.md, identity): consume the token and create the node in one transaction,
 * locate it from the token's declared fields, else from GeoIP of the socket address; the provider
 * is the declared operator or the ASN organisation. Only a hash of the new `nk_` credential is
 * stored; the credential itself is sent once in `welcome`, and must be confirmed on this
 * connection (`enroll.confirm`) within `hello_timeout_ms`, else the link is closed 4007.
 */
async function enroll(core: HubCore, conn: Conn, msg: EnrollMessage): Promise<void> {
  if (conn.auth.kind !== 'enroll') return;
  const geo = conn.ip ? await core.geo.lookup(conn.ip) : NO_GEO;
  const credential = newSecret('node_credential');
  const node_id = newId('node');
  const token_hash = conn.auth.token_hash;
  const node = await core.sql.begin(async (tx) => {
    const token = await consumeEnrollmentToken(tx, token_hash);
    // A used token whose node never said hello: its welcome was lost, so re-issue the credential.
    if (!token) {
      return reissueUnconfirmedCredential(tx, { token_hash, credential_hash: secretHash(credential), window_s: ENROLLMENT_RETRY_WINDOW_S, instance_id: core.instance_id });
    }
    const city = token.city_id !== null ? cityById(token.city_id) : undefined;
    const declared = token.country_code !== null;
    const row = await insertNode(tx, {
      id: node_id,
      name: (msg.name ?? token.label ?? msg.hostname ?? `node-${node_id.slice(-6)}`).slice(0, 64),
      owner_user_id: token.user_id,
      team_id: token.team_id,
      instance_id: core.instance_id,
      credential_hash: secretHash(credential),
      country: declared ? token.country_code : geo.country,
      region: declared ? (token.declared_province ?? city?.province ?? null) : geo.region,
      city: declared ? (city?.name ?? null) : geo.city,
      city_id: city?.id ?? null,
      asn: geo.asn,
      isp: geo.isp,
      provider: providerOf(token.operator, geo.asn, geo.isp),
      declared_operator: token.operator,
      ip_address: conn.ip,
      agent_version: msg.agent_version,
      capabilities: msg.capabilities,
      platform_owner_emails: core.config.platform_node_owners,
      shared: token.shared,
    });
    await setConsumedNode(tx, token.id, node_id);
    return row;
  });
  if (!node) {
    // Spent, or (a race past the upgrade check) another connection of that node is still open.
    if ((await enrollmentTokenUse(core.sql, token_hash))?.kind !== 'busy') return closeWith(conn, 'enrollment_token_invalid');
    sendError(conn, 'NODE_STATE_CONFLICT', 'the node this token enrolled is connected and has not confirmed its credential yet; retry shortly');
    return closeWith(conn, 'protocol_error');
  }
  if (conn.ws.readyState !== conn.ws.OPEN) {
    core.log.warn({ node_id: node.id }, 'node enrolled but its socket closed before welcome; it may retry with the same token');
    return markNodeOffline(core.sql, node.id, core.instance_id);
  }
  core.register(conn, node.id);
  core.log.info({ node_id: node.id, country: node.country, asn: node.asn, retried: node.id !== node_id }, 'node enrolled');
  sendFrame(conn, welcome(core, node.id, node.name, msg.protocol_version, credential));
  // The token is spent only once the node proves, on this connection, that it holds the credential.
  unconfirmed.set(conn, { node_id: node.id, credential });
  conn.hello_timer = setTimeout(() => closeWith(conn, 'hello_timeout'), core.config.hello_timeout_ms);
  // Its (empty) assignment set, so that placement can reach it with deltas from now on.
  await core.assignments?.connected(node.id, (m) => sendFrame(conn, m));
}

/** Enrollment connections whose `welcome` carried a credential not yet confirmed (plaintext kept only until then). */
const unconfirmed = new WeakMap<Conn, { node_id: string; credential: string }>();

/**
 * `enroll.confirm` on the enrollment connection (docs/architecture/hub.md): the proof must be
 * `enrollProof` of the credential this connection's `welcome` carried. Then the node's credential
 * is confirmed, which spends the token for good, and `enroll.confirmed` answers. A wrong proof
 * closes the link (4000); a confirm on any other connection, or twice, gets a CONFLICT error frame.
 */
export async function confirmEnrollment(core: HubCore, conn: Conn, msg: EnrollConfirmMessage): Promise<void> {
  const pending = unconfirmed.get(conn);
  if (!pending) return sendError(conn, 'CONFLICT', 'enroll.confirm is valid once, after an enrollment welcome on the same connection');
  if (msg.node_id !== pending.node_id || !isEnrollProof(msg.proof, pending.credential, pending.node_id)) {
    sendError(conn, 'VALIDATION_FAILED', 'enroll.confirm: the proof does not match the credential sent in welcome');
    return closeWith(conn, 'protocol_error');
  }
  unconfirmed.delete(conn);
  if (conn.hello_timer) clearTimeout(conn.hello_timer);
  conn.hello_timer = null;
  if (!(await confirmNodeCredential(core.sql, pending.node_id, secretHash(pending.credential)))) return closeWith(conn, 'credential_invalid');
  core.log.info({ node_id: pending.node_id }, 'enrollment confirmed; token spent');
  sendFrame(conn, { type: 'enroll.confirmed', node_id: pending.node_id });
}

/** A returning node: its hello must name the node its credential belongs to. */
async function hello(core: HubCore, conn: Conn, msg: HelloMessage): Promise<void> {
  if (conn.auth.kind !== 'node') return;
  const node = conn.auth.node;
  if (msg.node_id !== node.id) return closeWith(conn, 'credential_invalid');
  // Tasks that missed the node (sent while it reconnected, or relayed to an instance that died),
  // read BEFORE this connection is registered: none of them can have been sent on it yet. Read
  // after, a task dispatched live on this connection during the handshake (its ack is handled
  // only after the handshake, so it still reads queued) would be sent a second time, and a node
  // that had already finished it would measure it twice.
  const missed = await core.results.pendingTasks(node.id);
  // Closed meanwhile: its close event found no node to mark offline, so it must not be held now.
  if (conn.ws.readyState !== conn.ws.OPEN) return;
  // Registered before the online mark is written, so a task routed to the node meanwhile reaches
  // this link; frames sent to it until `welcome` are held back (the agent would drop them).
  conn.before_welcome = [];
  core.register(conn, node.id);
  const row = await core.markOnline({
    id: node.id, instance_id: core.instance_id, ip_address: conn.ip, agent_version: msg.agent_version, capabilities: msg.capabilities,
  });
  if (!row) {
    core.unregister(conn);
    conn.before_welcome = null;
    return closeWith(conn, 'node_disabled');
  }
  core.log.info({ node_id: node.id, agent_version: msg.agent_version }, 'node connected');
  sendWelcome(conn, welcome(core, row.id, row.name, msg.protocol_version, null));
  // Tasks it had accepted and no longer holds were lost in a restart: fail them now, not at their deadline.
  if (msg.tasks_held && core.results.nodeReturned) await core.results.nodeReturned(node.id, msg.tasks_held);
  for (const task of missed) sendFrame(conn, task);
  // The whole monitor assignment set, on every connect (docs/architecture/hub.md "Assignments").
  await core.assignments?.connected(node.id, (m) => sendFrame(conn, m));
}

function welcome(core: HubCore, node_id: string, node_name: string, version: number, credential: string | null) {
  return {
    type: 'welcome' as const,
    protocol_version: version,
    node_id,
    node_name,
    heartbeat_interval_ms: core.config.heartbeat_interval_ms,
    server_time: new Date().toISOString(),
    credential,
  };
}
