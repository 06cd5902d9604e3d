import { useState } from 'preact/hooks';
import type { z } from 'zod';
import type { AttestKey, keyCeremonyRequestSchema } from '@vantage/shared-protocol';
import { api } from '../../api/client.js';
import { useSubmit } from '../../api/use-submit.js';
import { Field } from '../../components/Field.js';
import { Refusal } from '../../components/Refusal.js';
import { t } from '../../i18n/i18n.js';

type CeremonyRequest = z.input<typeof keyCeremonyRequestSchema>;

/**
 * Witness lines as the API's actors: `who, role` (split at the last comma; no comma: role
 * `witness`), blank lines skipped. The API checks lengths and the count (at most 10).
 */
export function witnessesOf(text: string): NonNullable<CeremonyRequest['witnesses']> {
  return text.split('\n').map((line) => line.trim()).filter(Boolean).map((line) => {
    const at = line.lastIndexOf(',');
    return at < 0 ? { identity: line, role: 'witness' } : { identity: line.slice(0, at).trim(), role: line.slice(at + 1).trim() };
  });
}

/**
 * An administrator's key ceremony (docs/api/verdicts.md "Key ceremonies"): rotate
 * (POST /v1/admin/attest/keys/rotate) or revoke one key that is not revoked yet
 * (POST /v1/admin/attest/keys/{key_id}/revoke, confirmed first), with witnesses, an evidence URL and
 * notes; only what is filled in is sent. A refusal is shown with the fields it names; `done` gets
 * the key version now active or revoked.
 */
export function CeremonyForm({ keys, done }: { keys: AttestKey[]; done: (message: string) => void }) {
  const [target, setTarget] = useState('rotate');
  const [witnesses, setWitnesses] = useState('');
  const [evidence_url, setEvidence] = useState('');
  const [notes, setNotes] = useState('');
  const revocable = keys.filter((k) => k.status !== 'revoked');
  const { busy, error, submit } = useSubmit(async () => {
    const body: CeremonyRequest = {
      ...(witnesses.trim() ? { witnesses: witnessesOf(witnesses) } : {}),
      ...(evidence_url.trim() ? { evidence_url: evidence_url.trim() } : {}),
      ...(notes.trim() ? { notes } : {}),
    };
    const key = revocable.find((k) => k.key_id === target);
    if (key && !confirm(t('signing.confirm_revoke', { n: key.key_version }))) return;
    const made = key
      ? (await api<{ key: AttestKey }>('POST', `/v1/admin/attest/keys/${encodeURIComponent(key.key_id)}/revoke`, body)).key
      : (await api<{ key: AttestKey }>('POST', '/v1/admin/attest/keys/rotate', body)).key;
    setTarget('rotate'); setWitnesses(''); setEvidence(''); setNotes('');
    done(t(key ? 'signing.revoked' : 'signing.rotated', { n: made.key_version }));
  });
  return (
    <form onSubmit={submit} class="narrow" aria-describedby="ceremony-intro">
      <h2>{t('signing.ceremony')}</h2>
      <p class="hint" id="ceremony-intro">{t('signing.ceremony_intro')}</p>
      <Field id="ceremony-action" label={t('signing.action')}>
        <select id="ceremony-action" value={target} onChange={(e) => setTarget((e.target as HTMLSelectElement).value)}>
          <option value="rotate">{t('signing.action.rotate')}</option>
          {revocable.map((k) => <option key={k.key_id} value={k.key_id}>{t('signing.action.revoke', { n: k.key_version, id: k.key_id })}</option>)}
        </select>
      </Field>
      <Field id="ceremony-witnesses" label={t('signing.witnesses')} hint={t('signing.witnesses_hint')}>
        <textarea id="ceremony-witnesses" rows={3} value={witnesses} aria-describedby="ceremony-witnesses-hint" onInput={(e) => setWitnesses((e.target as HTMLTextAreaElement).value)} />
      </Field>
      <Field id="ceremony-evidence" label={t('signing.evidence_url')} hint={t('signing.evidence_hint')}>
        <input id="ceremony-evidence" type="url" maxLength={2048} value={evidence_url} aria-describedby="ceremony-evidence-hint" onInput={(e) => setEvidence((e.target as HTMLInputElement).value)} />
      </Field>
      <Field id="ceremony-notes" label={t('signing.notes')}>
        <textarea id="ceremony-notes" rows={2} maxLength={2000} value={notes} onInput={(e) => setNotes((e.target as HTMLTextAreaElement).value)} />
      </Field>
      <Refusal id="ceremony-error" error={error} />
      <button type="submit" class="primary" disabled={busy}>{t('signing.submit')}</button>
    </form>
  );
}
