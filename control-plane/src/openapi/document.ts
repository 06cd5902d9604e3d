import { readFileSync } from 'node:fs';
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { NODE_WS_PATH, PROTOCOL_VERSION, errorEnvelopeSchema } from '@vantage/shared-protocol';
import type { Config } from '../config/index.js';
import type { AppEnv } from '../env.js';
import { addOperationIds } from './operation-ids.js';

/** The control plane's release (control-plane/package.json `version`): one version for the package, `--version` and the API document. */
export const CONTROL_PLANE_VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/**
 * Info and servers of the generated document: `servers` is `public_url` (VANTAGE_PUBLIC_URL, the
 * base clients reach, a path prefix kept), else the relative `/` (the document's own origin).
 */
function documentConfig(config: Pick<Config, 'public_url'>) {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Vantage API',
      version: CONTROL_PLANE_VERSION,
      description: 'Network diagnostics and uptime monitoring. Generated from the shared zod schemas; guides in the repository\'s docs/api.',
    },
    servers: [config.public_url ? { url: config.public_url.replace(/\/+$/, ''), description: 'VANTAGE_PUBLIC_URL' } : { url: '/', description: 'this control plane' }],
  };
}

const openapiRoute = createRoute({
  method: 'get',
  path: '/v1/openapi.json',
  tags: ['meta'],
  summary: 'This OpenAPI 3.1 document',
  responses: { 200: { description: 'OpenAPI 3.1 document (not enveloped)', content: { 'application/json': { schema: z.object({}).catchall(z.unknown()) } } } },
});

/**
 * Serve `GET /v1/openapi.json` (docs/api/conventions.md): the OpenAPI 3.1 document generated from every
 * route declared with `router.openapi(createRoute(…))` (request and response zod schemas from
 * shared-protocol), plus the bearer security scheme of docs/api/conventions.md, a stable operationId
 * on every operation (operation-ids.ts), `servers` from `config.public_url` and `info.version` the
 * package's version. Register it after every router is mounted; the document is built on first
 * request and then reused.
 */
export function mountOpenApi(app: OpenAPIHono<AppEnv>, config: Pick<Config, 'public_url'>): void {
  app.openAPIRegistry.registerComponent('securitySchemes', 'bearer', {
    type: 'http',
    scheme: 'bearer',
    description: 'Session JWT, API key (sk_live_/sk_test_) or personal access token (svc_pat_)',
  });
  // The node WebSocket is served by the hub on the HTTP server's upgrade event, outside Hono;
  // it is described here so the document lists every path the control plane answers.
  app.openAPIRegistry.registerPath({
    method: 'get',
    path: NODE_WS_PATH,
    tags: ['nodes'],
    summary: 'Node WebSocket (probe nodes only): upgrade to the node protocol',
    description: `Opened by node-agent with \`Authorization: Bearer <ent_ enrollment token | nk_ node credential>\`, checked before the upgrade. JSON frames discriminated on \`type\`, protocol version ${PROTOCOL_VERSION}; first frame \`enroll\` (token) or \`hello\` (credential). Messages, close codes 4000-4099 and delivery rules: docs/architecture/shared-protocol.md and docs/architecture/hub.md.`,
    security: [{ bearer: [] }],
    responses: {
      101: { description: 'Switching Protocols: the node protocol starts' },
      401: { description: 'Missing, unknown, used, expired or revoked token or credential', content: { 'application/json': { schema: errorEnvelopeSchema } } },
    },
  });
  let doc: Record<string, unknown> | undefined;
  app.openapi(openapiRoute, (c) => {
    doc ??= addOperationIds(app.getOpenAPI31Document(documentConfig(config)) as unknown as { paths: Record<string, Record<string, unknown>> }) as unknown as Record<string, unknown>;
    return c.json(doc, 200);
  });
}
