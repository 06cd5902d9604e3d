import type { IncidentImpact, IncidentStatus } from '@vantage/shared-protocol';
import { t } from '../i18n/i18n.js';

/** An incident's status as a badge with its translated name (resolved green, monitoring amber, the others red). */
export function IncidentStatusBadge({ status }: { status: IncidentStatus }) {
  const tone = status === 'resolved' ? 'state-up' : status === 'monitoring' ? 'state-degraded' : 'state-down';
  return <span class={`badge ${tone}`}>{t(`inc.status.${status}`)}</span>;
}

/** An incident's impact as a badge with its translated name. */
export function ImpactBadge({ impact }: { impact: IncidentImpact }) {
  const tone = impact === 'critical' || impact === 'major' ? 'state-down' : impact === 'minor' ? 'state-degraded' : '';
  return <span class={`badge ${tone}`}>{t(`inc.impact.${impact}`)}</span>;
}
