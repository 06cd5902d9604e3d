import { useMemo, useState } from 'preact/hooks';
import type { ProbeTaskResult } from '@vantage/shared-protocol';
import { api } from '../../api/client.js';
import { Field } from '../../components/Field.js';
import { FormError } from '../../components/states.js';
import { t } from '../../i18n/i18n.js';
import { navigate } from '../../router.js';
import { ConfigFields } from '../monitor-form/ConfigFields.js';
import { errorsByPath, errorsUnder, refusedFields, toConfig, toRaw, type FieldErrors, type RawConfig } from '../monitor-form/config-values.js';
import { fieldsOf } from '../monitor-form/schema-fields.js';
import { PROBE_PARAMS } from './probe-schemas.js';

type ProbeType = ProbeTaskResult['probe_type'];
/** The API's probe types; the check below fails the build if they drift apart. */
const PROBE_TYPES = ['http', 'ping', 'dns', 'tcp', 'traceroute', 'mtr', 'headers', 'smtp', 'ntp', 'speedtest', 'ssl'] as const satisfies readonly ProbeType[];
true satisfies (Exclude<ProbeType, (typeof PROBE_TYPES)[number]> extends never ? true : false);

const list = (text: string) => text.split(',').map((c) => c.trim()).filter(Boolean);

/**
 * Run a probe (POST /v1/probe/{type}, docs/api/probes.md): type, target, the nodes (`nodes: {count,
 * countries[], asns[]}`) and the type's own settings (`params`) as form fields read off the API's
 * params schema of that type, the defaults as placeholders. The params are checked in the browser
 * with that schema first; a refusal's `details.fields` (`params.count`) are shown at their fields.
 * Opens the probe's page, which streams its results.
 */
export default function ProbeFormPage() {
  const [type, setType] = useState<ProbeType>('http');
  const [target, setTarget] = useState('');
  const [count, setCount] = useState(3);
  const [countries, setCountries] = useState('');
  const [asns, setAsns] = useState('');
  const fields = useMemo(() => fieldsOf(PROBE_PARAMS[type]), [type]);
  const [raw, setRaw] = useState<RawConfig>(() => toRaw(fieldsOf(PROBE_PARAMS.http), null));
  const [errors, setErrors] = useState<FieldErrors>({});
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  function changeType(next: ProbeType) {
    setType(next);
    setRaw(toRaw(fieldsOf(PROBE_PARAMS[next]), null));
    setErrors({});
  }

  async function submit(e: Event) {
    e.preventDefault();
    setError(null);
    const params = toConfig(fields, raw);
    const asn_list = list(asns).map((a) => Number(a.replace(/^AS/i, '')));
    const found: FieldErrors = {};
    if (asn_list.some((a) => !Number.isInteger(a) || a < 1 || a > 4294967295)) found.asns = t('probes.asns_invalid');
    const parsed = PROBE_PARAMS[type].safeParse(params);
    if (!parsed.success) Object.assign(found, errorsByPath(parsed.error.issues.map((i) => ({ path: ['params', ...i.path], message: i.message }))));
    setErrors(found);
    if (Object.keys(found).length) { setError(new Error(t('form.fix_fields'))); return; }
    const country_list = list(countries);
    const nodes = { count, ...(country_list.length ? { countries: country_list } : {}), ...(asn_list.length ? { asns: asn_list } : {}) };
    setBusy(true);
    try {
      const task = await api<{ task_id: string }>('POST', `/v1/probe/${type}`, { target: target.trim(), nodes, params });
      navigate(`/probes/${task.task_id}`);
    } catch (err) {
      const refused = refusedFields(err);
      if (refused) setErrors(refused);
      setError(err);
    } finally {
      setBusy(false);
    }
  }
  const paramErrors = errorsUnder(errors, 'params.');
  const fieldError = (key: string, id: string) => errors[key] && <p class="field-error" id={`${id}-error`}>{errors[key]}</p>;
  return (
    <section>
      <h1>{t('probes.title')}</h1>
      <form onSubmit={submit} class="narrow">
        <Field id="p-type" label={t('probes.type')}>
          <select id="p-type" value={type} onChange={(e) => changeType((e.target as HTMLSelectElement).value as ProbeType)}>
            {PROBE_TYPES.map((ty) => <option key={ty} value={ty}>{ty}</option>)}
          </select>
        </Field>
        <Field id="p-target" label={t('probes.target')} hint={t(`probes.target_hint.${type}`)}>
          <input id="p-target" required aria-describedby="p-target-hint" value={target} onInput={(e) => setTarget((e.target as HTMLInputElement).value)} />
        </Field>
        {fieldError('target', 'p-target')}
        <Field id="p-count" label={t('probes.count')}>
          <input id="p-count" type="number" min={1} max={1000} value={count} onInput={(e) => setCount(Number((e.target as HTMLInputElement).value))} />
        </Field>
        <Field id="p-countries" label={t('probes.countries')} hint={t('probes.countries_hint')}>
          <input id="p-countries" aria-describedby="p-countries-hint" value={countries} onInput={(e) => setCountries((e.target as HTMLInputElement).value)} />
        </Field>
        <Field id="p-asns" label={t('probes.asns')} hint={t('probes.asns_hint')}>
          <input id="p-asns" aria-describedby={errors.asns ? 'p-asns-hint p-asns-error' : 'p-asns-hint'} aria-invalid={errors.asns ? true : undefined}
            value={asns} onInput={(e) => setAsns((e.target as HTMLInputElement).value)} />
        </Field>
        {fieldError('asns', 'p-asns')}
        {fields.length > 0 && (
          <fieldset class="config">
            <legend>{t('form.settings', { type })}</legend>
            <ConfigFields fields={fields} raw={raw} errors={paramErrors} onChange={setRaw} path="" />
          </fieldset>
        )}
        <FormError id="p-error" error={error} />
        <button type="submit" class="primary" disabled={busy}>{busy ? t('auth.working') : t('probes.run')}</button>
      </form>
    </section>
  );
}
