import { LANG_TAGS, locale } from '../i18n/i18n.js';

/** US dollars in the current locale, to a millionth (agent-obs costs are per check: docs/api/agent-obs.md "Cost and budget"). */
export function formatUsd(usd: number): string {
  return new Intl.NumberFormat(LANG_TAGS[locale()], { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: 6 }).format(usd);
}

/** An amount in the currency's minor unit (cents) in the current locale, as invoices carry it (docs/api/billing.md). */
export function formatMinor(amount: number, currency: string): string {
  const code = currency.toUpperCase();
  const digits = new Intl.NumberFormat('en', { style: 'currency', currency: code }).resolvedOptions().maximumFractionDigits ?? 2;
  return new Intl.NumberFormat(LANG_TAGS[locale()], { style: 'currency', currency: code }).format(amount / 10 ** digits);
}
