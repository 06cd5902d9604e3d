import { useEffect, useMemo, useState } from 'preact/hooks';
import type { Monitor, MonitorType } from '@vantage/shared-protocol';
import { MONITOR_LIMITS, MONITOR_TYPES, runsOnControlPlane } from '@vantage/shared-protocol/monitor-types';
import { api } from '../../api/client.js';
import { useApi } from '../../api/use-api.js';
import { useMarks } from '../../api/use-marks.js';
import { Link } from '../../components/Link.js';
import { LockedFields, ManagedNote } from '../../components/managed/Managed.js';
import { ShownOnce } from '../../components/ShownOnce.js';
import { ErrorState, FormError, Loading } from '../../components/states.js';
import { t } from '../../i18n/i18n.js';
import { navigate } from '../../router.js';
import { ConfigFields } from './ConfigFields.js';
import { errorsByPath, errorsUnder, refusedFields, toConfig, toRaw, type FieldErrors, type RawConfig } from './config-values.js';
import { MONITOR_CONFIGS, monitorCreateSchema, monitorPatchSchema } from './monitor-schemas.js';
import { fieldsOf } from './schema-fields.js';
import { TopField } from './TopField.js';
import { keptTeam, teamBody } from '../../api/team-scope.js';

type Created = Monitor & { heartbeat?: { token?: string; url?: string } | null };

/**
 * Create (POST /v1/monitors) or edit (PATCH /v1/monitors/{id}) a monitor: name, type, target,
 * interval, node count, tags, and the type's settings as form fields read off the type's config
 * schema (docs/api/monitors.md "Config per type"). The request is checked in the browser with the
 * API's own schemas before it is sent; a refusal's `details.fields` are shown at their fields.
 * A new heartbeat monitor's check-in URL, given once, is shown with a copy button.
 */
