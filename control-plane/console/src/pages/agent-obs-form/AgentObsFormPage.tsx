import { useEffect, useState } from 'preact/hooks';
import type { AgentObsConfig, AgentObsMonitor, AlertChannel } from '@vantage/shared-protocol';
import { api, ApiFailure } from '../../api/client.js';
import { useApi } from '../../api/use-api.js';
import { useSubmit } from '../../api/use-submit.js';
import { AGENT_OBS_KINDS } from '../../api/vocabulary.js';
import { Field } from '../../components/Field.js';
import { Refusal } from '../../components/Refusal.js';
import { ErrorState, Loading } from '../../components/states.js';
import { t } from '../../i18n/i18n.js';
import { navigate } from '../../router.js';
import { refusedFields } from '../monitor-form/config-values.js';
import { AgentObsTabs } from '../agent-obs/parts.js';
import { agentObsConfigRequestSchema, createAgentObsMonitorSchema, patchAgentObsMonitorSchema } from './agent-obs-schemas.js';
import { EndpointFields, type Bind } from './EndpointFields.js';
import { PayloadFields } from './PayloadFields.js';
import { configBody, configChanged, createBody, EMPTY_VALUES, FieldProblem, patchBody, valuesOf, type AgentObsValues } from './values.js';

/** The issues of `value` under `schema` as the API's `details.fields` (`{path, message}`, dotted paths). */
function issuesOf(schema: { safeParse: (v: unknown) => { success: boolean; error?: { issues: Array<{ path: PropertyKey[]; message: string }> } } }, value: unknown) {
  return (schema.safeParse(value).error?.issues ?? []).map((i) => ({ path: i.path.map(String).join('.'), message: i.message }));
}

/**
 * Create (/agent-obs/new: POST /v1/agent-obs/monitors) or edit (/agent-obs/{id}/edit: PATCH, the
 * type fixed) an agent-obs monitor: name, kind, endpoint, period, failure threshold, budgets, step,
 * the kind's endpoint settings, the payload template, token limit and payload assertions, and the
 * alert channels each failing check notifies (docs/api/agent-obs.md "Monitors", "The config").
 * JSON that does not parse is shown at its field; the bodies are checked with the API's own
 * schemas first (nothing sent while one fails); the template and token limit go to
 * PUT …/config after the monitor is saved, only when they changed. A refusal lists the fields it
 * names, and the payload fields show theirs.
 */
