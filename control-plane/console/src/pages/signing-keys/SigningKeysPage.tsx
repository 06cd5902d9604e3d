import { useState } from 'preact/hooks';
import type { AttestKey, KeyCeremony } from '@vantage/shared-protocol';
import { useAdministrator } from '../../api/use-admin.js';
import { useApi } from '../../api/use-api.js';
import { Listed } from '../../components/Listed.js';
import { Pager } from '../../components/Pager.js';
import { ErrorState, Loading } from '../../components/states.js';
import { t } from '../../i18n/i18n.js';
import { navigate, useLocation } from '../../router.js';
import { CeremoniesTable } from './CeremoniesTable.js';
import { CeremonyForm } from './CeremonyForm.js';
import { KeysTable } from './KeysTable.js';

type CeremonyPage = { ceremonies: KeyCeremony[]; total: number; limit: number; offset: number };
const PAGE = 20;

/**
 * The deployment's signing keys (GET /v1/attest/keys, public: open signed in or not) and, for its
 * administrators (GET /v1/account/administrator), the key ceremony log (GET /v1/attest/ceremonies,
 * 20 a page; `page` in the URL) and the ceremony form (rotate, revoke) (docs/api/verdicts.md "Keys").
 */
export default function SigningKeysPage() {
  const { query } = useLocation();
  const page = Number(query.get('page') ?? '1') || 1;
  const keys = useApi<AttestKey[]>('/v1/attest/keys');
  const admin = useAdministrator();
  const ceremonies = useApi<CeremonyPage>(admin.data?.is_admin ? `/v1/attest/ceremonies?limit=${PAGE}&offset=${(page - 1) * PAGE}` : null);
  const [done, setDone] = useState<string | null>(null);
  const after = (message: string) => { setDone(message); keys.reload(); ceremonies.reload(); };
  return (
    <section>
      <h1>{t('signing.title')}</h1>
      <p class="hint">{t('signing.intro')}</p>
      {done && <p role="status" data-testid="ceremony-done">{done}</p>}
      <Listed loaded={keys} items={(d) => d} empty={t('signing.empty')}>
        {(d) => <KeysTable keys={d} />}
      </Listed>
      {admin.error ? <ErrorState error={admin.error} retry={admin.reload} />
        : !admin.data ? null
        : !admin.data.is_admin ? <p class="hint">{t('signing.admins_only')}</p>
        : ceremonies.error ? <ErrorState error={ceremonies.error} retry={ceremonies.reload} />
        : !ceremonies.data || !keys.data ? <Loading />
        : (
          <>
            <CeremonyForm keys={keys.data} done={after} />
            <h2>{t('signing.ceremonies')}</h2>
            <Listed loaded={ceremonies} items={(c) => c.ceremonies} empty={t('signing.ceremonies_empty')}>
              {(c) => (
                <>
                  <CeremoniesTable ceremonies={c.ceremonies} />
                  <Pager page={page} pages={Math.max(1, Math.ceil(c.total / PAGE))} total={c.total} onPage={(p) => navigate(p > 1 ? `/signing-keys?page=${p}` : '/signing-keys', true)} />
                </>
              )}
            </Listed>
          </>
        )}
    </section>
  );
}
