import { t } from '../../i18n/i18n.js';
import { ConfigFields } from '../monitor-form/ConfigFields.js';
import { errorsUnder, type FieldErrors, type RawConfig } from '../monitor-form/config-values.js';
import { TopField } from '../monitor-form/TopField.js';
import { PAYLOAD_ASSERTIONS } from './agent-obs-schemas.js';
import type { AgentObsValues } from './values.js';

type Payload = Pick<AgentObsValues, 'payload_assertions' | 'payload_template' | 'expected_tokens_max'>;

/**
 * What a check sends and what its answer must hold beyond the kind's settings
 * (docs/api/agent-obs.md "The config", `failure_threshold.payload_assertions`): the payload
 * template (a JSON object sent instead of the built body), the token limit, and the payload
 * assertions as rows of the monitors' assertion fields. `errors` are the browser's schema check or
 * the API's `details.fields` (`payload_template`, `failure_threshold.payload_assertions.0.value`).
 */
export function PayloadFields({ values, errors, onChange }: { values: Payload; errors: FieldErrors; onChange: (next: Partial<Payload>) => void }) {
  const describe = (id: string, error?: string) => ({
    'aria-describedby': [`${id}-hint`, ...(error ? [`${id}-error`] : [])].join(' '),
    ...(error ? { 'aria-invalid': true as const } : {}),
  });
  return (
    <fieldset>
      <legend>{t('ao.payload')}</legend>
      <TopField id="ao-payload_template" label={t('ao.payload_template')} error={errors.payload_template}>
        {() => <textarea id="ao-payload_template" rows={5} spellcheck={false} value={values.payload_template} {...describe('ao-payload_template', errors.payload_template)}
          onInput={(e) => onChange({ payload_template: (e.target as HTMLTextAreaElement).value })} />}
      </TopField>
      <p class="hint" id="ao-payload_template-hint">{t('ao.payload_template_hint')}</p>
      <TopField id="ao-expected_tokens_max" label={t('ao.expected_tokens_max')} error={errors.expected_tokens_max}>
        {() => <input id="ao-expected_tokens_max" type="number" min={1} max={10_000_000} value={values.expected_tokens_max} {...describe('ao-expected_tokens_max', errors.expected_tokens_max)}
          onInput={(e) => onChange({ expected_tokens_max: (e.target as HTMLInputElement).value })} />}
      </TopField>
      <p class="hint" id="ao-expected_tokens_max-hint">{t('ao.expected_tokens_max_hint')}</p>
      <ConfigFields fields={[PAYLOAD_ASSERTIONS]} raw={{ payload_assertions: values.payload_assertions }} errors={errorsUnder(errors, 'failure_threshold.')}
        onChange={(raw) => onChange({ payload_assertions: raw.payload_assertions as RawConfig[] })} />
    </fieldset>
  );
}
