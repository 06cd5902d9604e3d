import t from 'tap';
import { testApp } from '../test-support/app.js';

// A JSON route sent a body of another type (curl -d without -H, a form post) must be told what to
// send: 400 REQUEST_BODY_INVALID naming Content-Type: application/json and the type it got.
t.test('a POST without a JSON content type is told which Content-Type to send', async (t) => {
  const { app } = await testApp(t);
  const body = JSON.stringify({ target: 'https://example.com/' });
  const cases: Array<[string, Record<string, string>, RegExp]> = [
    ['text/plain', { 'content-type': 'text/plain' }, /Content-Type: application\/json \(this request has Content-Type "text\/plain"\)/],
    ['a form', { 'content-type': 'application/x-www-form-urlencoded' }, /Content-Type: application\/json \(this request has Content-Type "application\/x-www-form-urlencoded"\)/],
    ['none', {}, /Content-Type: application\/json \(this request has no Content-Type\)/],
  ];
  for (const path of ['/v1/probe/http', '/v1/auth/register']) {
    for (const [name, headers, message] of cases) {
      // Bytes, not a string: a string body would get text/plain from the Request constructor.
      const res = await app.request(path, { method: 'POST', headers, body: new TextEncoder().encode(body) });
      t.equal(res.status, 400, `${path}, ${name}: 400`);
      const json = (await res.json()) as { error: { code: string; message: string } };
      t.equal(json.error.code, 'REQUEST_BODY_INVALID', `${path}, ${name}: code`);
      t.match(json.error.message, message, `${path}, ${name}: says what to send`);
    }
  }
});
