import { randomBytes } from 'node:crypto';
import t from 'tap';
import { artifactPath, newId, type CheckItem } from '@vantage/shared-protocol';
import { artifactSigner } from './signing.js';
import { signArtifactUrls } from './urls.js';

const sha = 'a'.repeat(64);

t.test('signed artifact URLs: valid until their expiry, for their path only', async (t) => {
  const signer = artifactSigner(randomBytes(32));
  const path = artifactPath(newId('monitor'), sha);
  const url = new URL(`http://x${signer.sign(path, 2_000_000_000)}`);
  const [expires, signature] = [url.searchParams.get('expires')!, url.searchParams.get('signature')!];
  t.equal(url.pathname, path);
  t.equal(signer.verify(path, expires, signature, 1_999_999_999_000), 'ok');
  t.equal(signer.verify(path, expires, signature, 2_000_000_000_000), 'expired', 'at the expiry instant');
  t.equal(signer.verify(path, '2000000001', signature, 0), 'bad_signature', 'another expiry');
  t.equal(signer.verify(artifactPath(newId('monitor'), sha), expires, signature, 0), 'bad_signature', 'another path');
  t.equal(signer.verify(path, expires, signature.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A')), 0), 'bad_signature', 'tampered');
  t.equal(artifactSigner(randomBytes(32)).verify(path, expires, signature, 0), 'bad_signature', 'another key');
  // The last of 43 base64url characters holds 4 bits of the MAC and 2 unused ones: every other
  // spelling of the same bytes is refused (it once decoded to the right MAC and was accepted).
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  const last = alphabet.indexOf(signature.at(-1)!);
  for (let unused = 0; unused < 4; unused++) {
    const spelled = signature.slice(0, -1) + alphabet[(last & ~3) | unused];
    if (spelled !== signature) t.equal(signer.verify(path, expires, spelled, 0), 'bad_signature', `same bytes, spelled ${spelled.at(-1)}`);
  }
  t.equal(signer.verify(path, 'soon', signature, 0), 'bad_signature');
});

t.test('check reads: artifact paths of the monitor become signed URLs, anything else empty', async (t) => {
  const monitor_id = newId('monitor');
  const signer = artifactSigner(randomBytes(32));
  const item = (output: Record<string, unknown> | null) => ({ monitor_id, output } as unknown as CheckItem);
  const s = { signer, base_url: 'https://cp.example', ttl_s: 600, now_ms: 1_800_000_000_000 };
  const out = signArtifactUrls(item({ har_url: artifactPath(monitor_id, sha), screenshot_url: artifactPath(newId('monitor'), sha), load_ms: 1 }), s).output as Record<string, string>;
  t.match(out.har_url, new RegExp(`^https://cp\\.example${artifactPath(monitor_id, sha)}\\?expires=1800000600&signature=[\\w-]{43}$`));
  t.equal(out.screenshot_url, '', 'another monitor\'s artifact path is not signed');
  t.equal(signArtifactUrls(item({ har_url: 'https://evil.example/x', screenshot_url: '' }), s).output!.har_url, '');
  const plain = item({ rtt_ms: 1 });
  t.equal(signArtifactUrls(plain, s), plain, 'outputs without artifact fields are left alone');
  t.equal(signArtifactUrls(item(null), s).output, null);
});
