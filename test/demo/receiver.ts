import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/** One POST the receiver got: the Standard Webhooks headers, whether the signature verified, the parsed body. */
export interface Received {
  at_ms: number;
  webhook_id: string;
  verified: boolean;
  error: string | null;
  /** `{id, type, timestamp, data}` (docs/api/alerting.md, webhook channel), or null when it did not parse. */
  body: { id: string; type: string; timestamp: string; data: Record<string, any> } | null;
}

/**
 * A local alert receiver for the demo's webhook channel: an HTTP server on 127.0.0.1 that checks
 * every delivery's signature with the Standard Webhooks reference library (`standardwebhooks`,
 * as docs/api/webhooks.md "Verifying a delivery" shows), answers 204 when it verifies and 401
 * otherwise, and keeps what it got. `secret` is the channel's `whsec_` secret, generated here.
 */
export interface WebhookReceiver {
  url: string;
  secret: string;
  received: Received[];
  /** Call `listener` for every delivery from now on. */
  onDelivery(listener: (r: Received) => void): void;
  /** Resolves with the first delivery (from now or earlier) that `match` accepts. */
  waitFor(match: (r: Received) => boolean): Promise<Received>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  const wh = new Webhook(secret);
  const received: Received[] = [];
  const listeners: Array<(r: Received) => void> = [];
  const waiters: Array<{ match: (r: Received) => boolean; resolve: (r: Received) => void }> = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const headers = { 'webhook-id': String(req.headers['webhook-id'] ?? ''), 'webhook-timestamp': String(req.headers['webhook-timestamp'] ?? ''), 'webhook-signature': String(req.headers['webhook-signature'] ?? '') };
      let body: Received['body'] = null;
      let error: string | null = null;
      try {
        body = wh.verify(raw, headers) as Received['body'];
      } catch (err) {
        error = (err as Error).message;
        try { body = JSON.parse(raw); } catch { /* not JSON */ }
      }
      const r: Received = { at_ms: Date.now(), webhook_id: headers['webhook-id'], verified: error === null, error, body };
      received.push(r);
      for (const l of listeners) l(r);
      for (const w of [...waiters]) if (w.match(r)) { waiters.splice(waiters.indexOf(w), 1); w.resolve(r); }
      res.writeHead(error === null ? 204 : 401).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/vantage-alerts`,
    secret, received,
    onDelivery: (listener) => { listeners.push(listener); },
    waitFor: (match) => {
      const seen = received.find(match);
      return seen ? Promise.resolve(seen) : new Promise((resolve) => waiters.push({ match, resolve }));
    },
    close: () => { server.closeAllConnections(); return new Promise<void>((resolve) => server.close(() => resolve())); },
  };
}
