import t from 'tap';
import { idSchema, idTime, isId, isSecret, maskSecret, newId, newSecret } from './ids.js';

t.test('newId makes prefixed, sortable, recognisable ids', async (t) => {
  const a = newId('monitor', 1_700_000_000_000);
  const b = newId('monitor', 1_700_000_000_001);
  t.match(a, /^m_[0-9a-z]{26}$/);
  t.ok(a < b, 'a later id sorts after an earlier one');
  t.equal(idTime('monitor', a), 1_700_000_000_000);
  t.ok(isId('monitor', a));
  t.notOk(isId('probe_task', a), 'prefix is checked');
  t.notOk(isId('monitor', 'm_short'), 'body length is checked');
  t.notOk(isId('monitor', a.toUpperCase()), 'alphabet is checked');
  t.notOk(isId('monitor', 42));
  const ids = new Set(Array.from({ length: 10_000 }, () => newId('result')));
  t.equal(ids.size, 10_000, 'no collisions in 10k ids made in the same millisecond range');
});

t.test('secrets are 160 random bits with their prefix and mask for display', async (t) => {
  const ent = newSecret('enrollment_token');
  t.match(ent, /^ent_[0-9a-z]{32}$/);
  t.ok(isSecret('enrollment_token', ent));
  t.notOk(isSecret('node_credential', ent));
  const key = newSecret('api_key_live');
  t.match(key, /^sk_live_[0-9a-z]{32}$/);
  t.match(maskSecret(key), /^sk_live_[0-9a-z]{4}…[0-9a-z]{4}$/);
  t.match(maskSecret(ent), /^ent_[0-9a-z]{4}…[0-9a-z]{4}$/);
  t.match(maskSecret(newSecret('pat')), /^svc_pat_[0-9a-z]{4}…[0-9a-z]{4}$/);
});

t.test('idSchema rejects wrong ids with a message naming the prefix', async (t) => {
  const r = idSchema('probe_task').safeParse('m_01jd3k6w9z4q8r2t7v5x1y3b6c');
  t.notOk(r.success);
  t.equal(r.error?.issues[0]?.message, 'must be a probe task id (pt_…)');
  t.equal(idSchema('alert_channel').safeParse('x').error?.issues[0]?.message, 'must be an alert channel id (ach_…)', 'the article fits the word');
});
