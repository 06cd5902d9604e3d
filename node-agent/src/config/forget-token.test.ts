import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { newSecret } from '@vantage/shared-protocol';
import { Secret } from '../secret.js';
import { forgetSpentToken } from './forget-token.js';

t.test('the spent token is removed; every other field, the mode and the file stay', async (t) => {
  const token = newSecret('enrollment_token');
  const dir = t.testdir();
  const file = path.join(dir, 'agent.json');
  fs.writeFileSync(file, JSON.stringify({ control_plane_url: 'http://cp.test', token, state_dir: '/var/lib/x', allow_cidrs: ['198.18.0.0/15'] }), { mode: 0o600 });
  fs.chmodSync(file, 0o600);
  t.same(forgetSpentToken(file, new Secret(token)), { done: 'removed' });
  t.same(JSON.parse(fs.readFileSync(file, 'utf8')), { control_plane_url: 'http://cp.test', state_dir: '/var/lib/x', allow_cidrs: ['198.18.0.0/15'] });
  t.equal(fs.statSync(file).mode & 0o777, 0o600, 'mode kept');
  t.same(fs.readdirSync(dir), ['agent.json'], 'no temporary file left');
  t.same(forgetSpentToken(file, new Secret(token)), { done: 'absent' }, 'a second time: nothing to do');
});

t.test('another token, a bad file or no file: left alone, with the reason', async (t) => {
  const dir = t.testdir({ 'other.json': JSON.stringify({ token: 'ent_other' }), 'bad.json': '{ nope', 'list.json': '[]' });
  const token = new Secret(newSecret('enrollment_token'));
  t.same(forgetSpentToken(path.join(dir, 'other.json'), token), { done: 'absent' });
  t.same(JSON.parse(fs.readFileSync(path.join(dir, 'other.json'), 'utf8')), { token: 'ent_other' }, 'a token that was not spent is kept');
  t.match(forgetSpentToken(path.join(dir, 'bad.json'), token), { done: 'failed', reason: /not valid JSON/ });
  t.match(forgetSpentToken(path.join(dir, 'list.json'), token), { done: 'failed', reason: /JSON object/ });
  t.match(forgetSpentToken(path.join(dir, 'none.json'), token), { done: 'failed', reason: /ENOENT/ });
});
