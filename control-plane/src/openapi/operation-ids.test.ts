import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { testApp } from '../test-support/app.js';
import { operationIdFor } from './operation-ids.js';

/** The pinned list: `operationId METHOD /path`, one per line, in document order. */
const SNAPSHOT = fileURLToPath(new URL('./operation-ids.txt', import.meta.url));
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

type Doc = { info: { version: string }; servers?: Array<{ url: string }>; paths: Record<string, Record<string, { operationId?: string }>> };

async function documentOf(t: { teardown(fn: () => unknown): void; equal: (a: unknown, b: unknown) => unknown }, public_url?: string): Promise<Doc> {
  const { app } = await testApp(t, { config: public_url ? { public_url } : {} });
  const r = await app.request('/v1/openapi.json');
  t.equal(r.status, 200);
  return (await r.json()) as Doc;
}

t.test('every operation has a unique operationId, pinned in operation-ids.txt', async (t) => {
  const doc = await documentOf(t);
  const lines: string[] = [];
  const seen = new Map<string, string>();
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const where = `${method.toUpperCase()} ${path}`;
      t.match(op.operationId, /^[a-z][A-Za-z0-9]*$/, `${where} has a camelCase operationId`);
      t.notOk(seen.has(op.operationId!), `${op.operationId} of ${where} is also ${seen.get(op.operationId!)}`);
      seen.set(op.operationId!, where);
      lines.push(`${op.operationId} ${where}`);
    }
  }
  const text = `${lines.join('\n')}\n`;
  // Regenerate after adding or renaming routes: VANTAGE_UPDATE_SNAPSHOT=1 npx tap control-plane/src/openapi/operation-ids.test.ts
  if (process.env.VANTAGE_UPDATE_SNAPSHOT === '1') writeFileSync(SNAPSHOT, text);
  t.equal(text, readFileSync(SNAPSHOT, 'utf8'), 'operationIds as pinned (a rename breaks generated clients; regenerate with `pnpm snapshot:operation-ids` when intended)');
});

t.test('names follow method and path', async (t) => {
  t.equal(operationIdFor('get', '/v1/monitors'), 'listMonitors');
  t.equal(operationIdFor('post', '/v1/monitors'), 'createMonitor');
  t.equal(operationIdFor('get', '/v1/monitors/{id}'), 'getMonitor');
  t.equal(operationIdFor('patch', '/v1/monitors/{id}'), 'updateMonitor');
  t.equal(operationIdFor('delete', '/v1/monitors/{id}'), 'deleteMonitor');
  t.equal(operationIdFor('post', '/v1/monitors/{id}/pause'), 'pauseMonitor');
  t.equal(operationIdFor('get', '/v1/monitors/{id}/state-changes'), 'listMonitorStateChanges');
  t.equal(operationIdFor('get', '/v1/alert-policies/{id}'), 'getAlertPolicy');
  t.equal(operationIdFor('post', '/v1/webhook-endpoints/{id}/deliveries/{delivery_id}/redeliver'), 'redeliverWebhookEndpointDelivery');
});

t.test('servers: VANTAGE_PUBLIC_URL when set, else the relative /', async (t) => {
  t.same((await documentOf(t)).servers?.map((s) => s.url), ['/']);
  t.same((await documentOf(t, 'https://vantage.example/base/')).servers?.map((s) => s.url), ['https://vantage.example/base']);
});

t.test('info.version is the one version every workspace package carries', async (t) => {
  const doc = await documentOf(t);
  const packages = ['package.json', ...readdirSync(ROOT, { withFileTypes: true })
    .filter((d) => d.isDirectory() && !d.name.startsWith('.') && d.name !== 'node_modules')
    .map((d) => `${d.name}/package.json`)
    .filter((p) => { try { readFileSync(`${ROOT}${p}`); return true; } catch { return false; } })];
  t.ok(packages.length >= 4, `workspace packages found: ${packages.join(', ')}`);
  for (const p of packages) {
    t.equal((JSON.parse(readFileSync(`${ROOT}${p}`, 'utf8')) as { version: string }).version, doc.info.version, `${p} version equals the document's`);
  }
});
