import t from 'tap';
import { backoffDelay, DEFAULT_BACKOFF } from './backoff.js';
import { nodeSocketUrl } from './url.js';
import { describeRefusal } from './refusal.js';

t.test('backoff grows from 2 s to a 60 s cap, jittered', async (t) => {
  const table: Array<[number, number, number]> = [
    // attempt, random, delay
    [0, 0, 2000], [0, 0.999, 3998], [1, 0.5, 5000], [3, 1, 32000], [4, 0, 2000], [4, 1, 60000], [30, 1, 60000], [1000, 0.5, 31000],
  ];
  for (const [attempt, random, want] of table) t.equal(backoffDelay(attempt, DEFAULT_BACKOFF, Math.min(random, 0.999999)), want, `attempt ${attempt} random ${random}`);
  for (let attempt = 0; attempt < 40; attempt++) {
    const d = backoffDelay(attempt);
    t.ok(d >= 2000 && d <= 60000, `attempt ${attempt}: ${d} within [2 s, 60 s]`);
  }
});

t.test('socket URL and refusal reasons', async (t) => {
  t.equal(nodeSocketUrl('http://127.0.0.1:8080'), 'ws://127.0.0.1:8080/v1/nodes/connect');
  t.equal(nodeSocketUrl('https://cp.test/vantage/'), 'wss://cp.test/vantage/v1/nodes/connect');
  t.equal(describeRefusal(401, '{"error":{"code":"NODE_ENROLLMENT_TOKEN_INVALID","message":"token already used"}}'),
    'HTTP 401: NODE_ENROLLMENT_TOKEN_INVALID: token already used');
  t.equal(describeRefusal(403, 'forbidden'), 'HTTP 403: forbidden');
  t.equal(describeRefusal(502, ''), 'HTTP 502');
});
