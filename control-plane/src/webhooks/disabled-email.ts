import { renderEmail, type RenderedEmail } from '../email/layout.js';

/**
 * The e-mail to an endpoint's owner when Vantage disabled it after it failed continuously
 * (docs/api/webhooks.md "Failing endpoints").
 */
export function endpointDisabledEmail(e: { url: string; endpoint_id: string; failing_since: Date; after_s: number }): RenderedEmail {
  const days = Math.round((e.after_s / 86400) * 10) / 10;
  return renderEmail({
    subject: `Webhook endpoint disabled: ${e.url}`,
    paragraphs: [
      `Every delivery to your webhook endpoint ${e.url} (${e.endpoint_id}) has failed since ${e.failing_since.toISOString()}, for more than ${days} days, so Vantage has disabled it. No further events are sent to it.`,
      'Once the receiver works again, enable the endpoint with PATCH /v1/webhook-endpoints/' + e.endpoint_id + ' {"enabled": true}. The attempt log (GET /v1/webhook-endpoints/' + e.endpoint_id + '/deliveries) shows what the receiver answered; failed deliveries can be sent again with POST …/deliveries/{delivery_id}/redeliver.',
    ],
    footer: 'You receive this e-mail because you own this webhook endpoint on Vantage.',
  });
}