export default function MonitorFormPage({ params }: { params: Record<string, string> }) {
  const editing = params.id ?? null;
  const existing = useApi<Monitor>(editing ? `/v1/monitors/${encodeURIComponent(editing)}` : null);
  const mark = useMarks(editing ? 'monitor' : null)(editing ?? '');
  const [name, setName] = useState('');
  const [type, setType] = useState<MonitorType>('http');
  const [target, setTarget] = useState('');
  const [interval_s, setInterval] = useState<number>(MONITOR_LIMITS.interval_s_default);
  const [node_count, setNodeCount] = useState('1');
  const [tags, setTags] = useState('');
  const fields = useMemo(() => fieldsOf(MONITOR_CONFIGS[type]), [type]);
  const [raw, setRaw] = useState<RawConfig>(() => toRaw(fieldsOf(MONITOR_CONFIGS.http), null));
  const [errors, setErrors] = useState<FieldErrors>({});
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [heartbeat, setHeartbeat] = useState<{ id: string; url: string } | null>(null);
  // Editing: the form is not shown before the saved monitor has filled it (no frame shows, or
  // lets anyone type into, the defaults in place of the saved values).
  const [filled, setFilled] = useState(!editing);
  useEffect(() => {
    const m = existing.data;
    if (!m) return;
    setName(m.name); setType(m.type); setTarget(m.target ?? ''); setInterval(m.interval_s); setNodeCount(String(m.node_count));
    setTags(m.tags.join(', ')); setRaw(toRaw(fieldsOf(MONITOR_CONFIGS[m.type]), m.config));
    setFilled(true);
  }, [existing.data]);
  if (editing && existing.error) return <ErrorState error={existing.error} retry={existing.reload} />;
  if (editing && (!existing.data || !filled)) return <Loading />;
  if (heartbeat) {
    return (
      <section>
        <h1>{t('form.heartbeat_created')}</h1>
        <ShownOnce intro={t('form.heartbeat_once')} value={heartbeat.url} copyLabel={t('form.heartbeat_copy')} testId="heartbeat-url" />
        <p><Link href={`/monitors/${heartbeat.id}`}>{t('form.heartbeat_open')}</Link></p>
      </section>
    );
  }

  function pickType(next: MonitorType) {
    setType(next);
    setRaw(toRaw(fieldsOf(MONITOR_CONFIGS[next]), null));
    setErrors({});
  }

  async function submit(e: Event) {
    e.preventDefault();
    setError(null);
    const config = toConfig(fields, raw);
    const body: Record<string, unknown> = {
      name, config,
      ...(type === 'heartbeat' ? {} : { interval_s }),
      ...(target.trim() && type !== 'heartbeat' ? { target: target.trim() } : {}),
      ...(runsOnControlPlane(type) ? {} : { node_count: Number(node_count) }),
      tags: tags.split(',').map((s) => s.trim()).filter(Boolean),
    };
    // The API's own schemas, here first: the request's shape, then the type's config.
    const request = editing ? monitorPatchSchema.safeParse(body) : monitorCreateSchema.safeParse({ ...body, type });
    const settings = MONITOR_CONFIGS[type].safeParse(config);
    const found = {
      ...(request.success ? {} : errorsByPath(request.error.issues.map((i) => ({ path: i.path, message: i.message })))),
      ...(settings.success ? {} : errorsByPath(settings.error.issues.map((i) => ({ path: ['config', ...i.path], message: i.message })))),
    };
    setErrors(found);
    if (Object.keys(found).length) { setError(new Error(t('form.fix_fields'))); return; }
    setBusy(true);
    try {
      const saved = editing
        ? await api<Created>('PATCH', `/v1/monitors/${encodeURIComponent(editing)}`, body)
        : await api<Created>('POST', '/v1/monitors', { ...body, type, ...teamBody(keptTeam()) });
      if (!editing && saved.heartbeat?.url) setHeartbeat({ id: saved.id, url: saved.heartbeat.url });
      else navigate(`/monitors/${saved.id}`);
    } catch (err) {
      const refused = refusedFields(err);
      if (refused) setErrors(refused);
      setError(err);
    } finally {
      setBusy(false);
    }
  }
  const configErrors = errorsUnder(errors, 'config.');
  return (
    <section>
      <h1>{editing ? t('form.edit_title', { name: existing.data!.name }) : t('form.create_title')}</h1>
      <ManagedNote mark={mark} />
      <form onSubmit={submit} class="narrow" noValidate>
        <LockedFields mark={mark}>
          <TopField id="m-name" label={t('form.name')} error={errors.name}>
            {(a) => <input id="m-name" required maxLength={MONITOR_LIMITS.name_max_chars} value={name} {...a} onInput={(e) => setName((e.target as HTMLInputElement).value)} />}
          </TopField>
          <TopField id="m-type" label={t('form.type')} error={errors.type}>
            {(a) => (
              <select id="m-type" value={type} disabled={!!editing} {...a} onChange={(e) => pickType((e.target as HTMLSelectElement).value as MonitorType)}>
                {MONITOR_TYPES.map((ty) => <option key={ty} value={ty}>{ty}</option>)}
              </select>
            )}
          </TopField>
          {type !== 'heartbeat' && (
            <TopField id="m-target" label={t('form.target')} error={errors.target}>
              {(a) => <input id="m-target" maxLength={MONITOR_LIMITS.target_max_chars} value={target} {...a} onInput={(e) => setTarget((e.target as HTMLInputElement).value)} />}
            </TopField>
          )}
          {type !== 'heartbeat' && (
            <TopField id="m-interval" label={t('form.interval')} error={errors.interval_s}>
              {(a) => (
                <select id="m-interval" value={String(interval_s)} {...a} onChange={(e) => setInterval(Number((e.target as HTMLSelectElement).value))}>
                  {MONITOR_LIMITS.intervals_s.map((s) => <option key={s} value={String(s)}>{t('form.seconds', { n: s })}</option>)}
                </select>
              )}
            </TopField>
          )}
          {!runsOnControlPlane(type) && (
            <TopField id="m-nodes" label={t('form.node_count')} error={errors.node_count}>
              {(a) => <input id="m-nodes" type="number" min={1} max={MONITOR_LIMITS.node_count_max} value={node_count} {...a} onInput={(e) => setNodeCount((e.target as HTMLInputElement).value)} />}
            </TopField>
          )}
          <TopField id="m-tags" label={t('form.tags')} error={errors.tags}>
            {(a) => <input id="m-tags" value={tags} {...a} onInput={(e) => setTags((e.target as HTMLInputElement).value)} />}
          </TopField>
          <fieldset class="config">
            <legend>{t('form.settings', { type })}</legend>
            <ConfigFields fields={fields} raw={raw} errors={configErrors} onChange={setRaw} />
            {errors.config && <p class="field-error" role="alert">{errors.config}</p>}
          </fieldset>
          <FormError id="m-error" error={error} />
          <div class="actions">
            <button type="submit" class="primary" disabled={busy}>{editing ? t('form.save') : t('form.create')}</button>
            <Link href={editing ? `/monitors/${editing}` : '/monitors'}>{t('form.cancel')}</Link>
          </div>
        </LockedFields>
      </form>
    </section>
  );
}
