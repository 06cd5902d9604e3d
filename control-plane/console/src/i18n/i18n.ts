import type { Profile } from '@vantage/shared-protocol';
import { cn } from './cn.js';
import { en, type MessageKey, type Messages } from './en.js';
import { tw } from './tw.js';

export type { MessageKey };
/** Console locales: the API's profile locales (en, cn, tw); the check below fails the build if they drift apart. */
export type Locale = Profile['locale'];
export const LOCALES = ['en', 'cn', 'tw'] as const satisfies readonly Locale[];
true satisfies (Exclude<Locale, (typeof LOCALES)[number]> extends never ? true : false);

const TABLES: Record<Locale, Messages> = { en, cn, tw };
/** BCP 47 tags for `lang` and number/date formatting. */
export const LANG_TAGS: Record<Locale, string> = { en: 'en', cn: 'zh-Hans', tw: 'zh-Hant' };

let current: Locale = 'en';

/** The locale kept from the last visit, else the browser's (zh-TW/HK → tw, zh → cn), else en. */
export function initialLocale(): Locale {
  const kept = localStorage.getItem('vantage.locale');
  if (kept && (LOCALES as readonly string[]).includes(kept)) return kept as Locale;
  const nav = navigator.language.toLowerCase();
  if (/^zh-(tw|hk|mo|hant)/.test(nav)) return 'tw';
  if (nav.startsWith('zh')) return 'cn';
  return 'en';
}

/** Switch the locale of every later `t` call (the shell re-renders the pages). */
export function setLocale(locale: Locale): void {
  current = locale;
  localStorage.setItem('vantage.locale', locale);
  document.documentElement.lang = LANG_TAGS[locale];
}

export function locale(): Locale { return current; }

/** The message `key` in the current locale, `{name}` placeholders filled from `vars`. */
export function t(key: MessageKey, vars: Record<string, string | number> = {}): string {
  return TABLES[current][key].replace(/\{(\w+)\}/g, (m, name: string) => (name in vars ? String(vars[name]) : m));
}

/** A date-time in the current locale, or '' for null. */
export function formatTime(iso: string | null): string {
  return iso ? new Date(iso).toLocaleString(LANG_TAGS[current]) : '';
}
