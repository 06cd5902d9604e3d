import { newId, newSecret, type ProbeType, type ResultEnvelope, type TaskCancelMessage, type TaskRunMessage } from '@vantage/shared-protocol';
import { changeNodeStatus, insertNode, updateNode, type NewNode } from '../nodes/nodes.db.js';
import type { Sql } from '../db/sql.js';
import type { NodeHub } from '../contracts.js';

/**
 * The boundary the probe-task side does not own, for its own tests: a NodeHub that records every
 * `task.run` it is given and answers 'offline' for node ids in `offline` (or throws for those in
 * `failing`). Tests then play the node by calling the real ResultSink.
 */
export function recordingHub(): NodeHub & { sent: Array<{ node_id: string; message: TaskRunMessage }>; offline: Set<string>; failing: Set<string>; waitSent(n: number): Promise<void> } {
  const sent: Array<{ node_id: string; message: TaskRunMessage }> = [];
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  return {
    sent, offline: new Set(), failing: new Set(),
    async sendTask(node_id, message) {
      if (this.failing.has(node_id)) throw new Error('relay down');
      if (this.offline.has(node_id)) return 'offline';
      sent.push({ node_id, message });
      for (const w of waiters.splice(0)) if (sent.length >= w.n) w.resolve(); else waiters.push(w);
      return 'sent';
    },
    async cancelTask(_node_id: string, _message: TaskCancelMessage) { return 'sent'; },
    localNodeIds: () => [],
    async close() {},
    waitSent(n) {
      return sent.length >= n ? Promise.resolve() : new Promise((resolve) => waiters.push({ n, resolve }));
    },
  };
}

/**
 * Insert a node row through the hub's own query (nodes/nodes.db.ts insertNode: online; shared with
 * every account unless `shared` is false), then apply `status`, `tags` and `allow_private` when
 * given. @returns the node id
 */
export async function addNode(sql: Sql, f: Partial<NewNode> & { status?: 'online' | 'offline' | 'disabled' | 'banned'; tags?: string[]; allow_private?: boolean } = {}): Promise<string> {
  const id = newId('node');
  await insertNode(sql, {
    id, name: f.name ?? `probe-${id.slice(-6)}`, owner_user_id: f.owner_user_id ?? null, instance_id: 'test-instance',
    credential_hash: newSecret('node_credential'), country: f.country ?? null, region: f.region ?? null, city: f.city ?? null,
    city_id: null, asn: f.asn ?? null, isp: f.isp ?? null, provider: f.provider ?? null, declared_operator: null,
    ip_address: null, agent_version: '0.1.0', capabilities: f.capabilities ?? [], shared: f.shared ?? true,
    platform_owner_emails: f.platform_owner_emails,
  });
  if (f.tags || f.allow_private !== undefined) await updateNode(sql, id, { tags: f.tags, allow_private: f.allow_private });
  if (f.status && f.status !== 'online') await changeNodeStatus(sql, id, ['online'], f.status);
  return id;
}

