import { useState } from 'preact/hooks';
import { api } from '../../api/client.js';
import { useSubmit } from '../../api/use-submit.js';
import { VERDICT_PAYMENTS, VERDICT_PRICES, VERDICT_TEMPLATE_LIST } from '../../api/vocabulary.js';
import { Field } from '../../components/Field.js';
import { Link } from '../../components/Link.js';
import { Refusal } from '../../components/Refusal.js';
import { fromLocalInput, toLocalInput } from '../../components/time.js';
import { t } from '../../i18n/i18n.js';

type Created = { order_id: string; pay_url: string; payment_method: string; price_cny: number };
const DAY_MS = 86_400_000;

/**
 * Order a report (POST /v1/verdict/orders): template, a target you monitor or probed, the window
 * (the last 7 days to start with), notes and how to pay; then the order's link and, for a charge,
 * where to pay (docs/api/verdicts.md "Create").
 */
export function OrderForm({ created }: { created: () => void }) {
  const [template, setTemplate] = useState<(typeof VERDICT_TEMPLATE_LIST)[number]>('uptime_sla');
  const [target, setTarget] = useState('');
  const [start, setStart] = useState(() => toLocalInput(new Date(Date.now() - 7 * DAY_MS)));
  const [end, setEnd] = useState(() => toLocalInput(new Date()));
  const [notes, setNotes] = useState('');
  const [payment, setPayment] = useState('');
  const [made, setMade] = useState<Created | null>(null);
  const { busy, error, submit } = useSubmit(async () => {
    setMade(null);
    setMade(await api<Created>('POST', '/v1/verdict/orders', {
      template, target: target.trim(), time_window_start: fromLocalInput(start), time_window_end: fromLocalInput(end),
      ...(notes.trim() ? { notes: notes.trim() } : {}), ...(payment ? { payment_method: payment } : {}),
    }));
    created();
  });
  return (
    <>
      <h2>{t('verdicts.new')}</h2>
      <form onSubmit={submit} class="narrow">
        <Field id="vo-template" label={t('verdicts.template')}>
          <select id="vo-template" value={template} onChange={(e) => setTemplate((e.target as HTMLSelectElement).value as typeof template)}>
            {VERDICT_TEMPLATE_LIST.map((k) => <option key={k} value={k}>{t(`verdicts.template.${k}`)} ({t('verdicts.cny', { n: VERDICT_PRICES[k] })})</option>)}
          </select>
        </Field>
        <Field id="vo-target" label={t('verdicts.target')} hint={t('verdicts.target_hint')}><input id="vo-target" required maxLength={2048} value={target} onInput={(e) => setTarget((e.target as HTMLInputElement).value)} /></Field>
        <Field id="vo-start" label={t('verdicts.window_start')}><input id="vo-start" type="datetime-local" required value={start} onInput={(e) => setStart((e.target as HTMLInputElement).value)} /></Field>
        <Field id="vo-end" label={t('verdicts.window_end')}><input id="vo-end" type="datetime-local" required value={end} onInput={(e) => setEnd((e.target as HTMLInputElement).value)} /></Field>
        <Field id="vo-notes" label={t('verdicts.notes')}><textarea id="vo-notes" rows={2} maxLength={2000} value={notes} onInput={(e) => setNotes((e.target as HTMLTextAreaElement).value)} /></Field>
        <Field id="vo-payment" label={t('verdicts.payment')}>
          <select id="vo-payment" value={payment} onChange={(e) => setPayment((e.target as HTMLSelectElement).value)}>
            <option value="">{t('verdicts.payment.default')}</option>
            {VERDICT_PAYMENTS.map((p) => <option key={p} value={p}>{t(`verdicts.payment.${p}`)}</option>)}
          </select>
        </Field>
        <Refusal id="vo-error" error={error} />
        <button type="submit" class="primary" disabled={busy}>{t('verdicts.order')}</button>
      </form>
      {made && (
        <div class="secret" role="status">
          <p>{t('verdicts.ordered', { n: made.price_cny })} <Link href={`/verdicts/${made.order_id}`}>{t('verdicts.open_order')}</Link></p>
          {made.pay_url && <p><a href={made.pay_url}>{t('verdicts.pay')}</a></p>}
        </div>
      )}
    </>
  );
}
