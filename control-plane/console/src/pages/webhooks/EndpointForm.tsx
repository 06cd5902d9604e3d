import { useState } from 'preact/hooks';
import { WEBHOOK_EVENTS } from '../../api/vocabulary.js';
import { api } from '../../api/client.js';
import { useSubmit } from '../../api/use-submit.js';
import { Field } from '../../components/Field.js';
import { ShownOnce } from '../../components/ShownOnce.js';
import { FormError } from '../../components/states.js';
import { t } from '../../i18n/i18n.js';
import { keptTeam, teamBody } from '../../api/team-scope.js';

/** Create a webhook endpoint (POST /v1/webhook-endpoints): URL, events, description; the `whsec_` signing secret is shown once. */
export function EndpointForm({ created }: { created: () => void }) {
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [events, setEvents] = useState<string[]>([]);
  const [secret, setSecret] = useState<string | null>(null);
  const { busy, error, submit } = useSubmit(async () => {
    setSecret(null);
    const made = await api<{ secret: string }>('POST', '/v1/webhook-endpoints', { url, events, ...(description ? { description } : {}), ...teamBody(keptTeam()) });
    setSecret(made.secret);
    setUrl(''); setDescription(''); setEvents([]);
    created();
  });
  const toggle = (name: string, on: boolean) => setEvents(on ? [...events, name] : events.filter((e) => e !== name));
  return (
    <>
      <h2>{t('webhooks.new')}</h2>
      <form onSubmit={submit} class="narrow">
        <Field id="wh-url" label={t('channels.field.url')}><input id="wh-url" type="url" required maxLength={2048} value={url} onInput={(e) => setUrl((e.target as HTMLInputElement).value)} /></Field>
        <Field id="wh-desc" label={t('webhooks.description')}><input id="wh-desc" maxLength={500} value={description} onInput={(e) => setDescription((e.target as HTMLInputElement).value)} /></Field>
        <fieldset>
          <legend>{t('webhooks.events')}</legend>
          <div class="checks">{WEBHOOK_EVENTS.map((name) => (
            <label class="check" key={name}><input type="checkbox" checked={events.includes(name)} onChange={(e) => toggle(name, (e.target as HTMLInputElement).checked)} /><code>{name}</code></label>
          ))}</div>
        </fieldset>
        <FormError id="wh-error" error={error} />
        <button type="submit" class="primary" disabled={busy || events.length === 0}>{t('webhooks.create')}</button>
      </form>
      {secret && <ShownOnce key={secret} intro={t('webhooks.secret_once')} value={secret} copyLabel={t('webhooks.copy_secret')} testId="webhook-secret" />}
    </>
  );
}
