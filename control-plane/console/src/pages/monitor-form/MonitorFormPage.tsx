import { useEffect, useState } from 'preact/hooks';
import type { Monitor, MonitorType } from '@vantage/shared-protocol';
import { MONITOR_LIMITS, MONITOR_TYPES, runsOnControlPlane } from '@vantage/shared-protocol/monitor-types';
import { api } from '../../api/client.js';
import { useApi } from '../../api/use-api.js';
import { Field } from '../../components/Field.js';
import { Link } from '../../components/Link.js';
import { ErrorState, FormError, Loading } from '../../components/states.js';
import { t } from '../../i18n/i18n.js';
import { navigate } from '../../router.js';

/**
 * Create (POST /v1/monitors) or edit (PATCH /v1/monitors/{id}) a monitor: name, type, target,
 * interval, node count, tags, and the type's settings as JSON (docs/api/monitors.md). The API
 * validates; its refusal is shown as it says it.
 */
export default function MonitorFormPage({ params }: { params: Record<string, string> }) {
  const editing = params.id ?? null;
  const existing = useApi<Monitor>(editing ? `/v1/monitors/${encodeURIComponent(editing)}` : null);
  const [name, setName] = useState('');
  const [type, setType] = useState<MonitorType>('http');
  const [target, setTarget] = useState('');
  const [interval_s, setInterval] = useState<number>(MONITOR_LIMITS.interval_s_default);
  const [node_count, setNodeCount] = useState(1);
  const [tags, setTags] = useState('');
  const [config, setConfig] = useState('');
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    const m = existing.data;
    if (!m) return;
    setName(m.name); setType(m.type); setTarget(m.target ?? ''); setInterval(m.interval_s); setNodeCount(m.node_count);
    setTags(m.tags.join(', ')); setConfig(Object.keys(m.config).length ? JSON.stringify(m.config, null, 2) : '');
  }, [existing.data]);
  if (editing && existing.error) return <ErrorState error={existing.error} retry={existing.reload} />;
  if (editing && !existing.data) return <Loading />;

  async function submit(e: Event) {
    e.preventDefault();
    setError(null);
    let parsed: Record<string, unknown> | undefined;
    if (config.trim()) {
      try { parsed = JSON.parse(config) as Record<string, unknown>; } catch { parsed = undefined; }
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) { setError(new Error(t('form.config_invalid'))); return; }
    }
    const body = {
      name, interval_s,
      ...(target.trim() ? { target: target.trim() } : {}),
      ...(runsOnControlPlane(type) ? {} : { node_count }),
      tags: tags.split(',').map((s) => s.trim()).filter(Boolean),
      ...(parsed ? { config: parsed } : {}),
    };
    try {
      const saved = editing
        ? await api<Monitor>('PATCH', `/v1/monitors/${encodeURIComponent(editing)}`, body)
        : await api<Monitor>('POST', '/v1/monitors', { ...body, type });
      navigate(`/monitors/${saved.id}`);
    } catch (err) { setError(err); }
  }
  return (
    <section>
      <h1>{editing ? t('form.edit_title', { name: existing.data!.name }) : t('form.create_title')}</h1>
      <form onSubmit={submit} class="narrow">
        <Field id="m-name" label={t('form.name')}>
          <input id="m-name" required maxLength={MONITOR_LIMITS.name_max_chars} value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
        </Field>
        <Field id="m-type" label={t('form.type')}>
          <select id="m-type" value={type} disabled={!!editing} onChange={(e) => setType((e.target as HTMLSelectElement).value as MonitorType)}>
            {MONITOR_TYPES.map((ty) => <option key={ty} value={ty}>{ty}</option>)}
          </select>
        </Field>
        {type !== 'heartbeat' && (
          <Field id="m-target" label={t('form.target')}>
            <input id="m-target" maxLength={MONITOR_LIMITS.target_max_chars} value={target} onInput={(e) => setTarget((e.target as HTMLInputElement).value)} />
          </Field>
        )}
        <Field id="m-interval" label={t('form.interval')}>
          <select id="m-interval" value={String(interval_s)} onChange={(e) => setInterval(Number((e.target as HTMLSelectElement).value))}>
            {MONITOR_LIMITS.intervals_s.map((s) => <option key={s} value={String(s)}>{t('form.seconds', { n: s })}</option>)}
          </select>
        </Field>
        {!runsOnControlPlane(type) && (
          <Field id="m-nodes" label={t('form.node_count')}>
            <input id="m-nodes" type="number" min={1} max={MONITOR_LIMITS.node_count_max} value={node_count} onInput={(e) => setNodeCount(Number((e.target as HTMLInputElement).value))} />
          </Field>
        )}
        <Field id="m-tags" label={t('form.tags')}>
          <input id="m-tags" value={tags} onInput={(e) => setTags((e.target as HTMLInputElement).value)} />
        </Field>
        <Field id="m-config" label={t('form.config')} hint={t('form.config_hint')}>
          <textarea id="m-config" rows={6} aria-describedby="m-config-hint" value={config} onInput={(e) => setConfig((e.target as HTMLTextAreaElement).value)} />
        </Field>
        <FormError id="m-error" error={error} />
        <div class="actions">
          <button type="submit" class="primary">{editing ? t('form.save') : t('form.create')}</button>
          <Link href={editing ? `/monitors/${editing}` : '/monitors'}>{t('form.cancel')}</Link>
        </div>
      </form>
    </section>
  );
}
