import { PAGE_THEMES } from '../../api/vocabulary.js';
import { Field } from '../../components/Field.js';
import { t } from '../../i18n/i18n.js';
import type { PageValues } from './page-values.js';

const str = (e: Event) => (e.target as HTMLInputElement).value;

/**
 * A status page's own fields (docs/api/status-pages.md "Status pages"): slug, title,
 * description, custom domain, theme, logo, public or password-protected (the password is asked
 * for when the page is not public; blank keeps the saved one), days of history.
 */
export function PageFields({ values: v, set, protectedNow }: { values: PageValues; set: (p: Partial<PageValues>) => void; protectedNow: boolean }) {
  return (
    <div class="narrow">
      <Field id="sp-slug" label={t('sp.slug')} hint={t('sp.slug_hint')}>
        <input id="sp-slug" required maxLength={63} pattern="[a-z0-9]([a-z0-9\-]*[a-z0-9])?" aria-describedby="sp-slug-hint" value={v.slug} onInput={(e) => set({ slug: str(e) })} />
      </Field>
      <Field id="sp-title" label={t('sp.page_title')}><input id="sp-title" required maxLength={200} value={v.title} onInput={(e) => set({ title: str(e) })} /></Field>
      <Field id="sp-description" label={t('sp.description')}>
        <textarea id="sp-description" rows={3} maxLength={2000} value={v.description} onInput={(e) => set({ description: str(e) })} />
      </Field>
      <Field id="sp-domain" label={t('sp.custom_domain')} hint={t('sp.domain_hint')}>
        <input id="sp-domain" maxLength={253} placeholder="status.example.com" aria-describedby="sp-domain-hint" value={v.custom_domain} onInput={(e) => set({ custom_domain: str(e) })} />
      </Field>
      <div class="inline">
        <Field id="sp-theme" label={t('sp.theme')}>
          <select id="sp-theme" value={v.theme} onChange={(e) => set({ theme: str(e) as PageValues['theme'] })}>
            {PAGE_THEMES.map((th) => <option key={th} value={th}>{t(`theme.${th}`)}</option>)}
          </select>
        </Field>
        <Field id="sp-history" label={t('sp.history_days')}>
          <input id="sp-history" type="number" required min={1} max={365} value={v.history_days} onInput={(e) => set({ history_days: str(e) })} />
        </Field>
      </div>
      <Field id="sp-logo" label={t('sp.logo_url')}>
        <input id="sp-logo" type="url" maxLength={2048} placeholder="https://" value={v.logo_url} onInput={(e) => set({ logo_url: str(e) })} />
      </Field>
      <fieldset>
        <legend>{t('sp.visibility')}</legend>
        <label class="check"><input type="radio" name="sp-visibility" checked={v.is_public} onChange={() => set({ is_public: true })} />{t('sp.public')}</label>
        <label class="check"><input type="radio" name="sp-visibility" checked={!v.is_public} onChange={() => set({ is_public: false })} />{t('sp.password_protected')}</label>
        {!v.is_public && (
          <Field id="sp-password" label={t('sp.password')} hint={protectedNow ? t('sp.password_keep') : t('sp.password_hint')}>
            <input id="sp-password" type="password" autoComplete="new-password" minLength={8} maxLength={200} required={!protectedNow} aria-describedby="sp-password-hint" value={v.password} onInput={(e) => set({ password: str(e) })} />
          </Field>
        )}
      </fieldset>
    </div>
  );
}
