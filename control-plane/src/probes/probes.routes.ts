import { createRoute, z } from '@hono/zod-openapi';
import {
  isId, nodeSelectionSchema, probeCreatedSchema, probeRequestSchema, probeTaskResultSchema, PROBE_TYPES, type ProbeType,
} from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import type { PublicProbesMode } from '../config/probes.js';
import { ApiError } from '../errors.js';
import { jsonBody, jsonError, jsonOk } from '../http/openapi-responses.js';
import { ok } from '../http/respond.js';
import { probeCreator, type ProbeCreatorDeps } from './create.js';
import { streamTaskEvents, type StreamTimings } from './stream.js';
import { GroupViews } from './view.js';
import { createRouter } from '../http/router.js';
import { requireProbeAccess } from './access.js';

const TARGETS: Record<ProbeType, string> = {
  http: '`target` is an absolute http:// or https:// URL',
  ping: '`target` is a host name or an IP address',
  dns: '`target` is a domain name; `params.server` (host[:port]) is the resolver to ask',
  tcp: '`target` is host:port ([v6]:port), or a host with `params.port`',
  traceroute: '`target` is a host name or an IP address',
  mtr: '`target` is a host name or an IP address; `count` rounds of probes to every hop (mtr --report)',
  smtp: '`target` is host[:port] (default 25; 465 is implicit TLS); MAIL FROM and RCPT TO only with `params.mail_from` and `params.rcpt_to`, never DATA',
  ntp: '`target` is host[:port] (default 123); `count` SNTP samples, the one with the smallest delay reported',
  speedtest: '`target` is an absolute http:// or https:// URL to download (no redirects followed); `params.upload_bytes` > 0 adds a POST of that many bytes; each direction is cut at the node\'s byte and time caps',
  ssl: '`target` is host[:port] (default 443); one node (give `node_id`, or `nodes.count` defaults apply) audits the TLS service as GET /v1/info/ssl does (certificate chain, TLS 1.0-1.3 each tried, stapled OCSP, SCTs, HSTS, grade), each handshake within `params.timeout_ms`; the polled result carries `resolved_address`, `port` and `audit`',
  headers: '`target` is an absolute http:// or https:// URL; one node (give `node_id`, or `nodes.count` defaults apply) follows the redirects, and the polled result carries `url`, `final_url`, `hops[]`, `headers`, `security` and `analysis`',
};

/** Types whose automatic pick is smaller than the usual 3 nodes: a headers analysis is one node's fetch, an SSL audit one node's handshakes (docs/api/probes.md). */
const ONE_NODE = nodeSelectionSchema.parse({ count: 1 });
const DEFAULT_NODES: Partial<Record<ProbeType, typeof ONE_NODE>> = { headers: ONE_NODE, ssl: ONE_NODE };

const CREATE_ERRORS = {
  400: jsonError('VALIDATION_FAILED: bad params, malformed target, node without the probe type'),
  401: jsonError('AUTH_REQUIRED: anonymous caller while VANTAGE_PUBLIC_PROBES=accounts (details.setting); or an invalid credential'),
  403: jsonError('FORBIDDEN: VANTAGE_PUBLIC_PROBES=off (details.setting); a named node that is neither yours, shared nor a platform node (details.node_ids); secret headers to an untrusted node; private target with a read-only credential'),
  404: jsonError('NODE_NOT_FOUND: an id in node_ids/node_id is unknown (details.node_ids)'),
  422: jsonError('PROBE_TARGET_INVALID: private or reserved target from an anonymous caller; PROBE_TOO_FEW_NODES: no online node matches'),
  429: jsonError('rate limit exceeded (Retry-After, X-RateLimit-*)'),
  503: jsonError('NODE_OFFLINE: a node named in node_ids/node_id is not online (details.node_ids); UNAVAILABLE: the instance is at capacity (load shedding; Retry-After, details {signal, limit, value})'),
} as const;

const taskIdParam = z.object({
  task_id: z.string().max(64).openapi({ param: { name: 'task_id', in: 'path' }, example: 'pt_01jd3k6w9z4q8r2t7v5x1y3b6c' }),
});

function createProbeRoute(type: ProbeType, mode: PublicProbesMode) {
  return createRoute({
    method: 'post', path: `/${type}`, tags: ['probes'], middleware: [requireProbeAccess(mode)],
    summary: `Create a ${type} probe on one or more nodes`,
    description: `${TARGETS[type]}. Nodes: \`node_ids\`/\`node_id\`, or \`nodes\` {count, countries, regions, asns, providers, tags}, else 3 online nodes spread across countries and networks, among the nodes that serve the caller (their own, shared and platform nodes; anonymous: shared and platform nodes). Who may probe: VANTAGE_PUBLIC_PROBES (anonymous, accounts, off). One task per node; poll GET /v1/probe/tasks/{task_id} or stream …/stream.`,
    request: { body: jsonBody(probeRequestSchema(type)) },
    responses: { 202: jsonOk(probeCreatedSchema, '{task_id, task_ids[], status: queued}'), ...CREATE_ERRORS },
  });
}

