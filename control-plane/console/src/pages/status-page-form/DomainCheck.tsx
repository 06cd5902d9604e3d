import { useState } from 'preact/hooks';
import type { StatusPage, StatusPageDomainCheck } from '@vantage/shared-protocol';
import { api } from '../../api/client.js';
import { useAction } from '../../api/use-action.js';
import { FormError } from '../../components/states.js';
import { t } from '../../i18n/i18n.js';

/** The custom domain's DNS check (POST /v1/status-pages/{id}/domain-check): the CNAME to add and whether it is there. */
export function DomainCheck({ page }: { page: StatusPage }) {
  const [result, setResult] = useState<StatusPageDomainCheck | null>(null);
  const action = useAction();
  const run = () => action.run(async () => {
    setResult(await api<StatusPageDomainCheck>('POST', `/v1/status-pages/${encodeURIComponent(page.id)}/domain-check`));
  });
  return (
    <>
      <h2>{t('sp.domain_check')}</h2>
      <p class="hint">{t('sp.domain_check_intro', { domain: page.custom_domain ?? '' })}</p>
      <button type="button" onClick={() => void run()}>{t('sp.domain_check_run')}</button>
      <FormError id="sp-domain-error" error={action.error} />
      {result && (
        <div role="status" class="secret">
          <p><span class={`badge ${result.ok ? 'state-up' : 'state-down'}`}>{result.ok ? t('sp.domain_ok') : t('sp.domain_not_ok')}</span> {result.message}</p>
          <code>{`${result.custom_domain}. CNAME ${result.expected_target}.`}</code>
        </div>
      )}
    </>
  );
}
