import { ApiFailure } from '../../api/client.js';
import type { FieldSpec } from './schema-fields.js';

/** What the form holds for a config: text as typed, checkboxes, nested objects and rows. */
export type RawValue = string | boolean | RawConfig | RawConfig[];
export type RawConfig = { [key: string]: RawValue };

/** A value the form could not read (JSON that does not parse): left as text, so the schema names the field. */
const asJson = (text: string): unknown => { try { return JSON.parse(text); } catch { return text; } };

/**
 * The config object the API takes (docs/api/monitors.md "Config per type") from the form's raw
 * values: empty text is left out (the API fills the default), numbers are read as numbers, lists
 * split on commas and new lines, `Name: value` lines become a record, JSON is parsed (text that
 * is not JSON is sent as text, so the schema refuses it by field).
 */
export function toConfig(fields: FieldSpec[], raw: RawConfig): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    const v = raw[f.key];
    if (v === undefined) continue;
    if (f.kind === 'boolean') { if (typeof v === 'boolean') out[f.key] = v; continue; }
    if (f.kind === 'object') {
      const nested = toConfig(f.fields, (v as RawConfig) ?? {});
      if (Object.keys(nested).length) out[f.key] = nested;
      continue;
    }
    if (f.kind === 'rows') { out[f.key] = (v as RawConfig[]).map((row) => toConfig(f.fields, row)); continue; }
    const text = String(v).trim();
    if (!text) continue;
    if (f.kind === 'number') out[f.key] = Number.isFinite(Number(text)) ? Number(text) : text;
    else if (f.kind === 'scalar') out[f.key] = /^-?\d+(\.\d+)?$/.test(text) ? Number(text) : text;
    else if (f.kind === 'list') out[f.key] = text.split(/[,\n]/).map((s) => s.trim()).filter(Boolean);
    else if (f.kind === 'pairs') out[f.key] = Object.fromEntries(text.split('\n').map((line) => line.trim()).filter(Boolean).map((line) => {
      const colon = line.indexOf(':');
      return colon < 0 ? [line, ''] : [line.slice(0, colon).trim(), line.slice(colon + 1).trim()];
    }));
    else if (f.kind === 'json') out[f.key] = asJson(text);
    else out[f.key] = text;
  }
  return out;
}

/**
 * The form's raw values for a config as the API returned it (an edit), or the schema defaults of
 * the choices and checkboxes (a new monitor: text fields stay empty and show their default).
 */
export function toRaw(fields: FieldSpec[], config: Record<string, unknown> | null): RawConfig {
  const out: RawConfig = {};
  for (const f of fields) {
    const v = config ? config[f.key] : f.fallback;
    if (f.kind === 'boolean') out[f.key] = v === true;
    else if (f.kind === 'enum') out[f.key] = v === undefined || v === null ? '' : String(v);
    else if (f.kind === 'object') out[f.key] = toRaw(f.fields, config ? (v as Record<string, unknown>) ?? {} : null);
    else if (f.kind === 'rows') out[f.key] = config && Array.isArray(v) ? v.map((row) => toRaw(f.fields, row as Record<string, unknown>)) : [];
    else if (!config || v === undefined || v === null) out[f.key] = '';
    else if (f.kind === 'list') out[f.key] = Array.isArray(v) ? v.join(', ') : String(v);
    else if (f.kind === 'pairs') out[f.key] = Object.entries(v as Record<string, string>).map(([k, val]) => `${k}: ${val}`).join('\n');
    else if (f.kind === 'json') out[f.key] = typeof v === 'string' ? v : JSON.stringify(v, null, 2);
    else out[f.key] = String(v);
  }
  return out;
}

/** Field errors keyed by dotted path under the config (`timeout_ms`, `assertions.0.value`). */
export type FieldErrors = Record<string, string>;

/** Zod issues or the API's `details.fields` as field errors; `prefix` (`config.`) is taken off the paths. */
export function errorsByPath(issues: Array<{ path: string | PropertyKey[]; message: string }>, prefix = ''): FieldErrors {
  const out: FieldErrors = {};
  for (const i of issues) {
    const path = Array.isArray(i.path) ? i.path.map(String).join('.') : String(i.path);
    const key = prefix && path.startsWith(prefix) ? path.slice(prefix.length) : path;
    out[key] ??= i.message;
  }
  return out;
}

/** The fields an API refusal names (`details.fields` of an ApiFailure) as field errors; null when it names none. */
export function refusedFields(err: unknown): FieldErrors | null {
  const listed = err instanceof ApiFailure ? (err.details?.fields as Array<{ path: string; message: string }> | undefined) : undefined;
  return listed?.length ? errorsByPath(listed) : null;
}

/** The errors under `prefix` (`config.`, `params.`) with it taken off, for the nested fields' controls. */
export function errorsUnder(errors: FieldErrors, prefix: string): FieldErrors {
  return Object.fromEntries(Object.entries(errors).filter(([k]) => k.startsWith(prefix)).map(([k, v]) => [k.slice(prefix.length), v]));
}
