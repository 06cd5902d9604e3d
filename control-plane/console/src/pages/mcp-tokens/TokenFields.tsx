import { MCP_TOKEN_KINDS } from '../../api/vocabulary.js';
import { Field } from '../../components/Field.js';
import { t } from '../../i18n/i18n.js';
import type { TokenValues } from './token-values.js';

/**
 * The fields of an MCP token (docs/api/mcp.md "Tokens" and "Lifetimes"): the type (new tokens
 * only), name, expiry, auto-renew (not for personal tokens), IP whitelist (required for service
 * tokens), the tools and regions it may use, and whether failed calls' payloads are kept.
 */
export function TokenFields({ v, set, isNew }: { v: TokenValues; set: (next: TokenValues) => void; isNew: boolean }) {
  const input = (key: 'name' | 'expires_at' | 'ip_whitelist' | 'tools' | 'regions') => ({
    id: `mcp-${key}`, value: v[key], onInput: (e: Event) => set({ ...v, [key]: (e.target as HTMLInputElement).value }),
  });
  const check = (key: 'auto_renew' | 'store_failed_payloads') => ({
    type: 'checkbox', checked: v[key], onChange: (e: Event) => set({ ...v, [key]: (e.target as HTMLInputElement).checked }),
  });
  return (
    <>
      {isNew && (
        <Field id="mcp-type" label={t('mcp.type')} hint={t(`mcp.type_hint.${v.type}`)}>
          <select id="mcp-type" value={v.type} onChange={(e) => set({ ...v, type: (e.target as HTMLSelectElement).value as TokenValues['type'] })}>
            {MCP_TOKEN_KINDS.map((k) => <option key={k} value={k}>{t(`mcp.type.${k}`)}</option>)}
          </select>
        </Field>
      )}
      <Field id="mcp-name" label={t('mcp.name')}><input {...input('name')} required maxLength={100} /></Field>
      <Field id="mcp-expires_at" label={t('mcp.expires_at')} hint={isNew ? t('mcp.expires_hint') : undefined}><input {...input('expires_at')} type="datetime-local" /></Field>
      {v.type !== 'personal' && <label class="check"><input {...check('auto_renew')} />{t('mcp.auto_renew')}</label>}
      <Field id="mcp-ip_whitelist" label={t('mcp.ip_whitelist')} hint={t('mcp.ip_whitelist_hint')}>
        <textarea {...input('ip_whitelist')} rows={3} required={v.type === 'service'} spellcheck={false} />
      </Field>
      <Field id="mcp-tools" label={t('mcp.tools')} hint={t('mcp.all_when_empty')}><input {...input('tools')} placeholder="probe_http, list_monitors" /></Field>
      <Field id="mcp-regions" label={t('mcp.regions')} hint={t('mcp.all_when_empty')}><input {...input('regions')} /></Field>
      <label class="check"><input {...check('store_failed_payloads')} />{t('mcp.store_failed_payloads')}</label>
    </>
  );
}
