import { LOCALES, t, type Locale } from '../i18n/i18n.js';
import { THEMES, type Theme } from '../theme.js';

/** Language and theme pickers of the header (labelled selects, so keyboard and screen readers reach them). */
export function Preferences({ locale, theme, onLocale, onTheme }: { locale: Locale; theme: Theme; onLocale: (l: Locale) => void; onTheme: (t: Theme) => void }) {
  return (
    <div class="prefs">
      <label>
        <span>{t('prefs.locale')}</span>
        <select value={locale} onChange={(e) => onLocale((e.target as HTMLSelectElement).value as Locale)}>
          {LOCALES.map((l) => <option key={l} value={l}>{t(`locale.${l}`)}</option>)}
        </select>
      </label>
      <label>
        <span>{t('prefs.theme')}</span>
        <select value={theme} onChange={(e) => onTheme((e.target as HTMLSelectElement).value as Theme)}>
          {THEMES.map((th) => <option key={th} value={th}>{t(`theme.${th}`)}</option>)}
        </select>
      </label>
    </div>
  );
}
