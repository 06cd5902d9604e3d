import { useState } from 'preact/hooks';
import type { AttestVerifyResponse } from '@vantage/shared-protocol';
import { FormError } from '../../components/states.js';
import { formatTime, t } from '../../i18n/i18n.js';

/** The largest file the API takes (docs/api/verdicts.md "Verification": 413 beyond). */
const MAX_BYTES = 10 * 1024 * 1024;

/** `POST /v1/attest/verify` with the file as the body: the answer has no envelope (docs/api/verdicts.md "Verification"). */
async function verify(file: File): Promise<AttestVerifyResponse> {
  if (file.size > MAX_BYTES) throw new Error(t('verify.too_big'));
  const res = await fetch('/v1/attest/verify', { method: 'POST', headers: { 'content-type': 'application/pdf' }, body: file });
  const json = (await res.json()) as AttestVerifyResponse | { error?: { message?: string } };
  if (!res.ok || !('valid' in json)) throw new Error((json as { error?: { message?: string } }).error?.message ?? `HTTP ${res.status}`);
  return json;
}

/**
 * The public verification page: anyone, signed in or not, drops or picks a Vantage report PDF and
 * sees whether its seal verifies (`POST /v1/attest/verify`): valid or the reason it is not
 * (malformed_pdf, key_unknown, signature_mismatch, content_modified), the signing key, its status
 * now and when it signed, the content hash and the legal statement to read with the result. The
 * file goes only to this deployment's API.
 */
export default function VerifyReportPage() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [result, setResult] = useState<{ name: string; answer: AttestVerifyResponse } | null>(null);
  const [over, setOver] = useState(false);

  async function take(file: File | undefined) {
    if (!file) return;
    setBusy(true);
    setError(null);
    setResult(null);
    try {
      setResult({ name: file.name, answer: await verify(file) });
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }
  const a = result?.answer;
  return (
    <section>
      <h1>{t('verify.title')}</h1>
      <p class="wrap">{t('verify.intro')}</p>
      <div class={`drop-zone${over ? ' over' : ''}`}
        onDragOver={(e) => { e.preventDefault(); setOver(true); }}
        onDragLeave={() => setOver(false)}
        onDrop={(e) => { e.preventDefault(); setOver(false); void take(e.dataTransfer?.files[0]); }}>
        <label for="verify-file">{t('verify.pick')}</label>
        <input id="verify-file" type="file" accept="application/pdf,.pdf" disabled={busy}
          onChange={(e) => void take((e.target as HTMLInputElement).files?.[0])} />
        <p class="hint">{t('verify.drop')}</p>
      </div>
      {busy && <p role="status">{t('verify.checking')}</p>}
      <FormError id="verify-error" error={error} />
      {a && result && (
        <div class="verify-result" role="status" aria-live="polite">
          <h2 class={a.valid ? 'verify-valid' : 'verify-invalid'}>
            {a.valid ? t('verify.valid', { file: result.name }) : t('verify.invalid', { file: result.name, reason: t(`verify.reason.${a.invalid_reason ?? 'malformed_pdf'}`) })}
          </h2>
          <dl class="facts">
            <dt>{t('verify.key')}</dt><dd>{a.signature_key_id ? `${a.signature_key_id} v${a.signature_key_version ?? '?'}` : '—'}</dd>
            <dt>{t('verify.key_status')}</dt><dd>{a.signature_key_status ? t(`verify.key_status.${a.signature_key_status}`) : '—'}</dd>
            <dt>{t('verify.fingerprint')}</dt><dd><code>{a.public_key_fingerprint ?? '—'}</code></dd>
            <dt>{t('verify.signed_at')}</dt><dd>{a.signed_at ? formatTime(a.signed_at) : '—'}</dd>
            <dt>{t('verify.hash')}</dt><dd><code>{a.content_hash ?? '—'}</code></dd>
          </dl>
          <p class="wrap hint">{a.legal_disclaimer}</p>
        </div>
      )}
    </section>
  );
}
