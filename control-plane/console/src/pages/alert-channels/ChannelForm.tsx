import { useState } from 'preact/hooks';
import type { AlertChannelCreated, AlertChannelType } from '@vantage/shared-protocol';
import { api } from '../../api/client.js';
import { useSubmit } from '../../api/use-submit.js';
import { Field } from '../../components/Field.js';
import { ShownOnce } from '../../components/ShownOnce.js';
import { FormError } from '../../components/states.js';
import { t } from '../../i18n/i18n.js';
import { CHANNEL_FORMS, channelConfig } from './channel-fields.js';
import { keptTeam, teamBody } from '../../api/team-scope.js';

const TYPES = Object.keys(CHANNEL_FORMS) as AlertChannelType[];

/** Create a channel (POST /v1/alert-channels): name, type and the type's config; a webhook channel's generated signing secret is shown once. */
export function ChannelForm({ created }: { created: () => void }) {
  const [name, setName] = useState('');
  const [type, setType] = useState<AlertChannelType>('email');
  const [values, setValues] = useState<Record<string, string>>({});
  const [secret, setSecret] = useState<string | null>(null);
  const fields = CHANNEL_FORMS[type] ?? [];
  const { busy, error, submit } = useSubmit(async () => {
    setSecret(null);
    const channel = await api<AlertChannelCreated>('POST', '/v1/alert-channels', { name, type, config: channelConfig(fields, values), ...teamBody(keptTeam()) });
    if (channel.secret) setSecret(channel.secret);
    setName(''); setValues({});
    created();
  });
  return (
    <>
      <h2>{t('channels.new')}</h2>
      <form onSubmit={submit} class="narrow" aria-describedby={error ? 'channel-error' : undefined}>
        <Field id="ch-name" label={t('channels.name')}><input id="ch-name" required maxLength={200} value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} /></Field>
        <Field id="ch-type" label={t('channels.type')}>
          <select id="ch-type" value={type} onChange={(e) => { setType((e.target as HTMLSelectElement).value as AlertChannelType); setValues({}); }}>
            {TYPES.map((ty) => <option key={ty} value={ty}>{t(`channels.type.${ty}`)}</option>)}
          </select>
        </Field>
        {fields.map((f) => (
          <Field key={`${type}.${f.key}`} id={`ch-${f.key}`} label={t(f.label)} hint={f.kind === 'list' ? t('channels.list_hint') : undefined}>
            <input id={`ch-${f.key}`} type={f.kind === 'secret' ? 'password' : 'text'} autoComplete="off" required={f.required} maxLength={2048}
              aria-describedby={f.kind === 'list' ? `ch-${f.key}-hint` : undefined}
              value={values[f.key] ?? ''} onInput={(e) => setValues({ ...values, [f.key]: (e.target as HTMLInputElement).value })} />
          </Field>
        ))}
        <FormError id="channel-error" error={error} />
        <button type="submit" class="primary" disabled={busy}>{t('channels.create')}</button>
      </form>
      {secret && <ShownOnce key={secret} intro={t('channels.secret_once')} value={secret} copyLabel={t('keys.copy')} testId="channel-secret" />}
    </>
  );
}
