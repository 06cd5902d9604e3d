import t from 'tap';
import type { ProbeTaskResult } from '@vantage/shared-protocol';
import { overallScore, scoreSection } from './score.js';

/** A finished group with `nodes` node results (success flag and output fields) and the summary the API computes. */
function group(probe_type: ProbeTaskResult['probe_type'], nodes: Array<Record<string, unknown>>, extra: Partial<ProbeTaskResult> = {}, avg: number | null = 10): ProbeTaskResult {
  const ok = nodes.filter((n) => n.success).length;
  return {
    task_id: 'pt_x', task_ids: ['pt_x'], probe_type, target: 'x', status: ok ? 'completed' : 'failed', created_at: '', completed_at: '', updated_at: '',
    node_results: nodes as never, summary: { avg_response_ms: avg, p95_response_ms: avg, success_count: ok, fail_count: nodes.length - ok }, ...extra,
  };
}

t.test('the rubric on failing and degraded groups', async (t) => {
  const cases: Array<[string, Parameters<typeof scoreSection>[0], ProbeTaskResult, number, RegExp | null]> = [
    ['http half failed and slow', 'http', group('http', [{ success: true }, { success: false }], {}, 1500), 30, /1 of 2 nodes failed/],
    ['http very slow', 'http', group('http', [{ success: true }], {}, 3500), 60, /slow/],
    ['ping 25 % loss, far', 'ping', group('ping', [{ success: true, packet_loss: 25 }, { success: true, packet_loss: 25 }], {}, 200), 65, /25\.0 % packet loss/],
    ['ping no answer', 'ping', group('ping', [{ success: false }], {}, null), 0, /100\.0 % packet loss/],
    ['dns polluted', 'dns', group('dns', [{ success: true }, { success: true }], { pollution_detected: true }), 70, /differently/],
    ['traceroute 1 of 2 reached', 'traceroute', group('traceroute', [{ success: true, destination_reached: true }, { success: false, destination_reached: false }]), 50, /not reached from 1 of 2/],
    ['ssl expired', 'ssl', group('http', [{ success: true, certificate: { days_left: -3 } }]), 0, /expired 3 days ago/],
    ['ssl 10 days left', 'ssl', group('http', [{ success: true, certificate: { days_left: 10 } }]), 50, /expires in 10 days/],
    ['ssl no TLS', 'ssl', group('http', [{ success: false, certificate: null }]), 0, /no TLS answer/],
    ['headers all four reasons', 'security_headers', group('headers', [{ success: true }], { analysis: { insecure: true, reasons: ['no_https_redirect', 'no_hsts', 'no_compression', 'no_cdn'] } }), 0, /no_hsts/],
  ];
  for (const [name, scope, g, score, finding] of cases) {
    const s = scoreSection(scope, g);
    t.equal(s.score, score, `${name}: score`);
    if (finding) t.match(s.findings.join('; '), finding, `${name}: finding`);
  }
  t.same(scoreSection('http', { ...group('http', []), status: 'running' }), { probe_type: 'http', task_ids: ['pt_x'], status: 'running', score: null, findings: [] });
});

t.test('overall: weighted over the scored sections only', async (t) => {
  const s = (score: number | null) => ({ probe_type: 'http', status: 'completed' as const, score, findings: [], task_ids: [] });
  t.equal(overallScore({ http: s(100), ssl: s(0) }), Math.round((25 * 100) / 45));
  t.equal(overallScore({ http: s(80), dns: s(null) }), 80, 'an unscored section weighs nothing');
  t.equal(overallScore({}), null);
});
