import { useEffect, useState } from 'preact/hooks';
import type { NodeResult, ProbeTaskResult } from '@vantage/shared-protocol';
import { useApi } from '../../api/use-api.js';
import { Link } from '../../components/Link.js';
import { ErrorState, Loading } from '../../components/states.js';
import { t } from '../../i18n/i18n.js';
import { ProbeResultsTable } from './ProbeResultsTable.js';
import { WorldMap } from './WorldMap.js';

/**
 * One probe (GET /v1/probe/tasks/{id}) with its node results arriving live from the event stream
 * (GET /v1/probe/tasks/{id}/stream: `node_result` per node, then `done` with the whole result).
 * The URL is the shareable link; a finished probe is simply read. A world map shows the countries
 * of the nodes used, coloured by how their results went.
 */
export default function ProbeResultPage({ params }: { params: Record<string, string> }) {
  const path = `/v1/probe/tasks/${encodeURIComponent(params.id!)}`;
  const initial = useApi<ProbeTaskResult>(path);
  const [task, setTask] = useState<ProbeTaskResult | null>(null);
  const [live, setLive] = useState<Map<string, NodeResult>>(new Map());
  useEffect(() => { if (initial.data) setTask(initial.data); }, [initial.data]);
  const running = task !== null && task.completed_at === null;
  useEffect(() => {
    if (!running) return;
    const stream = new EventSource(`${path}/stream`);
    stream.addEventListener('node_result', (e) => {
      const r = JSON.parse((e as MessageEvent<string>).data) as NodeResult;
      setLive((m) => new Map(m).set(r.node_id, r));
    });
    stream.addEventListener('done', (e) => {
      setTask(JSON.parse((e as MessageEvent<string>).data) as ProbeTaskResult);
      stream.close();
    });
    return () => stream.close();
  }, [running, path]);
  if (initial.error) return <ErrorState error={initial.error} retry={initial.reload} />;
  if (!task) return <Loading />;
  const results = new Map(task.node_results.map((r) => [r.node_id, r]));
  for (const [id, r] of live) if (!results.has(id) || running) results.set(id, r);
  const rows = [...results.values()];
  return (
    <section>
      <div class="title-row">
        <h1>{t('probes.result_title', { type: task.probe_type, target: task.target })}</h1>
        <Link href="/probes" class="button">{t('probes.another')}</Link>
      </div>
      <p role="status" aria-live="polite">{running ? t('probes.running', { n: rows.length }) : t('probes.finished', { ok: task.summary.success_count, failed: task.summary.fail_count })}
        {!running && task.summary.avg_response_ms !== null && ` · ${t('probes.avg', { ms: task.summary.avg_response_ms.toFixed(1) })}`}</p>
      <WorldMap rows={rows} />
      <ProbeResultsTable type={task.probe_type} rows={rows} />
    </section>
  );
}
