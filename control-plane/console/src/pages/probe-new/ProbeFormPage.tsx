import { useState } from 'preact/hooks';
import type { ProbeTaskResult } from '@vantage/shared-protocol';
import { api } from '../../api/client.js';
import { useSubmit } from '../../api/use-submit.js';
import { Field } from '../../components/Field.js';
import { FormError } from '../../components/states.js';
import { t } from '../../i18n/i18n.js';
import { navigate } from '../../router.js';

type ProbeType = ProbeTaskResult['probe_type'];
/** The API's probe types; the check below fails the build if they drift apart. */
const PROBE_TYPES = ['http', 'ping', 'dns', 'tcp', 'traceroute', 'mtr', 'headers', 'smtp', 'ntp', 'speedtest', 'ssl'] as const satisfies readonly ProbeType[];
true satisfies (Exclude<ProbeType, (typeof PROBE_TYPES)[number]> extends never ? true : false);

/**
 * Run a probe (POST /v1/probe/{type}, docs/api/probes.md): type, target, node count and optional
 * countries (`nodes: {count, countries[]}`); opens the probe's page, which streams its results.
 */
export default function ProbeFormPage() {
  const [type, setType] = useState<ProbeType>('http');
  const [target, setTarget] = useState('');
  const [count, setCount] = useState(3);
  const [countries, setCountries] = useState('');
  const { busy, error, submit } = useSubmit(async () => {
    const list = countries.split(',').map((c) => c.trim()).filter(Boolean);
    const task = await api<{ task_id: string }>('POST', `/v1/probe/${type}`, { target: target.trim(), nodes: { count, ...(list.length ? { countries: list } : {}) } });
    navigate(`/probes/${task.task_id}`);
  });
  return (
    <section>
      <h1>{t('probes.title')}</h1>
      <form onSubmit={submit} class="narrow">
        <Field id="p-type" label={t('probes.type')}>
          <select id="p-type" value={type} onChange={(e) => setType((e.target as HTMLSelectElement).value as ProbeType)}>
            {PROBE_TYPES.map((ty) => <option key={ty} value={ty}>{ty}</option>)}
          </select>
        </Field>
        <Field id="p-target" label={t('probes.target')} hint={t(`probes.target_hint.${type}`)}>
          <input id="p-target" required aria-describedby="p-target-hint" value={target} onInput={(e) => setTarget((e.target as HTMLInputElement).value)} />
        </Field>
        <Field id="p-count" label={t('probes.count')}>
          <input id="p-count" type="number" min={1} max={1000} value={count} onInput={(e) => setCount(Number((e.target as HTMLInputElement).value))} />
        </Field>
        <Field id="p-countries" label={t('probes.countries')} hint={t('probes.countries_hint')}>
          <input id="p-countries" aria-describedby="p-countries-hint" value={countries} onInput={(e) => setCountries((e.target as HTMLInputElement).value)} />
        </Field>
        <FormError id="p-error" error={error} />
        <button type="submit" class="primary" disabled={busy}>{busy ? t('auth.working') : t('probes.run')}</button>
      </form>
    </section>
  );
}
