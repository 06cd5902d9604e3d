import t from 'tap';
import { newId } from '@vantage/shared-protocol';
import { call, createApiKey, registerUser, testApp } from '../test-support/app.js';
import { insertPasskey } from './passkeys.db.js';

// Route rules of the passkey ceremonies that need no authenticator: refusals, challenge handling,
// ownership. Successful registrations and logins come from a real browser in passkeys.browser.test.ts.

/** A clientDataJSON (WebAuthn Level 3 §5.8.1) naming `challenge`, base64url. */
const clientData = (type: string, challenge: string) =>
  Buffer.from(JSON.stringify({ type, challenge, origin: 'http://localhost', crossOrigin: false })).toString('base64url');

/** A registration credential that answers `challenge` but carries no valid attestation. */
const badRegistration = (challenge: string) => ({
  id: 'AAAA', rawId: 'AAAA', type: 'public-key', clientExtensionResults: {},
  response: { clientDataJSON: clientData('webauthn.create', challenge), attestationObject: 'AAAA', transports: ['internal'] },
});
/** An assertion for credential `id` that answers `challenge` but is not signed. */
const badAssertion = (challenge: string, id = 'AAAA') => ({
  id, rawId: id, type: 'public-key', clientExtensionResults: {},
  response: { clientDataJSON: clientData('webauthn.get', challenge), authenticatorData: 'AAAA', signature: 'AAAA' },
});