export default function AgentObsFormPage({ params }: { params: Record<string, string> }) {
  const id = params.id;
  const saved = useApi<AgentObsMonitor>(id ? `/v1/agent-obs/monitors/${encodeURIComponent(id)}` : null);
  const savedConfig = useApi<AgentObsConfig>(id ? `/v1/agent-obs/monitors/${encodeURIComponent(id)}/config` : null);
  const channels = useApi<{ items: AlertChannel[] }>('/v1/alert-channels');
  // Editing: null until the saved monitor fills the form, which is not shown before (nothing typed
  // into it is overwritten when the values arrive).
  const [filled, setValues] = useState<AgentObsValues | null>(id ? null : EMPTY_VALUES);
  const v = filled ?? EMPTY_VALUES;
  const [problem, setProblem] = useState<FieldProblem | null>(null);
  useEffect(() => { if (saved.data && savedConfig.data) setValues(valuesOf(saved.data, savedConfig.data)); }, [saved.data, savedConfig.data]);
  const { busy, error, submit } = useSubmit(async () => {
    setProblem(null);
    let body, config;
    try { body = saved.data ? patchBody(v) : createBody(v); config = configBody(v); } catch (err) {
      if (err instanceof FieldProblem) { setProblem(err); return; }
      throw err;
    }
    const withConfig = configChanged(config, savedConfig.data);
    const fields = [...issuesOf(saved.data ? patchAgentObsMonitorSchema : createAgentObsMonitorSchema, body), ...(withConfig ? issuesOf(agentObsConfigRequestSchema, config) : [])];
    if (fields.length) throw new ApiFailure(400, 'VALIDATION_FAILED', t('form.fix_fields'), { fields });
    const made = await api<AgentObsMonitor>(saved.data ? 'PATCH' : 'POST', saved.data ? `/v1/agent-obs/monitors/${encodeURIComponent(saved.data.id)}` : '/v1/agent-obs/monitors', body);
    if (withConfig) await api<AgentObsConfig>('PUT', `/v1/agent-obs/monitors/${encodeURIComponent(made.id)}/config`, config);
    navigate(`/agent-obs/${made.id}`);
  });
  const loadError = saved.error ?? savedConfig.error;
  if (id && loadError) return <ErrorState error={loadError} retry={() => { saved.reload(); savedConfig.reload(); }} />;
  if (id && (!saved.data || !savedConfig.data || !filled)) return <Loading />;

  const bind: Bind = (key, type = 'text') => ({
    id: `ao-${key}`, value: v[key] as string,
    ...(problem?.field === key ? { 'aria-invalid': 'true' as const, 'aria-describedby': `ao-${key}-problem` } : {}),
    onInput: (e: Event) => setValues({ ...v, [key]: (e.target as HTMLInputElement).value }),
    ...(type === 'number' ? { type: 'number' as const } : {}),
  });
  const toggleChannel = (cid: string, on: boolean) => setValues({ ...v, notification_channels: on ? [...v.notification_channels, cid] : v.notification_channels.filter((c) => c !== cid) });
  return (
    <section>
      <h1>{id ? t('ao.edit_title', { name: saved.data!.agent_name }) : t('ao.new')}</h1>
      <AgentObsTabs here="" />
      <form onSubmit={submit} class="narrow" aria-describedby={error ? 'ao-form-error' : undefined}>
        <Field id="ao-agent_name" label={t('ao.agent_name')}><input {...bind('agent_name')} required maxLength={200} /></Field>
        <Field id="ao-type" label={t('ao.type')} hint={id ? t('ao.type_fixed') : t('ao.type_hint')}>
          <select id="ao-type" value={v.type} disabled={Boolean(id)} onChange={(e) => setValues({ ...v, type: (e.target as HTMLSelectElement).value as AgentObsValues['type'] })}>
            {AGENT_OBS_KINDS.map((k) => <option key={k} value={k}>{t(`ao.type.${k}`)}</option>)}
          </select>
        </Field>
        <Field id="ao-endpoint_url" label={t('ao.endpoint_url')}><input {...bind('endpoint_url')} type="url" required maxLength={2048} /></Field>
        <Field id="ao-frequency_seconds" label={t('ao.frequency_seconds')} hint={t('ao.frequency_hint')}><input {...bind('frequency_seconds', 'number')} required min={10} max={86400} /></Field>
        <Field id="ao-step_name" label={t('ao.step_name')}><input {...bind('step_name')} maxLength={200} /></Field>
        <fieldset>
          <legend>{t('ao.threshold')}</legend>
          <Field id="ao-latency_ms" label={t('ao.latency_limit')}><input {...bind('latency_ms', 'number')} min={1} max={120000} /></Field>
          <Field id="ao-status_codes" label={t('ao.status_codes')} hint={t('ao.status_codes_hint')}><input {...bind('status_codes')} placeholder="200-299" maxLength={200} /></Field>
        </fieldset>
        <fieldset>
          <legend>{t('ao.budget')}</legend>
          <Field id="ao-budget_per_check_usd" label={t('ao.budget_per_check_usd')} hint={t('ao.budget_per_check_hint')}>
            <input {...bind('budget_per_check_usd', 'number')} step="any" min={0} required={v.type === 'llm'} />
          </Field>
          <Field id="ao-budget_monthly_usd" label={t('ao.budget_monthly_usd')} hint={t('ao.budget_monthly_hint')}><input {...bind('budget_monthly_usd', 'number')} step="any" min={0} /></Field>
        </fieldset>
        <EndpointFields type={v.type} bind={bind} apiStyle={v.api_style} onApiStyle={(s) => setValues({ ...v, api_style: s })} />
        <PayloadFields values={v} errors={refusedFields(error) ?? {}} onChange={(next) => setValues({ ...v, ...next })} />
        {problem && <p id={`ao-${problem.field}-problem`} class="field-error" role="alert">{t('ao.not_json', { field: t(`ao.${problem.field}` as 'ao.body') })}: {problem.message}</p>}
        <fieldset>
          <legend>{t('ao.notification_channels')}</legend>
          {channels.data?.items.length === 0 && <p class="hint">{t('ao.no_channels')}</p>}
          <div class="checks">{(channels.data?.items ?? []).map((c) => (
            <label class="check" key={c.id}><input type="checkbox" checked={v.notification_channels.includes(c.id)} onChange={(e) => toggleChannel(c.id, (e.target as HTMLInputElement).checked)} />{c.name}</label>
          ))}</div>
        </fieldset>
        <Refusal id="ao-form-error" error={error} />
        <button type="submit" class="primary" disabled={busy}>{id ? t('ao.save') : t('ao.create')}</button>
      </form>
    </section>
  );
}
