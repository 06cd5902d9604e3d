import t from 'tap';
import { clientKind } from './server.js';

// A session's client_id (docs/api/mcp.md "Sessions") from the initialize request's client name and
// the HTTP client's User-Agent. The Python SDK's client cannot be installed here (no Debian
// package; PyPI is out of reach), so its shapes are checked as it sends them: the client name
// defaults to "mcp" and its HTTP client, httpx, sends `python-httpx/<version>`.
t.test('client kinds', async (t) => {
  t.equal(clientKind('mcp', 'python-httpx/0.28.1'), 'sdk-py', 'the Python SDK with its defaults');
  t.equal(clientKind('my-python-agent', undefined), 'sdk-py', 'a client that names Python');
  t.equal(clientKind('vantage-tests-typescript', 'node'), 'sdk-ts', 'the TypeScript SDK (Node fetch sends "node")');
  t.equal(clientKind('claude-desktop', 'node'), 'sdk-ts', 'any client on Node fetch');
  t.equal(clientKind('some-ts-client', 'Mozilla/5.0'), 'sdk-ts', 'a name with a ts word');
  t.equal(clientKind('inspector', 'Mozilla/5.0'), 'other');
  t.equal(clientKind('tsunami', 'curl/8.5.0'), 'other', '"ts" only as a whole word');
});
