import { newId, type ResultEnvelope } from '@vantage/shared-protocol';

/** A valid tcp ResultEnvelope for outbox tests and the benchmark (owner: a new task id unless given). */
export function tcpResult(over: Partial<ResultEnvelope> = {}): ResultEnvelope {
  const now = new Date().toISOString();
  return {
    result_id: newId('result'), task_id: newId('probe_task'), monitor_id: null, type: 'tcp', started_at: now, finished_at: now,
    success: true, error: null, error_class: null,
    output: { resolved_address: '198.18.1.10', port: 443, connect_ms: 0.4, state: 'open' },
    ...over,
  } as ResultEnvelope;
}
