import { useState } from 'preact/hooks';
import type { AlertChannel, AlertPolicy } from '@vantage/shared-protocol';
import { MonitorSelect } from '../../components/MonitorSelect.js';
import { MoveTeam, type MoveProps } from '../../components/MoveTeam.js';
import { t } from '../../i18n/i18n.js';
import { ChannelChecks, LevelRows, levelRowsOf, levelsBody, type LevelRow } from './LevelRows.js';

/**
 * A policy's owner and its move (docs/api/teams.md "Moving a resource"): the monitor, the channels
 * and the escalation levels' channels must be the new owner's in the same PATCH
 * (docs/api/alerting.md "Teams": `{team_id, monitor_id, channel_ids}`), so they are chosen with
 * it, filled with the policy's own. The levels are sent only when changed here (a PATCH with
 * levels replaces them all, on-call schedules included).
 */
export function PolicyMove({ channels, ...move }: MoveProps<AlertPolicy> & { channels: AlertChannel[] }) {
  const policy = move.resource;
  const [monitor_id, setMonitor] = useState(policy.monitor_id);
  const [picked, setPicked] = useState<string[]>(policy.channel_ids);
  const [levels, setLevelRows] = useState<LevelRow[]>(levelRowsOf(policy.escalation_levels));
  const [levelsChanged, setLevelsChanged] = useState(false);
  const fields = (
    <>
      <p class="hint">{t('policies.move_hint')}</p>
      <MonitorSelect id="move-monitor" label={t('policies.monitor')} value={monitor_id} onChange={setMonitor} />
      <ChannelChecks channels={channels} picked={picked} onChange={setPicked} legend={t('policies.channels')} />
      <LevelRows idPrefix="move-lvl" rows={levels} channels={channels} onChange={(rows) => { setLevelRows(rows); setLevelsChanged(true); }} />
    </>
  );
  const body = { monitor_id, channel_ids: picked, ...(levelsChanged ? { escalation_levels: levelsBody(levels) } : {}) };
  return <MoveTeam {...move} extra={{ fields, body }} />;
}
