/**
 * Simulated probe nodes for test/bench/hub-bench.ts, run as a child process (fork) so their CPU
 * and memory are not counted against the control plane. Each is a light ws client speaking the
 * real node protocol: `enroll` with its `ent_` token and `enroll.confirm`, then it answers heartbeats, acks
 * `assignments.full`/`assignments.delta` with the version it holds (as node-agent does: an unacked set is
 * sent again in full), and answers every `task.run` at once with `task.ack` and one tcp result in a
 * `result.batch` (no probe traffic is sent). Node i connects to `bases[i % bases.length]` (one URL per
 * control-plane instance).
 *
 * The simulator shares the machine's cores with the control plane, so it is kept cheap: frames are
 * sent with an all-zero mask (ws then skips masking and the random mask per frame), incoming text is
 * not UTF-8 validated, and a heartbeat is recognised by its first bytes and answered without JSON.
 *
 * IPC: receives `{ bases, tokens }`, replies `{ ready: node_ids }` once every node's enrollment is confirmed,
 * closes every socket and exits on `'stop'`.
 */
import { createRequire } from 'node:module';
import { enrollProof, newId, NODE_WS_PATH, PROTOCOL_VERSION } from '@vantage/shared-protocol';

// ws is a dependency of the control plane (its types are not visible from test/).
interface SimSocket { send(data: string): void; close(): void; on(event: string, fn: (...args: any[]) => void): void }
const WebSocket = createRequire(new URL('../../../control-plane/package.json', import.meta.url))('ws') as new (url: string, opts: object) => SimSocket;

// Never outlive the benchmark: its IPC channel closes when it exits, however it ends.
process.once('disconnect', () => process.exit(0));
const { bases, tokens } = await new Promise<{ bases: string[]; tokens: string[] }>((resolve) => process.once('message', resolve as never));
const sockets: SimSocket[] = [];
let batch = 0;
// What the control plane sends as `{"type":"heartbeat","sent_at":…}` (hub/liveness.ts).
const HEARTBEAT = Buffer.from('{"type":"heartbeat",');
const isHeartbeat = (data: Buffer) => data.length < 64 && data.subarray(0, HEARTBEAT.length).equals(HEARTBEAT);
// An all-zero mask: frames still carry the mask a server requires, but RFC 6455 (5.3) wants it
// unpredictable (against proxy cache poisoning on real networks); a shortcut for a loopback bench
// only, which lets ws skip the XOR and the random mask.
const WS_OPTS = { generateMask: () => {}, skipUTF8Validation: true };

function connectOne(token: string, i: number): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const base = bases[i % bases.length]!;
    const ws = new WebSocket(base.replace(/^http/, 'ws') + NODE_WS_PATH, { ...WS_OPTS, headers: { authorization: `Bearer ${token}` } });
    let assignments_version: number | null = null;
    sockets.push(ws);
    ws.on('error', reject);
    ws.on('close', (code: number, reason: Buffer) => reject(new Error(`node ${i} closed: ${code} ${reason.toString()}`)));
    ws.on('open', () => ws.send(JSON.stringify({ type: 'enroll', protocol_version: PROTOCOL_VERSION, agent_version: 'bench', hostname: `sim-${i}`, capabilities: ['tcp'] })));
    ws.on('message', (data: Buffer) => {
      if (isHeartbeat(data)) {
        ws.send(`{"type":"heartbeat","sent_at":${Date.now()}}`);
        return;
      }
      const m = JSON.parse(data.toString());
      // The enrollment is confirmed on its own connection (enroll.confirm with a proof of the
      // credential); the node counts as ready once the control plane answers enroll.confirmed.
      if (m.type === 'welcome') ws.send(JSON.stringify({ type: 'enroll.confirm', node_id: m.node_id, proof: enrollProof(m.credential, m.node_id) }));
      else if (m.type === 'enroll.confirmed') resolve(m.node_id);
      else if (m.type === 'heartbeat') ws.send(JSON.stringify({ type: 'heartbeat', sent_at: Date.now() }));
      else if (m.type === 'assignments.full' || m.type === 'assignments.delta') {
        // node-agent's rule: a full set is taken; a delta applies only from the version held.
        if (m.type === 'assignments.full' || m.from_version === assignments_version) assignments_version = m.version;
        if (assignments_version !== null) ws.send(JSON.stringify({ type: 'assignments.ack', version: assignments_version }));
      }
      else if (m.type === 'task.run') {
        const now = new Date().toISOString();
        ws.send(JSON.stringify({ type: 'task.ack', task_id: m.task_id, accepted: true }));
        ws.send(JSON.stringify({
          type: 'result.batch', batch_id: batch++, results: [{
            result_id: newId('result'), task_id: m.task_id, monitor_id: null, type: 'tcp', started_at: now, finished_at: now,
            success: true, error: null, error_class: null, output: { resolved_address: '198.18.0.10', port: 443, connect_ms: 0.3, state: 'open' },
          }],
        }));
      }
    });
  });
}

const ids: string[] = [];
for (let i = 0; i < tokens.length; i += 100) ids.push(...await Promise.all(tokens.slice(i, i + 100).map((tok, j) => connectOne(tok, i + j))));
process.send!({ ready: ids });
process.once('message', () => {
  for (const ws of sockets) ws.close();
  setTimeout(() => process.exit(0), 200);
});
