import t from 'tap';
import { WEBHOOK_SECRET_PREFIX, newWebhookSecret, webhookEndpointCreateSchema, webhookEndpointPatchSchema, webhookSignature, webhookSignatureHeader } from './webhooks.js';

t.test('signatures follow Standard Webhooks (the specification\'s own example)', async (t) => {
  // https://github.com/standard-webhooks/standard-webhooks/blob/main/spec/standard-webhooks.md "Signature scheme"
  t.equal(
    webhookSignature('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}'),
    'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
  );
  const header = webhookSignatureHeader(['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', newWebhookSecret()], 'msg_1', 1, '{}');
  t.equal(header.split(' ').length, 2, 'one signature per live secret, space-separated');
  t.ok(header.split(' ').every((s) => /^v1,[A-Za-z0-9+/]{43}=$/.test(s)));
});

t.test('secrets are whsec_ + base64 of 32 random bytes', async (t) => {
  const a = newWebhookSecret();
  t.ok(a.startsWith(WEBHOOK_SECRET_PREFIX));
  t.equal(Buffer.from(a.slice(WEBHOOK_SECRET_PREFIX.length), 'base64').length, 32);
  t.not(a, newWebhookSecret());
});

t.test('endpoint create: http(s) URL without credentials, catalog events or *, deduplicated', async (t) => {
  const ok = webhookEndpointCreateSchema.parse({ url: ' https://hooks.example.com/v ', events: ['monitor.down', '*', 'monitor.down'] });
  t.same(ok, { url: 'https://hooks.example.com/v', events: ['monitor.down', '*'] });
  const bad: unknown[] = [
    { url: 'ftp://x.example', events: ['*'] }, { url: 'https://u:p@x.example', events: ['*'] }, { url: 'https://x.example', events: [] },
    { url: 'https://x.example', events: ['webhook.ping'] }, { url: 'https://x.example', events: ['nope'] }, { url: 'https://x.example\u0000', events: ['*'] },
    { url: 'https://x.example', events: ['*'], secret: 'mine' },
  ];
  for (const b of bad) t.notOk(webhookEndpointCreateSchema.safeParse(b).success, JSON.stringify(b));
  t.same(webhookEndpointPatchSchema.parse({ description: null, enabled: false }), { description: null, enabled: false });
  t.notOk(webhookEndpointPatchSchema.safeParse({ secret: 'x' }).success, 'unknown field');
});