t.test('passkeys: registration options, challenge rules, ownership, login refusals', async (t) => {
  const { app, sql } = await testApp(t, { config: { public_url: 'https://app.vantage.example/' } });
  const a = await registerUser(app);
  const b = await registerUser(app);
  const auth = { token: a.access_token };
  const rows = async () => JSON.stringify(await sql`SELECT * FROM passkeys ORDER BY id`);

  t.test('registration options', async (t) => {
    const r = await call(app, 'POST', '/v1/account/passkeys/options', auth);
    t.equal(r.status, 200);
    const d = r.body.data;
    t.match(d.challenge_id, /^wch_/);
    t.equal(d.expires_in_s, 300);
    t.match(d.options, {
      rp: { id: 'app.vantage.example', name: 'Vantage' },
      user: { id: Buffer.from(a.user_id).toString('base64url'), name: a.email },
      authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
      attestation: 'none', timeout: 300_000,
    });
    t.same(d.options.excludeCredentials, [], 'no passkeys to exclude yet');
    t.ok(d.options.challenge.length >= 43, 'challenge of at least 32 bytes');
  });

  t.test('only a session manages passkeys', async (t) => {
    const key = await createApiKey(app, a.access_token);
    const routes: Array<[string, string, unknown?]> = [
      ['POST', '/v1/account/passkeys/options'], ['GET', '/v1/account/passkeys'],
      ['POST', '/v1/account/passkeys', { challenge_id: 'wch_x', name: 'x', credential: badRegistration('x') }],
      ['PATCH', `/v1/account/passkeys/${newId('passkey')}`, { name: 'x' }], ['DELETE', `/v1/account/passkeys/${newId('passkey')}`],
    ];
    for (const [method, path, body] of routes) {
      const anon = await call(app, method, path, { body });
      t.equal(anon.status, 401, `${method} ${path} anonymous`);
      const keyed = await call(app, method, path, { token: key.key, body });
      t.equal(keyed.status, 403, `${method} ${path} with an API key`);
      t.equal(keyed.body.error.code, 'FORBIDDEN');
    }
  });

  t.test('a challenge serves once, for its purpose and account, and only when it is the one signed', async (t) => {
    const before = await rows();
    const opts = async (token = a.access_token) => (await call(app, 'POST', '/v1/account/passkeys/options', { token })).body.data;
    const register = (challenge_id: string, credential: unknown, token = a.access_token) =>
      call(app, 'POST', '/v1/account/passkeys', { token, body: { challenge_id, name: 'Laptop', credential } });
    const code = (r: { body: any }) => r.body.error?.code;

    t.equal(code(await register('wch_01jd3k6w9z4q8r2t7v5x1y3b6c', badRegistration('abc'))), 'AUTH_WEBAUTHN_CHALLENGE_INVALID', 'unknown challenge');

    const first = await opts();
    const bad = await register(first.challenge_id, badRegistration(first.options.challenge));
    t.equal(bad.status, 400);
    t.equal(code(bad), 'VALIDATION_FAILED', 'a credential that does not verify');
    t.match(bad.body.error.message, /did not verify/);
    const again = await register(first.challenge_id, badRegistration(first.options.challenge));
    t.equal(code(again), 'AUTH_WEBAUTHN_CHALLENGE_INVALID', 'the challenge was used up by the failed attempt');

    const other = await opts();
    const mismatch = await register(other.challenge_id, badRegistration(first.options.challenge));
    t.equal(code(mismatch), 'AUTH_WEBAUTHN_CHALLENGE_INVALID', 'a credential signed over another challenge');
    t.match(mismatch.body.error.message, /another challenge/);

    const bs = await opts(b.access_token);
    t.equal(code(await register(bs.challenge_id, badRegistration(bs.options.challenge))), 'AUTH_WEBAUTHN_CHALLENGE_INVALID', "another account's challenge");
    t.equal(code(await register(bs.challenge_id, badRegistration(bs.options.challenge), b.access_token)), 'VALIDATION_FAILED', "its owner's attempt still reaches verification: the stranger's did not use it up");

    const login = (await call(app, 'POST', '/v1/auth/passkeys/options', { body: {} })).body.data;
    t.equal(code(await register(login.challenge_id, badRegistration(login.options.challenge))), 'AUTH_WEBAUTHN_CHALLENGE_INVALID', 'a login challenge at registration');
    const reg = await opts();
    t.equal(code(await call(app, 'POST', '/v1/auth/passkeys/login', { body: { challenge_id: reg.challenge_id, credential: badAssertion(reg.options.challenge) } })), 'AUTH_WEBAUTHN_CHALLENGE_INVALID', 'a registration challenge at login');
    t.equal(await rows(), before, 'nothing stored');
  });

  t.test('an expired challenge is refused', async (t) => {
    const short = await testApp(t, { config: { passkey_challenge_ttl_s: 5 } });
    const u = await registerUser(short.app);
    const o = (await call(short.app, 'POST', '/v1/account/passkeys/options', { token: u.access_token })).body.data;
    t.equal(o.expires_in_s, 5);
    const deadline = Date.now() + o.expires_in_s * 1000 + 1000;
    while (Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 250));
    const r = await call(short.app, 'POST', '/v1/account/passkeys', { token: u.access_token, body: { challenge_id: o.challenge_id, name: 'x', credential: badRegistration(o.options.challenge) } });
    t.equal(r.status, 400);
    t.equal(r.body.error.code, 'AUTH_WEBAUTHN_CHALLENGE_INVALID');
    t.match(r.body.error.message, /expired/);
    const l = (await call(short.app, 'POST', '/v1/auth/passkeys/options', { body: {} })).body.data;
    const deadline2 = Date.now() + l.expires_in_s * 1000 + 1000;
    while (Date.now() < deadline2) await new Promise((resolve) => setTimeout(resolve, 250));
    const lr = await call(short.app, 'POST', '/v1/auth/passkeys/login', { body: { challenge_id: l.challenge_id, credential: badAssertion(l.options.challenge) } });
    t.equal(lr.body.error.code, 'AUTH_WEBAUTHN_CHALLENGE_INVALID', 'an expired login challenge');
  });

  t.test('bad bodies change nothing', async (t) => {
    const o = (await call(app, 'POST', '/v1/account/passkeys/options', auth)).body.data;
    const good = { challenge_id: o.challenge_id, name: 'Laptop', credential: badRegistration(o.options.challenge) };
    const cases: Array<[string, unknown]> = [
      ['missing name', { ...good, name: undefined }],
      ['blank name', { ...good, name: '   ' }],
      ['65-character name', { ...good, name: 'n'.repeat(65) }],
      ['control character in name', { ...good, name: 'a\u0007b' }],
      ['NUL in name', { ...good, name: 'a\u0000b' }],
      ['unknown field', { ...good, admin: true }],
      ['missing credential', { ...good, credential: undefined }],
      ['credential id not base64url', { ...good, credential: { ...good.credential, id: 'a+b/' } }],
      ['wrong credential type', { ...good, credential: { ...good.credential, type: 'password' } }],
      ['clientDataJSON not JSON', { ...good, credential: { ...good.credential, response: { ...good.credential.response, clientDataJSON: 'AAAA' } } }],
      ['array body', []],
    ];
    const before = await rows();
    for (const [name, body] of cases) {
      const r = await call(app, 'POST', '/v1/account/passkeys', { ...auth, body });
      t.equal(r.status, 400, `${name}: status`);
      t.equal(r.body.error?.code, 'VALIDATION_FAILED', `${name}: code`);
    }
    t.equal(await rows(), before, 'nothing stored');
    const renames: Array<[string, unknown]> = [['blank', { name: '' }], ['unknown field', { name: 'x', id: 'pk_x' }], ['number', { name: 5 }]];
    for (const [name, body] of renames) {
      const r = await call(app, 'PATCH', `/v1/account/passkeys/${newId('passkey')}`, { ...auth, body });
      t.equal(r.body.error?.code, 'VALIDATION_FAILED', `rename ${name}`);
    }
    for (const [name, body] of [['unknown field', { email: a.email, user_id: a.user_id }], ['number email', { email: 5 }]] as const) {
      const r = await call(app, 'POST', '/v1/auth/passkeys/options', { body });
      t.equal(r.body.error?.code, 'VALIDATION_FAILED', `login options ${name}`);
    }
  });

  t.test("another account's passkey is not found; list, login options", async (t) => {
    // A stored passkey of b's (its key material plays no part in these refusals).
    const bs = await insertPasskey(sql, {
      id: newId('passkey'), user_id: b.user_id, credential_id: 'Y3JlZC1i', public_key: new Uint8Array([1, 2, 3]), sign_count: 0,
      transports: ['internal'], device_type: 'singleDevice', backed_up: false, name: "b's laptop",
    }, 20);
    if (typeof bs === 'string') throw new Error(bs);
    t.equal((await call(app, 'PATCH', `/v1/account/passkeys/${bs.id}`, { ...auth, body: { name: 'mine' } })).status, 404, 'rename');
    const del = await call(app, 'DELETE', `/v1/account/passkeys/${bs.id}`, auth);
    t.equal(del.status, 404, 'delete');
    t.equal(del.body.error.code, 'NOT_FOUND');
    t.equal((await call(app, 'DELETE', '/v1/account/passkeys/not-an-id', auth)).status, 404, 'a malformed id');
    t.same((await call(app, 'GET', '/v1/account/passkeys', auth)).body.data, [], "a's list is empty");

    const mine = await call(app, 'GET', '/v1/account/passkeys', { token: b.access_token });
    t.match(mine.body.data, [{ id: bs.id, name: "b's laptop", device_type: 'singleDevice', backed_up: false, transports: ['internal'], last_used_at: null }]);
    t.notOk('public_key' in mine.body.data[0] || 'credential_id' in mine.body.data[0], 'no key material listed');
    const renamed = await call(app, 'PATCH', `/v1/account/passkeys/${bs.id}`, { token: b.access_token, body: { name: '  Work laptop  ' } });
    t.equal(renamed.body.data.name, 'Work laptop', 'its owner renames it (trimmed)');

    const withEmail = (await call(app, 'POST', '/v1/auth/passkeys/options', { body: { email: b.email.toUpperCase() } })).body.data;
    t.match(withEmail.options, { rpId: 'app.vantage.example', userVerification: 'required', allowCredentials: [{ id: 'Y3JlZC1i', type: 'public-key', transports: ['internal'] }] });
    const discoverable = (await call(app, 'POST', '/v1/auth/passkeys/options', { body: {} })).body.data;
    t.notOk(discoverable.options.allowCredentials?.length, 'no e-mail: discoverable credentials');
    const unknown = (await call(app, 'POST', '/v1/auth/passkeys/options', { body: { email: 'nobody@example.test' } })).body.data;
    t.notOk(unknown.options.allowCredentials?.length, 'unknown e-mail: discoverable credentials');

    const login = (challenge_id: string, credential: unknown) => call(app, 'POST', '/v1/auth/passkeys/login', { body: { challenge_id, credential } });
    const aa = (await call(app, 'POST', '/v1/auth/passkeys/options', { body: { email: a.email } })).body.data;
    const r1 = await login(aa.challenge_id, badAssertion(aa.options.challenge, 'Y3JlZC1i'));
    t.equal(r1.status, 401);
    t.equal(r1.body.error.code, 'AUTH_CREDENTIALS_INVALID', "b's passkey at a login asked for a's account");
    const r2 = await login(discoverable.challenge_id, badAssertion(discoverable.options.challenge, 'dW5rbm93bg'));
    t.equal(r2.body.error.code, 'AUTH_CREDENTIALS_INVALID', 'an unknown passkey');
    const r3 = await login(withEmail.challenge_id, badAssertion(withEmail.options.challenge, 'Y3JlZC1i'));
    t.equal(r3.body.error.code, 'AUTH_CREDENTIALS_INVALID', 'an unsigned assertion');
    t.equal((await login(withEmail.challenge_id, badAssertion(withEmail.options.challenge, 'Y3JlZC1i'))).body.error.code, 'AUTH_WEBAUTHN_CHALLENGE_INVALID', 'used up');
    const [row] = await sql<{ sign_count: string; last_used_at: Date | null }[]>`SELECT sign_count, last_used_at FROM passkeys WHERE id = ${bs.id}`;
    t.same([Number(row!.sign_count), row!.last_used_at], [0, null], 'refused logins change nothing');

    t.equal((await call(app, 'DELETE', `/v1/account/passkeys/${bs.id}`, { token: b.access_token })).status, 200, 'its owner deletes it');
    t.same((await call(app, 'GET', '/v1/account/passkeys', { token: b.access_token })).body.data, []);
  });
});

t.test('passkeys: relying party from the listening address and from settings', async (t) => {
  const { app, url } = await testApp(t, { config: { passkey_rp_name: 'Ops Vantage' } });
  const u = await registerUser(app);
  const o = (await call(app, 'POST', '/v1/account/passkeys/options', { token: u.access_token })).body.data;
  t.same(o.options.rp, { id: new URL(url).hostname, name: 'Ops Vantage' }, 'the listening host without a public URL');
  const set = await testApp(t, { config: { passkey_rp_id: 'Vantage.Example', public_url: 'https://app.vantage.example' } });
  const v = await registerUser(set.app);
  const p = (await call(set.app, 'POST', '/v1/account/passkeys/options', { token: v.access_token })).body.data;
  t.equal(p.options.rp.id, 'vantage.example', 'VANTAGE_PASSKEY_RP_ID, lower case');
});
