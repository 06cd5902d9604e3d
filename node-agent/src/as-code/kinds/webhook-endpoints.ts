import { z } from 'zod';
import { subscribableEventSchema, webhookEndpointCreateSchema, type WebhookEndpoint } from '@vantage/shared-protocol';
import { reportZod, type KindHandler } from './kind.js';

/*
 * `webhook_endpoints.<description>` (docs/api/webhooks.md): the endpoint's description is its
 * stable name (an endpoint without one is not managed by files). The `whsec_` signing secret is
 * made by the server and never written in a file: read it from the console or rotate it.
 */

/** An endpoint: `url` (http/https), `events[]` (event names or `*`), `enabled` (default true). */
export const webhookEndpointSpecSchema = z.strictObject({
  url: z.string().trim().min(1).max(2048),
  events: z.array(subscribableEventSchema).min(1),
  enabled: z.boolean().default(true),
});
type EndpointSpec = z.output<typeof webhookEndpointSpecSchema>;

const PATH = '/v1/webhook-endpoints';
const PAGE_SIZE = 200;

/** Webhook endpoints keyed by description; `enabled: false` is a PATCH after the create (the API creates them enabled). */
export const webhookEndpointKind: KindHandler = {
  kind: 'webhook_endpoint', section: 'webhook_endpoints', path: PATH, spec: webhookEndpointSpecSchema,
  resolve(name, spec, ctx) {
    const s = spec as EndpointSpec;
    const check = webhookEndpointCreateSchema.safeParse({ url: s.url, events: s.events, description: name });
    if (!check.success) reportZod(check.error, ctx.issue);
    const view = { url: s.url, events: [...new Set(s.events)], enabled: s.enabled };
    return { view, compare: Object.keys(view) };
  },
  async list(api) {
    const all: WebhookEndpoint[] = [];
    for (let page = 1; ; page++) {
      const res = await api.get<{ items: WebhookEndpoint[]; has_more: boolean }>(`${PATH}?page=${page}&page_size=${PAGE_SIZE}`);
      all.push(...res.items);
      if (!res.has_more || res.items.length === 0) break;
    }
    return all.map((e) => ({
      id: e.id, name: e.description || null, team_id: e.team_id, created_at: e.created_at,
      view: () => ({ url: e.url, events: e.events, enabled: e.enabled }),
    }));
  },
  exportSpec: (e) => e.view,
  async create(c, w) {
    const v = c.desired!.view as EndpointSpec;
    const { endpoint } = await w.api.post<{ endpoint: { id: string } }>(PATH, { url: v.url, events: v.events, description: c.name });
    if (!v.enabled) await w.api.patch(`${PATH}/${endpoint.id}`, { enabled: false });
    return endpoint.id;
  },
  async update(c, w) {
    const v = c.desired!.view;
    await w.api.patch(`${PATH}/${c.existing!.id}`, { url: v.url, events: v.events, enabled: v.enabled });
  },
};
