import { useEffect, useState } from 'preact/hooks';
import type { AlertChannel, OncallNotificationRules } from '@vantage/shared-protocol';
import { CONTACT_METHODS, ONCALL_BOUNDS } from '../../api/vocabulary.js';
import { api } from '../../api/client.js';
import { useApi } from '../../api/use-api.js';
import { useSubmit } from '../../api/use-submit.js';
import { Link } from '../../components/Link.js';
import { OrderedPicker } from '../../components/OrderedPicker.js';
import { Refusal } from '../../components/Refusal.js';
import { ErrorState, Loading } from '../../components/states.js';
import { t } from '../../i18n/i18n.js';

const METHODS: readonly string[] = CONTACT_METHODS;

/**
 * The caller's on-call contact methods (GET/PUT /v1/oncall/notification-rules, docs/api/teams.md
 * "On-call contacts"): up to 5 of its own personal alert channels of type e-mail, SMS or webhook,
 * in paging order; none means the account's e-mail address.
 */
export default function ContactsPage() {
  const rules = useApi<OncallNotificationRules>('/v1/oncall/notification-rules');
  const channels = useApi<{ items: AlertChannel[] }>('/v1/alert-channels');
  // null until the saved rules fill the picker, which is not shown before (a choice made meanwhile would be overwritten).
  const [picked, setChosen] = useState<string[] | null>(null);
  const chosen = picked ?? [];
  const [saved, setSaved] = useState(false);
  useEffect(() => { if (rules.data) setChosen(rules.data.items.map((x) => x.channel_id)); }, [rules.data]);
  const { busy, error, submit } = useSubmit(async () => {
    setSaved(false);
    await api<OncallNotificationRules>('PUT', '/v1/oncall/notification-rules', { channel_ids: chosen });
    setSaved(true);
    rules.reload();
  });
  const failed = rules.error ?? channels.error;
  if (failed) return <ErrorState error={failed} retry={() => { rules.reload(); channels.reload(); }} />;
  if (!rules.data || !channels.data || !picked) return <Loading />;
  const own = channels.data.items.filter((c) => c.team_id === null && METHODS.includes(c.type));
  const choices = own.map((c) => ({ value: c.id, label: `${c.name} (${t(`channels.type.${c.type}`)})` }));
  return (
    <section>
      <p><Link href="/oncall">{t('schedule.back')}</Link></p>
      <h1>{t('contacts.title')}</h1>
      <p class="hint">{t('contacts.intro')}</p>
      <p role="status">{rules.data.items.length === 0 ? t('contacts.default') : t('contacts.current', { list: rules.data.items.map((x) => x.name).join(', ') })}</p>
      {own.length === 0 && chosen.length === 0 ? (
        <p class="hint">{t('contacts.no_channels')} <Link href="/alerts/channels">{t('contacts.channels_link')}</Link></p>
      ) : (
        <form onSubmit={submit} class="narrow">
          <OrderedPicker id="contacts" label={t('contacts.channels')} choices={choices} value={chosen} onChange={(v) => { setChosen(v); setSaved(false); }} max={ONCALL_BOUNDS.contacts_max} />
          <Refusal id="contacts-error" error={error} />
          <button type="submit" class="primary" disabled={busy}>{t('contacts.save')}</button>
          {saved && <p role="status">{t('contacts.saved')}</p>}
        </form>
      )}
    </section>
  );
}
