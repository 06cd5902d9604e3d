import { useState } from 'preact/hooks';
import type { AlertChannel, AlertPolicy } from '@vantage/shared-protocol';
import { api } from '../../api/client.js';
import { useSubmit } from '../../api/use-submit.js';
import { Field } from '../../components/Field.js';
import { MonitorSelect } from '../../components/MonitorSelect.js';
import { FormError } from '../../components/states.js';
import { t } from '../../i18n/i18n.js';
import { ChannelChecks, LevelRows, levelRowsOf, levelsBody, type LevelRow } from './LevelRows.js';
import { keptTeam, teamBody } from '../../api/team-scope.js';

/**
 * Create a policy (POST /v1/alert-policies), or edit `editing` (PATCH /v1/alert-policies/{id}):
 * name, monitor, the channels of the first notification, delay, results to recover, and
 * escalation levels. An edit sends the levels only when they were changed here (a PATCH that
 * gives them replaces them all, and levels may also page on-call schedules this form does not show).
 */
export function PolicyForm({ channels, created, editing, cancel }: { channels: AlertChannel[]; created: () => void; editing?: AlertPolicy; cancel?: () => void }) {
  const [name, setName] = useState(editing?.name ?? '');
  const [monitor_id, setMonitor] = useState(editing?.monitor_id ?? '');
  const [picked, setPicked] = useState<string[]>(editing?.channel_ids ?? []);
  const [delay_s, setDelay] = useState(String(editing?.delay_s ?? 0));
  const [recovery_n, setRecovery] = useState(String(editing?.recovery_n ?? 1));
  const [levels, setLevelRows] = useState<LevelRow[]>(levelRowsOf(editing?.escalation_levels ?? []));
  const [levelsChanged, setLevelsChanged] = useState(false);
  const setLevels = (rows: LevelRow[]) => { setLevelRows(rows); setLevelsChanged(true); };
  const { busy, error, submit } = useSubmit(async () => {
    const body = { name, monitor_id, channel_ids: picked, delay_s: Number(delay_s), recovery_n: Number(recovery_n) };
    if (editing) {
      await api('PATCH', `/v1/alert-policies/${encodeURIComponent(editing.id)}`, { ...body, ...(levelsChanged ? { escalation_levels: levelsBody(levels) } : {}) });
    } else {
      await api('POST', '/v1/alert-policies', { ...body, escalation_levels: levelsBody(levels), ...teamBody(keptTeam()) });
      setName(''); setPicked([]); setLevelRows([]);
    }
    created();
  });
  return (
    <>
      <h2>{editing ? t('policies.edit_title', { name: editing.name }) : t('policies.new')}</h2>
      <form onSubmit={submit} class="narrow">
        <Field id="pol-name" label={t('policies.name')}><input id="pol-name" required maxLength={200} value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} /></Field>
        <MonitorSelect id="pol-monitor" label={t('policies.monitor')} value={monitor_id} onChange={setMonitor} />
        <ChannelChecks channels={channels} picked={picked} onChange={setPicked} legend={t('policies.channels')} />
        <div class="inline">
          <Field id="pol-delay" label={t('policies.delay_s')}><input id="pol-delay" type="number" min={0} max={86400} value={delay_s} onInput={(e) => setDelay((e.target as HTMLInputElement).value)} /></Field>
          <Field id="pol-recovery" label={t('policies.recovery_n')}><input id="pol-recovery" type="number" min={1} max={10} value={recovery_n} onInput={(e) => setRecovery((e.target as HTMLInputElement).value)} /></Field>
        </div>
        <LevelRows rows={levels} channels={channels} onChange={setLevels} />
        <FormError id="policy-error" error={error} />
        <button type="submit" class="primary" disabled={busy}>{editing ? t('policies.save') : t('policies.create')}</button>
        {cancel && <button type="button" onClick={cancel}>{t('form.cancel')}</button>}
      </form>
    </>
  );
}
