import { AGENT_OBS_API_STYLES } from '../../api/vocabulary.js';
import { Field } from '../../components/Field.js';
import { t } from '../../i18n/i18n.js';
import type { AgentObsValues } from './values.js';

/** The props of a control bound to one of the form's values: its id, value, input handler, `type` for a number input, and its problem when it has one. */
export type Bound = { id: string; value: string; onInput: (e: Event) => void; type?: 'number'; 'aria-invalid'?: 'true'; 'aria-describedby'?: string };
export type Bind = (key: keyof AgentObsValues, type?: 'text' | 'number') => Bound;

/**
 * The endpoint settings of a monitor's kind (docs/api/agent-obs.md `endpoint_config`): llm its
 * API style, model, prompt and token limit; tool and other the method, JSON body and expected
 * members; rag the query, expected documents and text; every kind its headers and timeout.
 */
export function EndpointFields({ type, bind, apiStyle, onApiStyle }: { type: AgentObsValues['type']; bind: Bind; apiStyle: string; onApiStyle: (style: string) => void }) {
  return (
    <fieldset>
      <legend>{t('ao.endpoint_config', { type: t(`ao.type.${type}`) })}</legend>
      {type === 'llm' && <>
        <Field id="ao-api_style" label={t('ao.api_style')}>
          <select id="ao-api_style" value={apiStyle} onChange={(e) => onApiStyle((e.target as HTMLSelectElement).value)}>
            {AGENT_OBS_API_STYLES.map((s) => <option key={s} value={s}>{t(`ao.api_style.${s}`)}</option>)}
          </select>
        </Field>
        <Field id="ao-model" label={t('ao.model')}><input {...bind('model')} maxLength={200} /></Field>
        <Field id="ao-prompt" label={t('ao.prompt')}><textarea {...bind('prompt')} rows={3} maxLength={8000} /></Field>
        <Field id="ao-max_tokens" label={t('ao.max_tokens')}><input {...bind('max_tokens', 'number')} min={1} max={1000000} /></Field>
      </>}
      {(type === 'tool' || type === 'other') && <>
        <Field id="ao-method" label={t('ao.method')} hint={t('ao.method_hint')}><input {...bind('method')} maxLength={10} placeholder="POST" /></Field>
        <Field id="ao-body" label={t('ao.body')}><textarea {...bind('body')} rows={4} spellcheck={false} /></Field>
        <Field id="ao-expected_json" label={t('ao.expected_json')} hint={t('ao.expected_json_hint')}><textarea {...bind('expected_json')} rows={3} spellcheck={false} /></Field>
      </>}
      {type === 'rag' && <>
        <Field id="ao-query" label={t('ao.query')}><textarea {...bind('query')} rows={2} maxLength={8000} /></Field>
        <Field id="ao-expected_document_ids" label={t('ao.expected_document_ids')} hint={t('ao.one_per_line')}><textarea {...bind('expected_document_ids')} rows={3} /></Field>
        <Field id="ao-expected_text" label={t('ao.expected_text')}><input {...bind('expected_text')} maxLength={1024} /></Field>
      </>}
      <Field id="ao-headers" label={t('ao.headers')} hint={t('ao.headers_hint')}><textarea {...bind('headers')} rows={3} spellcheck={false} /></Field>
      <Field id="ao-timeout_ms" label={t('ao.timeout_ms')}><input {...bind('timeout_ms', 'number')} min={1000} max={120000} placeholder="30000" /></Field>
    </fieldset>
  );
}