const OUTPUTS: Record<ProbeType, (ms: number) => unknown> = {
  http: (ms) => ({
    final_url: 'http://198.18.1.10/', status_code: 200, response_ms: ms, response_size: 10, headers: {},
    timing: { dns_ms: 0, tcp_ms: 1, tls_ms: 0, ttfb_ms: ms - 1, download_ms: 0 }, tls: null, certificate: null,
    redirects: [], resolved_address: '198.18.1.10', body_truncated: false,
  }),
  ping: (ms) => ({
    resolved_address: '198.18.1.10', packets_sent: 1, packets_received: 1, packet_loss: 0,
    rtt_min_ms: ms, rtt_avg_ms: ms, rtt_max_ms: ms, rtt_stddev_ms: 0, packets: [{ seq: 0, rtt_ms: ms, ttl: 64 }],
  }),
  dns: (ms) => ({ server: '198.18.1.53:53', protocol: 'udp', rcode: 'NOERROR', query_ms: ms, truncated: false, answers: [{ name: 'example.test', type: 'A', ttl: 60, value: '198.18.1.10' }], authorities: [] }),
  tcp: (ms) => ({ resolved_address: '198.18.1.10', port: 80, connect_ms: ms, state: 'open' }),
  traceroute: (ms) => ({ resolved_address: '198.18.1.10', protocol: 'icmp', destination_reached: true, hops: [{ hop: 1, address: '198.18.1.10', rtts_ms: [ms] }] }),
  mtr: (ms) => ({
    resolved_address: '198.18.1.10', protocol: 'icmp', destination_reached: true, rounds: 1,
    hops: [{ hop: 1, address: '198.18.1.10', hostname: null, asn: null, loss_pct: 0, sent: 1, received: 1, last_ms: ms, avg_ms: ms, best_ms: ms, worst_ms: ms, stdev_ms: 0 }],
  }),
  smtp: (ms) => ({
    resolved_address: '198.18.1.25', port: 25, tls_mode: 'none', banner: { code: 220, text: 'mx ESMTP' }, ehlo_extensions: ['SIZE 1000'],
    starttls_offered: false, starttls_negotiated: false, tls: null, certificate: null, mail_from: null, rcpt_to: null,
    timing: { connect_ms: 1, banner_ms: 1, tls_ms: null, ehlo_ms: 1, mail_ms: null, total_ms: ms },
  }),
  ntp: (ms) => ({
    resolved_address: '198.18.1.123', port: 123, samples_sent: 1, samples_received: 1, offset_ms: 0.5, delay_ms: ms, stratum: 2,
    reference_id: '198.18.0.1', leap: 'none', root_delay_ms: 1, root_dispersion_ms: 1, version: 4, samples: [{ offset_ms: 0.5, delay_ms: ms }],
  }),
  headers: (ms) => ({
    url: 'http://198.18.1.10/', final_url: 'https://198.18.1.10/', status_code: 200, response_ms: ms, resolved_address: '198.18.1.10',
    hops: [{ url: 'http://198.18.1.10/', status_code: 301, location: 'https://198.18.1.10/' }],
    headers: { 'strict-transport-security': 'max-age=300', server: 'nginx' }, security: { hsts: 'max-age=300', server: 'nginx' },
    analysis: { insecure: false, reasons: ['no_compression', 'no_cdn'] },
  }),
  ssl: (ms) => ({
    resolved_address: '198.18.1.10', port: 443, audit: {
      domain: 'example.test', port: 443, issuer: 'CN=Test CA', subject: 'CN=example.test', not_before: '2026-01-01T00:00:00.000Z', not_after: '2027-01-01T00:00:00.000Z',
      san_domains: ['example.test'], protocol: 'TLSv1.3', cipher_suite: 'TLS_AES_128_GCM_SHA256', days_until_expiry: 100, valid: true, validation_error: null,
      grade: 'A', ocsp_status: 'none', sct_count: 0, hsts_max_age_s: null, warnings: ['no OCSP response stapled'], chain: [],
      tls_versions: [{ version: 'TLSv1', supported: false }, { version: 'TLSv1.1', supported: false }, { version: 'TLSv1.2', supported: true }, { version: 'TLSv1.3', supported: true }],
      audit_ms: ms,
    },
  }),
  speedtest: (ms) => ({
    resolved_address: '198.18.1.10', status_code: 200, download_mbps: 800, bytes: 10_000_000, duration_ms: 100, ttfb_ms: ms, capped: null,
    upload_mbps: null, upload_bytes: 0, upload_duration_ms: null,
  }),
};

/**
 * A node's result for `task_id`, as it would arrive in `result.batch` (a fresh `r_` id):
 * success with the type's usual output and headline time `ms`, unless `over` says otherwise.
 */
export function nodeResult(task_id: string, type: ProbeType, ms = 10, over: Partial<ResultEnvelope> = {}): ResultEnvelope {
  const now = new Date().toISOString();
  return {
    result_id: newId('result'), task_id, monitor_id: null, type, started_at: now, finished_at: now,
    success: true, error: null, error_class: null, output: OUTPUTS[type](ms), ...over,
  } as ResultEnvelope;
}
