import { useState } from 'preact/hooks';
import type { AlertNoiseRule } from '@vantage/shared-protocol';
import { api } from '../../api/client.js';
import { useApi } from '../../api/use-api.js';
import { useAction } from '../../api/use-action.js';
import { useSubmit } from '../../api/use-submit.js';
import { NOISE_KINDS, NOISE_MATCHES } from '../../api/vocabulary.js';
import { AlertingTabs } from '../../components/AlertingTabs.js';
import { Field } from '../../components/Field.js';
import { Listed } from '../../components/Listed.js';
import { MonitorName, MonitorSelect } from '../../components/MonitorSelect.js';
import { FormError } from '../../components/states.js';
import { t } from '../../i18n/i18n.js';
import { useMoveFromList } from '../../components/MoveFromList.js';
import { teamBody, useTeamScope, withTeam } from '../../api/team-scope.js';

/** A rule's kind-specific settings in words (`flap`: changes within a window; `duplicate`: the match; `min_duration`: seconds). */
function settings(r: AlertNoiseRule): string {
  if (r.kind === 'flap') return t('noise.flap_summary', { n: r.flap_changes ?? '', s: r.flap_window_s ?? '' });
  if (r.kind === 'duplicate') return t('noise.duplicate_summary', { match: t(`noise.match.${r.duplicate_match ?? 'host'}`) });
  return t('noise.min_summary', { s: r.min_down_s ?? '' });
}

/**
 * Noise rules (/v1/alert-noise-rules): hold back pages of flapping monitors, of monitors that
 * share a host or target, or of outages shorter than a minimum; the list with scope and settings,
 * enable, disable, delete, its owner and a move into or out of a team (docs/api/teams.md "Moving a
 * resource"), and a form for a new one (docs/api/alerting.md "Noise rules").
 */
export default function NoiseRulesPage() {
  const team_id = useTeamScope();
  const rules = useApi<{ items: AlertNoiseRule[] }>(withTeam('/v1/alert-noise-rules', team_id));
  const action = useAction(rules.reload);
  const move = useMoveFromList<AlertNoiseRule>('/v1/alert-noise-rules', rules.reload);
  const [name, setName] = useState('');
  const [kind, setKind] = useState<(typeof NOISE_KINDS)[number]>('flap');
  const [monitor_id, setMonitor] = useState('');
  const [tags, setTags] = useState('');
  const [flap_changes, setChanges] = useState('4');
  const [flap_window_s, setWindow] = useState('600');
  const [duplicate_match, setMatch] = useState<(typeof NOISE_MATCHES)[number]>('host');
  const [min_down_s, setMinDown] = useState('120');
  const { busy, error, submit } = useSubmit(async () => {
    await api('POST', '/v1/alert-noise-rules', {
      name, kind,
      monitor_ids: monitor_id ? [monitor_id] : [],
      tags: tags.split(',').map((s) => s.trim()).filter(Boolean),
      ...(kind === 'flap' ? { flap_changes: Number(flap_changes), flap_window_s: Number(flap_window_s) } : {}),
      ...(kind === 'duplicate' ? { duplicate_match } : {}),
      ...(kind === 'min_duration' ? { min_down_s: Number(min_down_s) } : {}),
      ...teamBody(team_id),
    });
    setName(''); setTags(''); setMonitor('');
    rules.reload();
  });
  return (
    <section>
      <h1>{t('noise.title')}</h1>
      <AlertingTabs here="/alerts/noise" />
      <FormError id="noise-error" error={action.error} />
      <Listed loaded={rules} items={(d) => d.items} empty={t('noise.empty')}>
        {(d) => (
          <table>
            <thead><tr>
              <th scope="col">{t('noise.name')}</th><th scope="col">{t('noise.kind')}</th><th scope="col">{t('noise.settings')}</th>
              <th scope="col">{t('noise.scope')}</th><th scope="col">{t('policies.enabled')}</th><th scope="col"><span class="sr-only">{t('events.actions')}</span></th>
            </tr></thead>
            <tbody>{d.items.map((r) => (
              <tr key={r.id}>
                <td>{r.name}</td><td>{t(`noise.kind.${r.kind}`)}</td><td>{settings(r)}</td>
                <td>{r.monitor_ids.length === 0 && r.tags.length === 0 ? t('noise.all_monitors') : (
                  <>{r.monitor_ids.map((id) => <span key={id}><MonitorName monitor_id={id} /> </span>)}{r.tags.map((tag) => <code key={tag}>{tag} </code>)}</>
                )}</td>
                <td>{r.enabled ? t('profile.on') : t('profile.off')}</td>
                <td class="actions">
                  <button type="button" aria-label={t(r.enabled ? 'noise.disable_named' : 'noise.enable_named', { name: r.name })} onClick={() => void action.call('PATCH', `/v1/alert-noise-rules/${encodeURIComponent(r.id)}`, { enabled: !r.enabled })}>{r.enabled ? t('policies.disable') : t('policies.enable')}</button>
                  {move.button(r, r.name)}
                  <button type="button" class="danger" aria-label={t('noise.delete_named', { name: r.name })} onClick={() => void action.call('DELETE', `/v1/alert-noise-rules/${encodeURIComponent(r.id)}`)}>{t('channels.delete')}</button>
                </td>
              </tr>
            ))}</tbody>
          </table>
        )}
      </Listed>
      {move.panel}
      <h2>{t('noise.new')}</h2>
      <form onSubmit={submit} class="narrow">
        <Field id="noise-name" label={t('noise.name')}><input id="noise-name" required maxLength={200} value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} /></Field>
        <Field id="noise-kind" label={t('noise.kind')}>
          <select id="noise-kind" value={kind} onChange={(e) => setKind((e.target as HTMLSelectElement).value as typeof kind)}>
            {NOISE_KINDS.map((k) => <option key={k} value={k}>{t(`noise.kind.${k}`)}</option>)}
          </select>
        </Field>
        <MonitorSelect id="noise-monitor" label={t('noise.monitor')} value={monitor_id} onChange={setMonitor} anyLabel={t('noise.all_monitors')} />
        <Field id="noise-tags" label={t('noise.tags')}><input id="noise-tags" value={tags} onInput={(e) => setTags((e.target as HTMLInputElement).value)} /></Field>
        {kind === 'flap' && (
          <div class="inline">
            <Field id="noise-changes" label={t('noise.flap_changes')}><input id="noise-changes" type="number" min={2} max={100} required value={flap_changes} onInput={(e) => setChanges((e.target as HTMLInputElement).value)} /></Field>
            <Field id="noise-window" label={t('noise.flap_window_s')}><input id="noise-window" type="number" min={60} max={21600} required value={flap_window_s} onInput={(e) => setWindow((e.target as HTMLInputElement).value)} /></Field>
          </div>
        )}
        {kind === 'duplicate' && (
          <Field id="noise-match" label={t('noise.duplicate_match')}>
            <select id="noise-match" value={duplicate_match} onChange={(e) => setMatch((e.target as HTMLSelectElement).value as typeof duplicate_match)}>
              {NOISE_MATCHES.map((m) => <option key={m} value={m}>{t(`noise.match.${m}`)}</option>)}
            </select>
          </Field>
        )}
        {kind === 'min_duration' && (
          <Field id="noise-min" label={t('noise.min_down_s')}><input id="noise-min" type="number" min={1} max={86400} required value={min_down_s} onInput={(e) => setMinDown((e.target as HTMLInputElement).value)} /></Field>
        )}
        <FormError id="noise-form-error" error={error} />
        <button type="submit" class="primary" disabled={busy}>{t('noise.create')}</button>
      </form>
    </section>
  );
}
