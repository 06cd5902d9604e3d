import { z, type OpenAPIHono } from '@hono/zod-openapi';
import { EVENT_CATALOG, EVENT_TYPES, WEBHOOK_HEADERS, eventEnvelopeSchema } from '@vantage/shared-protocol';

const headers = z.object({
  [WEBHOOK_HEADERS.id]: z.string().openapi({ description: 'The event id (evt_…): the same on every retry; de-duplicate on it', example: 'evt_01jd3k6w9z4q8r2t7v5x1y3b6c' }),
  [WEBHOOK_HEADERS.timestamp]: z.string().openapi({ description: 'Seconds since the epoch when this attempt was sent; refuse ones far from your clock', example: '1763805600' }),
  [WEBHOOK_HEADERS.signature]: z.string().openapi({
    description: 'Space-separated `v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}">`, one per live secret (two for 24 h after a rotation); the key is the base64 part of the whsec_ secret',
    example: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
  }),
});

/**
 * Describe every event of the catalog in the OpenAPI 3.1 document's `webhooks` section
 * (docs/api/webhooks.md): the POST Vantage sends to a subscribed endpoint, with the Standard
 * Webhooks headers and the event's envelope as body. Registered on the app itself (not a
 * sub-router, whose base path would be prefixed to the event names).
 */
export function registerEventWebhooks(app: OpenAPIHono<any>): void {
  for (const type of EVENT_TYPES) {
    app.openAPIRegistry.registerWebhook({
      method: 'post',
      path: type,
      tags: ['events'],
      summary: EVENT_CATALOG[type].description,
      description: `Sent to endpoints subscribed to \`${type}\`${type === 'webhook.ping' ? ' (only on request: POST /v1/webhook-endpoints/{id}/test)' : ' or to `*`'}. Signed per the Standard Webhooks specification; answer 2xx within the timeout, anything else is retried (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h).`,
      request: {
        headers,
        body: { required: true, content: { 'application/json': { schema: eventEnvelopeSchema(type) } } },
      },
      responses: {
        200: { description: 'Any 2xx status acknowledges the event' },
        default: { description: 'Any other status, a timeout or a network error: the delivery is retried' },
      },
    });
  }
}
