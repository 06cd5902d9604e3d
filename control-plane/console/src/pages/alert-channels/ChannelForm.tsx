import { useState } from 'preact/hooks';
import type { AlertChannel, AlertChannelCreated, AlertChannelType } from '@vantage/shared-protocol';
import { api } from '../../api/client.js';
import { useSubmit } from '../../api/use-submit.js';
import { ShownOnce } from '../../components/ShownOnce.js';
import { FormError } from '../../components/states.js';
import { t } from '../../i18n/i18n.js';
import { keptTeam, teamBody } from '../../api/team-scope.js';
import { refusedFields } from '../monitor-form/config-values.js';
import { TopField } from '../monitor-form/TopField.js';
import { CHANNEL_FORMS, channelConfig, channelPatchConfig, channelValues } from './channel-fields.js';

const TYPES = Object.keys(CHANNEL_FORMS) as AlertChannelType[];

/**
 * Create a channel (POST /v1/alert-channels): name, type and the type's config; a webhook
 * channel's generated signing secret is shown once. Or edit `editing` (PATCH
 * /v1/alert-channels/{id}): name and config, the type fixed; secrets are write-only (their fields
 * start empty, showing the masked value, and an empty one keeps the stored secret). The fields a
 * refusal names (`details.fields`: `name`, `config.<field>`) are shown at them.
 */
export function ChannelForm({ created, editing, cancel }: { created: () => void; editing?: AlertChannel; cancel?: () => void }) {
  const [name, setName] = useState(editing?.name ?? '');
  const [type, setType] = useState<AlertChannelType>(editing?.type ?? 'email');
  const fields = CHANNEL_FORMS[type] ?? [];
  const [values, setValues] = useState<Record<string, string>>(editing ? channelValues(fields, editing.config) : {});
  const [secret, setSecret] = useState<string | null>(null);
  const { busy, error, submit } = useSubmit(async () => {
    setSecret(null);
    if (editing) {
      await api<AlertChannel>('PATCH', `/v1/alert-channels/${encodeURIComponent(editing.id)}`, { name, config: channelPatchConfig(fields, values) });
      created();
      return;
    }
    const channel = await api<AlertChannelCreated>('POST', '/v1/alert-channels', { name, type, config: channelConfig(fields, values), ...teamBody(keptTeam()) });
    if (channel.secret) setSecret(channel.secret);
    setName(''); setValues({});
    created();
  });
  const errors = refusedFields(error) ?? {};
  const masked = (key: string) => (editing && typeof editing.config[key] === 'string' ? editing.config[key] as string : undefined);
  return (
    <>
      <h2>{editing ? t('channels.edit_title', { name: editing.name }) : t('channels.new')}</h2>
      <form onSubmit={submit} class="narrow" aria-describedby={error ? 'channel-error' : undefined}>
        <TopField id="ch-name" label={t('channels.name')} error={errors.name}>
          {(a) => <input id="ch-name" {...a} required maxLength={200} value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />}
        </TopField>
        <TopField id="ch-type" label={t('channels.type')} error={errors.type}>
          {(a) => (
            <select id="ch-type" {...a} value={type} disabled={!!editing} onChange={(e) => { setType((e.target as HTMLSelectElement).value as AlertChannelType); setValues({}); }}>
              {(editing ? [editing.type] : TYPES).map((ty) => <option key={ty} value={ty}>{t(`channels.type.${ty}`)}</option>)}
            </select>
          )}
        </TopField>
        {fields.map((f) => {
          const id = `ch-${f.key}`;
          const hint = f.kind === 'list' ? t('channels.list_hint') : f.kind === 'secret' && masked(f.key) ? t('channels.secret_keep', { masked: masked(f.key)! }) : undefined;
          return (
            <TopField key={`${type}.${f.key}`} id={id} label={t(f.label)} error={errors[`config.${f.key}`]}>
              {(a) => <>
                <input id={id} {...a} type={f.kind === 'secret' ? 'password' : 'text'} autoComplete="off" required={f.required && !(editing && f.kind === 'secret')} maxLength={2048}
                  aria-describedby={[a['aria-describedby'], hint && `${id}-hint`].filter(Boolean).join(' ') || undefined}
                  value={values[f.key] ?? ''} onInput={(e) => setValues({ ...values, [f.key]: (e.target as HTMLInputElement).value })} />
                {hint && <p class="hint" id={`${id}-hint`}>{hint}</p>}
              </>}
            </TopField>
          );
        })}
        <FormError id="channel-error" error={error} />
        <button type="submit" class="primary" disabled={busy}>{editing ? t('channels.save') : t('channels.create')}</button>
        {cancel && <button type="button" onClick={cancel}>{t('form.cancel')}</button>}
      </form>
      {secret && <ShownOnce key={secret} intro={t('channels.secret_once')} value={secret} copyLabel={t('keys.copy')} testId="channel-secret" />}
    </>
  );
}
