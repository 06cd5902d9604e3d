import { Fragment } from 'preact';
import type { NodeDetail } from '@vantage/shared-protocol';
import { useApi } from '../../api/use-api.js';
import { Link } from '../../components/Link.js';
import { ErrorState, Loading } from '../../components/states.js';
import { formatTime, t } from '../../i18n/i18n.js';
import { NodeOwnerActions } from './NodeOwnerActions.js';

/**
 * One node (GET /v1/nodes/{id}, docs/api/nodes.md): where it is, its network, what it runs, its
 * agent and clock; for its owner, the owner's settings and actions ({@link NodeOwnerActions}).
 */
export default function NodeDetailPage({ params }: { params: Record<string, string> }) {
  const node = useApi<NodeDetail>(`/v1/nodes/${encodeURIComponent(params.id!)}`);
  if (node.error) return <ErrorState error={node.error} retry={node.reload} />;
  if (!node.data) return <Loading />;
  const n = node.data;
  const rows: Array<[string, string]> = [
    [t('nodes.status'), t(`nodes.status.${n.status}`)],
    [t('probes.location'), [n.city, n.region, n.country].filter(Boolean).join(', ')],
    [t('nodes.network'), [n.asn === null ? null : `AS${n.asn}`, n.provider ?? n.isp].filter(Boolean).join(' ')],
    [t('nodes.capabilities'), n.capabilities.join(', ')],
    [t('node.tags'), n.tags.join(', ')],
    [t('node.agent_version'), n.agent_version ?? ''],
    [t('nodes.last_seen'), formatTime(n.last_seen_at)],
    [t('keys.created'), formatTime(n.created_at)],
  ];
  return (
    <section>
      <p><Link href="/nodes">{t('node.back')}</Link></p>
      <h1>{n.name}</h1>
      <dl class="facts">{rows.map(([k, v]) => <Fragment key={k}><dt>{k}</dt><dd>{v}</dd></Fragment>)}</dl>
      {n.is_owner ? <NodeOwnerActions node={n} changed={node.reload} /> : <p class="muted">{t('node.not_owner')}</p>}
    </section>
  );
}