const getTask = createRoute({
  method: 'get', path: '/tasks/{task_id}', tags: ['probes'],
  summary: 'Poll a probe: the group result of any of its task ids',
  description: 'status: queued (no node started), running, completed (every node ended, at least one success), failed (every node failed). node_results holds the nodes that have ended. completed_at: when the last node ended; updated_at: when the group last changed (after completed_at only when a node\'s late result replaced a failure the control plane recorded in its place).',
  request: { params: taskIdParam },
  responses: { 200: jsonOk(probeTaskResultSchema, 'the probe result with node_results[] and summary'), 404: jsonError('PROBE_JOB_NOT_FOUND') },
});

const streamTask = createRoute({
  method: 'get', path: '/tasks/{task_id}/stream', tags: ['probes'],
  summary: 'Stream a probe\'s node results as server-sent events',
  description: '`event: node_result` (id = result id, data = {task_id, ...node result}) per node as it ends, then `event: done` (data = the polling result). While the group holds a failure the control plane recorded in place of a node\'s result, the stream stays open up to 60 s: a late node result replacing it comes as `event: node_result` for the same task_id, then `event: update` (data = the polling result, updated_at moved). Send `Last-Event-ID` to resume.',
  request: {
    params: taskIdParam,
    headers: z.object({ 'last-event-id': z.string().max(64).optional().openapi({ description: 'result id of the last node_result received' }) }),
  },
  responses: {
    200: { description: 'text/event-stream of node_result frames, then done', content: { 'text/event-stream': { schema: z.string() } } },
    404: jsonError('PROBE_JOB_NOT_FOUND'),
  },
});

/** `task_id` when it has the shape of a probe task id. @throws PROBE_JOB_NOT_FOUND otherwise */
function requireTaskId(task_id: string): string {
  // isId, not idSchema(...).safeParse: building a zod schema per poll cost more than the poll's query.
  if (!isId('probe_task', task_id)) throw new ApiError('PROBE_JOB_NOT_FOUND', `no probe task ${task_id}`);
  return task_id;
}

/**
 * `/v1/probe`: POST /http, /ping, /dns, /tcp, /traceroute, /mtr, /smtp, /ntp, /headers, /speedtest, /ssl (docs/api/probes.md; 202 with
 * `{task_id, task_ids[], status: 'queued'}`), GET /tasks/{task_id} (polling, docs/api/probes.md) and
 * GET /tasks/{task_id}/stream (SSE). Creation is open to whom VANTAGE_PUBLIC_PROBES says
 * (probes/access.ts); a credential, when sent, adds the caller's own unshared nodes and lets the
 * caller probe private targets on their own nodes that allow it (docs/api/probes.md).
 * @param opts test hooks: resolver, node-pick randomness and SSE timings
 */
export function probesRouter(deps: AppDeps, opts: Pick<ProbeCreatorDeps, 'resolve' | 'random'> & { stream?: Partial<StreamTimings> } = {}) {
  const r = createRouter();
  const create = probeCreator({ sql: deps.sql, generic_sql: deps.generic_sql, log: deps.log, config: deps.config, hub: deps.hub, resolve: opts.resolve, random: opts.random });
  // Groups last polled, kept so a poll reads only what changed (view.ts).
  const views = new GroupViews(deps.sql);

  for (const type of PROBE_TYPES) {
    r.openapi(createProbeRoute(type, deps.config.public_probes), async (c) => {
      const body = c.req.valid('json') as Parameters<typeof create>[1];
      if (!body.node_ids && !body.node_id && !body.nodes && DEFAULT_NODES[type]) body.nodes = DEFAULT_NODES[type];
      return ok(c, await create(type, body, c.get('principal')), 202);
    });
  }

  r.openapi(getTask, async (c) => {
    const task_id = requireTaskId(c.req.valid('param').task_id);
    const data = await views.loadJson(task_id);
    if (data === null) throw new ApiError('PROBE_JOB_NOT_FOUND', `no probe task ${task_id}`);
    // The success envelope around JSON built once per version of the group (view.ts).
    return c.body(`{"data":${data},"request_id":${JSON.stringify(c.get('request_id'))}}`, 200, { 'content-type': 'application/json' }) as never;
  });

  r.openapi(streamTask, async (c) => {
    const task_id = requireTaskId(c.req.valid('param').task_id);
    return (await streamTaskEvents(c, deps.sql, task_id, opts.stream)) as never;
  });

  return r;
}
