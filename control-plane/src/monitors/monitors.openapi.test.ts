import t from 'tap';
import { Validator } from '@seriousme/openapi-schema-validator';
import { call, testApp } from '../test-support/app.js';

t.test('every monitor route is in the OpenAPI document with its examples', async (t) => {
  const { app } = await testApp(t);
  const { body: doc } = await call(app, 'GET', '/v1/openapi.json');
  const result = await new Validator().validate(doc);
  t.ok(result.valid, JSON.stringify(result.errors ?? []).slice(0, 2000));
  const routes: Array<[string, string]> = [
    ['get', '/v1/monitors'], ['post', '/v1/monitors'], ['get', '/v1/monitors/{id}'], ['patch', '/v1/monitors/{id}'], ['delete', '/v1/monitors/{id}'],
    ['post', '/v1/monitors/{id}/pause'], ['post', '/v1/monitors/{id}/resume'], ['post', '/v1/monitors/{id}/heartbeat/rotate'],
    ['get', '/v1/monitors/export'], ['post', '/v1/monitors/import'],
    ['get', '/v1/monitor-groups'], ['post', '/v1/monitor-groups'], ['get', '/v1/monitor-groups/{id}'], ['patch', '/v1/monitor-groups/{id}'], ['delete', '/v1/monitor-groups/{id}'],
  ];
  for (const [method, path] of routes) {
    const op = doc.paths[path]?.[method];
    if (!t.ok(op, `${method} ${path} documented`)) continue;
    t.same(op.security, [{ bearer: [] }], `${method} ${path} needs a credential`);
    const success = op.responses['200'] ?? op.responses['201'];
    t.ok(success?.content['application/json'].example, `${method} ${path}: success example`);
    if (op.requestBody) t.ok(op.requestBody.content['application/json'].example, `${method} ${path}: request example`);
  }
  const create = doc.paths['/v1/monitors'].post;
  t.ok(create.responses['422'] && create.responses['409'] && create.responses['400'], 'create documents its errors');
});
