import { useState } from 'preact/hooks';
import type { Passkey } from '@vantage/shared-protocol';
import { PASSKEY_NAME_MAX } from '../../api/vocabulary.js';
import { api } from '../../api/client.js';
import { useApi } from '../../api/use-api.js';
import { useAction } from '../../api/use-action.js';
import { useSubmit } from '../../api/use-submit.js';
import { Field } from '../../components/Field.js';
import { Listed } from '../../components/Listed.js';
import { FormError } from '../../components/states.js';
import { formatTime, t } from '../../i18n/i18n.js';

/**
 * Make a passkey in the browser from the server's creation options (W3C WebAuthn Level 3
 * `parseCreationOptionsFromJSON`, `navigator.credentials.create`) and return its JSON form.
 */
async function createCredential(options: unknown): Promise<unknown> {
  const publicKey = PublicKeyCredential.parseCreationOptionsFromJSON(options as PublicKeyCredentialCreationOptionsJSON);
  const credential = await navigator.credentials.create({ publicKey }) as PublicKeyCredential | null;
  if (!credential) throw new Error(t('passkeys.cancelled'));
  return credential.toJSON();
}

/**
 * The account's passkeys (docs/api/accounts.md "Passkeys"): the list (name, kind, backed up,
 * created, last used), remove, and add one: options from POST /v1/account/passkeys/options, the
 * browser's credential, then POST /v1/account/passkeys with the name.
 */
export function Passkeys({ changed }: { changed: () => void }) {
  const passkeys = useApi<Passkey[]>('/v1/account/passkeys');
  const [name, setName] = useState('');
  const supported = typeof PublicKeyCredential !== 'undefined' && 'parseCreationOptionsFromJSON' in PublicKeyCredential;
  const add = useSubmit(async () => {
    const { challenge_id, options } = await api<{ challenge_id: string; options: unknown }>('POST', '/v1/account/passkeys/options');
    const credential = await createCredential(options);
    await api('POST', '/v1/account/passkeys', { challenge_id, name, credential });
    setName('');
    passkeys.reload(); changed();
  });
  const action = useAction();
  const remove = (p: Passkey) => action.run(async () => {
    if (!confirm(t('passkeys.remove_confirm', { name: p.name }))) return;
    await api('DELETE', `/v1/account/passkeys/${encodeURIComponent(p.id)}`);
    passkeys.reload(); changed();
  });
  return (
    <>
      <h2>{t('passkeys.title')}</h2>
      <p class="hint">{t('passkeys.intro')}</p>
      <FormError id="passkeys-error" error={action.error} />
      <Listed loaded={passkeys} items={(d) => d} empty={t('passkeys.empty')}>
        {(d) => (
          <table>
            <thead><tr><th scope="col">{t('passkeys.name')}</th><th scope="col">{t('passkeys.kind')}</th><th scope="col">{t('keys.created')}</th><th scope="col">{t('keys.last_used')}</th><th scope="col"><span class="sr-only">{t('events.actions')}</span></th></tr></thead>
            <tbody>{d.map((p) => (
              <tr key={p.id}>
                <td>{p.name}</td>
                <td>{p.device_type === 'multiDevice' ? t('passkeys.synced') : t('passkeys.device_bound')}</td>
                <td>{formatTime(p.created_at)}</td><td>{p.last_used_at ? formatTime(p.last_used_at) : t('keys.never')}</td>
                <td><button type="button" class="danger" aria-label={t('passkeys.remove_named', { name: p.name })} onClick={() => void remove(p)}>{t('passkeys.remove')}</button></td>
              </tr>
            ))}</tbody>
          </table>
        )}
      </Listed>
      {supported ? (
        <form onSubmit={add.submit} class="inline">
          <Field id="passkey-name" label={t('passkeys.name')}>
            <input id="passkey-name" required maxLength={PASSKEY_NAME_MAX} value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
          </Field>
          <button type="submit" class="primary" disabled={add.busy}>{t('passkeys.add')}</button>
        </form>
      ) : <p class="hint">{t('passkeys.unsupported')}</p>}
      <FormError id="passkey-add-error" error={add.error} />
    </>
  );
}
