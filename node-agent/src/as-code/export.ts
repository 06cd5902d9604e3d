import { ALERT_CHANNEL_SECRET_FIELDS, type AlertChannelType } from '@vantage/shared-protocol';
import { stringify } from 'yaml';
import type { ApiClient } from './client.js';
import { secretEnvName } from './env-ref.js';
import { AS_CODE_KINDS, KIND_SECTION, type AsCodeKind } from './format.js';
import { KIND_HANDLERS } from './kinds/index.js';
import { readAccountState, type AccountState, type Existing } from './state.js';

export { secretEnvName } from './env-ref.js';

function specOf(e: Existing): Record<string, unknown> {
  const handler = KIND_HANDLERS[e.kind];
  if (handler) return handler.exportSpec(e);
  if (e.kind !== 'alert_channel') {
    const { node_count, ...rest } = e.view;
    // node_count 0 is "the plan's default": left out, as a file would.
    return e.kind === 'monitor' && node_count === 0 ? rest : e.view;
  }
  const type = e.view.type as AlertChannelType;
  const config = { ...(e.view.config as Record<string, unknown>) };
  for (const field of ALERT_CHANNEL_SECRET_FIELDS[type]) {
    if (config[field] === undefined) continue;
    const v = config[field];
    config[field] = v && typeof v === 'object'
      ? Object.fromEntries(Object.keys(v).map((k) => [k, { env: secretEnvName(e.name, `${field}_${k}`) }]))
      : { env: secretEnvName(e.name, field) };
  }
  return { type, config };
}

/**
 * The account's resources as a version 1 document (format.ts): every personal resource of each
 * kind that has a stable name, sorted by name. Secrets (channel secrets, a status page's
 * password) become `{ env: VANTAGE_SECRET_… }` references (the API never returns them), so the
 * document can be committed as it is.
 */
export function documentOf(state: AccountState, kinds: readonly AsCodeKind[] = AS_CODE_KINDS): Record<string, unknown> {
  const doc: Record<string, unknown> = { version: 1 };
  for (const kind of kinds) {
    const entries = [...state[kind].values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    doc[KIND_SECTION[kind]] = Object.fromEntries(entries.map((e) => [e.name, specOf(e)]));
  }
  return doc;
}

/** `vantage export`: the account as YAML (or JSON with `format: 'json'`). @throws ApiCallError */
export async function exportAccount(api: ApiClient, format: 'yaml' | 'json' = 'yaml'): Promise<string> {
  const doc = documentOf(await readAccountState(api));
  return format === 'json' ? `${JSON.stringify(doc, null, 2)}\n` : stringify(doc, { lineWidth: 0 });
}
