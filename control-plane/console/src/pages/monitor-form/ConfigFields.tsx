import { locale, t } from '../../i18n/i18n.js';
import { CONFIG_LABELS } from './config-labels.js';
import { toRaw, type FieldErrors, type RawConfig, type RawValue } from './config-values.js';
import type { FieldSpec } from './schema-fields.js';

/** A config field's label in the current locale (its API name when it has none). */
export function configLabel(key: string): string {
  return CONFIG_LABELS[locale()][key] ?? key;
}

const show = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v));

/**
 * The controls of a monitor type's config, read off its schema ({@link FieldSpec}): one labelled
 * control per field, the schema's default as placeholder, and the field's error (from the
 * browser's validation with the same schema, or from the API's `details.fields`) tied to it by
 * aria-describedby. `path` prefixes nested fields (`viewport.`, `assertions.0.`).
 */
export function ConfigFields({ fields, raw, errors, onChange, path = '' }: {
  fields: FieldSpec[]; raw: RawConfig; errors: FieldErrors; onChange: (raw: RawConfig) => void; path?: string;
}) {
  const set = (key: string, v: RawValue) => onChange({ ...raw, [key]: v });
  return (
    <>
      {fields.map((f) => {
        const at = `${path}${f.key}`;
        const id = `cfg-${at.replace(/\./g, '-')}`;
        const error = errors[at];
        const described = error ? { 'aria-describedby': `${id}-error`, 'aria-invalid': true as const } : {};
        const errorLine = error && <p class="field-error" id={`${id}-error`}>{error}</p>;
        const v = raw[f.key];
        if (f.kind === 'object') {
          return (
            <fieldset key={at}>
              <legend>{configLabel(f.key)}</legend>
              <ConfigFields fields={f.fields} raw={(v as RawConfig) ?? {}} errors={errors} onChange={(next) => set(f.key, next)} path={`${at}.`} />
              {errorLine}
            </fieldset>
          );
        }
        if (f.kind === 'rows') {
          const rows = (v as RawConfig[]) ?? [];
          const label = configLabel(f.key);
          return (
            <fieldset key={at} class="rows">
              <legend>{label}</legend>
              {rows.length === 0 && <p class="hint">{t('form.rows_none')}</p>}
              {rows.map((row, i) => (
                <div class="inline row" key={i} role="group" aria-label={t('form.row_named', { name: label, n: i + 1 })}>
                  <ConfigFields fields={f.fields} raw={row} errors={errors} onChange={(next) => set(f.key, rows.map((r, j) => (j === i ? next : r)))} path={`${at}.${i}.`} />
                  <button type="button" onClick={() => set(f.key, rows.filter((_, j) => j !== i))}>{t('form.row_remove', { name: label, n: i + 1 })}</button>
                </div>
              ))}
              <button type="button" onClick={() => set(f.key, [...rows, toRaw(f.fields, null)])}>{t('form.row_add', { name: label })}</button>
              {errorLine}
            </fieldset>
          );
        }
        if (f.kind === 'boolean') {
          return (
            <div class="field" key={at}>
              <label class="check"><input id={id} type="checkbox" checked={v === true} {...described} onChange={(e) => set(f.key, (e.target as HTMLInputElement).checked)} />{configLabel(f.key)}</label>
              {errorLine}
            </div>
          );
        }
        const text = typeof v === 'string' ? v : '';
        const placeholder = f.fallback === undefined || (Array.isArray(f.fallback) && f.fallback.length === 0) || (typeof f.fallback === 'object' && f.fallback !== null && Object.keys(f.fallback).length === 0)
          ? {} : { placeholder: t('form.default_value', { value: Array.isArray(f.fallback) ? f.fallback.join(', ') : show(f.fallback) }) };
        let control;
        if (f.kind === 'enum') {
          control = (
            <select id={id} value={text} {...described} onChange={(e) => set(f.key, (e.target as HTMLSelectElement).value)}>
              {f.fallback === undefined && <option value="">{t('form.unset')}</option>}
              {f.options.map((o) => <option key={o} value={o}>{o}</option>)}
            </select>
          );
        } else if (f.kind === 'number') {
          control = <input id={id} type="number" inputMode="numeric" {...(f.min !== undefined ? { min: f.min } : {})} {...(f.max !== undefined ? { max: f.max } : {})} {...placeholder} {...described} value={text} onInput={(e) => set(f.key, (e.target as HTMLInputElement).value)} />;
        } else if (f.kind === 'pairs' || f.kind === 'json' || f.key === 'body') {
          control = <textarea id={id} rows={f.kind === 'json' && path ? 1 : 3} {...placeholder} {...described} value={text} onInput={(e) => set(f.key, (e.target as HTMLTextAreaElement).value)} />;
        } else {
          control = <input id={id} {...placeholder} {...described} value={text} onInput={(e) => set(f.key, (e.target as HTMLInputElement).value)} />;
        }
        return (
          <div class="field" key={at}>
            <label for={id}>{configLabel(f.key)}</label>
            {control}
            {errorLine}
          </div>
        );
      })}
    </>
  );
}
