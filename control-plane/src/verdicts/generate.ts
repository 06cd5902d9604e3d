import type { AppDeps } from '../deps.js';
import type { Logger } from '../log.js';
import { ATTESTATION_RETRIES_MAX, signReport } from '../attestation/sign.js';
import { recordStep } from '../attestation/records.db.js';
import { gatherEvidence } from './evidence.js';
import { gatherProbeEvidence } from './probe-evidence.js';
import { queueCompletionNotices } from './notify.js';
import { renderVerdictPdf } from './verdict-pdf.js';
import { claimDueOrders, completeOrder, failOrderAttempt, type VerdictOrderRow } from './verdicts.db.js';

/** How long a claimed order is held before another instance may take it (ms). */
export const GENERATION_LEASE_MS = 5 * 60_000;
/** Wait before retry n (1-3) of a failed generation: 30 s, 60 s, 90 s. */
const RETRY_DELAY_MS = 30_000;

type GenerateDeps = Pick<AppDeps, 'sql' | 'config' | 'mail'>;

/** Generate, sign, store and announce one claimed order; a failure is retried up to 3 times, then the order fails (and that is announced). */
async function generateOne(deps: GenerateDeps, order: VerdictOrderRow, now: () => Date): Promise<void> {
  const retry_count = Math.min(order.attempts - 1, ATTESTATION_RETRIES_MAX);
  try {
    const monitors = await deps.sql<Array<{ id: string; name: string; type: string; target: string }>>`
      SELECT id, name, type, target FROM monitors WHERE id = ANY(${order.monitor_ids}::text[]) ORDER BY created_at, id`;
    const evidence = await gatherEvidence(deps.sql, deps.config, monitors, order.time_window_start, order.time_window_end, now());
    const probes = await gatherProbeEvidence(deps.sql, order.user_id, order.target, order.time_window_start, order.time_window_end);
    const pdf = await renderVerdictPdf(deps.config, order, evidence, probes, now());
    const signed = await signReport(deps, order.id, pdf, retry_count, now());
    await deps.sql.begin(async (tx) => {
      if (!(await completeOrder(tx, order.id, signed))) return;
      await recordStep(tx, { report_id: order.id, action: 's3_archived', status: 'success', retry_count, key_id: signed.key_id, external_id: `verdict_orders/${order.id}/pdf`, idempotency_key: `${order.id}:s3_archived:${retry_count}`, error_detail: null });
      await queueCompletionNotices(deps, tx, order, { status: 'completed', content_hash: signed.content_hash, error: null });
    });
  } catch (err) {
    const error = String((err as Error).message ?? err);
    const final = order.attempts > ATTESTATION_RETRIES_MAX;
    await deps.sql.begin(async (tx) => {
      await failOrderAttempt(tx, order.id, error, final ? null : new Date(now().getTime() + RETRY_DELAY_MS * order.attempts));
      if (final) await queueCompletionNotices(deps, tx, order, { status: 'failed', content_hash: null, error });
    });
    throw err;
  }
}

/**
 * One pass of the report generation job: claim due orders (any number of instances: SKIP
 * LOCKED with a lease) and generate each. @returns how many were claimed and how many completed
 */
export async function runVerdictGeneration(deps: GenerateDeps & { log: Logger }, now: () => Date = () => new Date(), batch = 4): Promise<{ claimed: number; completed: number }> {
  const claimed = await claimDueOrders(deps.sql, batch, GENERATION_LEASE_MS);
  let completed = 0;
  for (const order of claimed) {
    try {
      await generateOne(deps, order, now);
      completed++;
    } catch (err) {
      deps.log.warn({ err, order_id: order.id, attempts: order.attempts }, 'verdict report generation failed');
    }
  }
  return { claimed: claimed.length, completed };
}

/** The generation job every `every_ms` (default 5 s) until stopped; a failed pass is logged and the next runs on time. */
export function startVerdictJobs(deps: GenerateDeps & { log: Logger }, every_ms = 5000): { stop(): Promise<void> } {
  const log = deps.log.child({ module: 'verdicts.jobs' });
  let running: Promise<void> | null = null;
  const timer = setInterval(() => {
    if (running) return;
    running = runVerdictGeneration({ ...deps, log }).then((r) => { if (r.claimed > 0) log.info(r, 'verdict reports generated'); })
      .catch((err) => log.warn({ err }, 'verdict generation pass failed'))
      .finally(() => { running = null; });
  }, every_ms);
  timer.unref();
  return { async stop() { clearInterval(timer); await running; } };
}
