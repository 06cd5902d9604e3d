import type { ServerMessage } from '@vantage/shared-protocol';
import { z } from 'zod';
import { batchCalls } from '../db/batch.js';
import { storeRelayMessage, takeRelayMessage } from '../nodes/instances.db.js';
import type { Sql } from '../db/sql.js';
import type { Logger } from '../log.js';

/**
 * Cross-instance delivery through Postgres LISTEN/NOTIFY (docs/architecture/hub.md, several instances): every instance
 * LISTENs on one channel; a message for a node held elsewhere is NOTIFYed with the holder's
 * instance id. NOTIFY payloads are limited to 8000 bytes (Postgres docs, NOTIFY), so a larger
 * message is stored in `hub_relay_messages` and the NOTIFY carries only its row id.
 */
export type RelayEvent =
  | { k: 'send'; instance_id: string; node_id: string; message?: ServerMessage; ref?: number }
  | { k: 'drop'; node_ids: string[]; close: DropClose; except?: string };

type DropClose = 'node_disabled' | 'node_removed' | 'replaced';

const eventSchema = z.union([
  z.object({ k: z.literal('send'), instance_id: z.string(), node_id: z.string(), message: z.record(z.string(), z.unknown()).optional(), ref: z.number().int().optional() }),
  // `node_id`: one node, as instances before batched drops sent them.
  z.object({ k: z.literal('drop'), node_ids: z.array(z.string()).optional(), node_id: z.string().optional(), close: z.enum(['node_disabled', 'node_removed', 'replaced']), except: z.string().optional() }),
]);

/** Largest payload sent inline; Postgres refuses NOTIFY payloads of 8000 bytes or more. */
const INLINE_MAX_BYTES = 7000;

export interface Relay {
  /** Deliver `message` to `node_id` on `instance_id`. Throws when the database is unreachable. */
  send(instance_id: string, node_id: string, message: ServerMessage): Promise<void>;
  /** Ask every instance but `except` to close its socket for `node_id` with `close`. */
  drop(node_id: string, close: DropClose, except?: string): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Start listening on `channel`. `deliver` is called for send events addressed to `instance_id`,
 * `dropLocal` for drop events; malformed payloads are logged and ignored.
 */
export async function startRelay(opts: {
  sql: Sql; log: Logger; channel: string; instance_id: string;
  deliver: (node_id: string, message: ServerMessage) => void;
  dropLocal: (node_id: string, close: DropClose) => void;
}): Promise<Relay> {
  const { sql, log, channel, instance_id } = opts;
  const onPayload = async (payload: string): Promise<void> => {
    let parsed: z.infer<typeof eventSchema>;
    try {
      parsed = eventSchema.parse(JSON.parse(payload));
    } catch (err) {
      log.warn({ err }, 'ignoring malformed hub notification');
      return;
    }
    if (parsed.k === 'drop') {
      if (parsed.except === instance_id) return;
      for (const node_id of parsed.node_ids ?? (parsed.node_id ? [parsed.node_id] : [])) opts.dropLocal(node_id, parsed.close);
      return;
    }
    if (parsed.instance_id !== instance_id) return;
    if (parsed.message) return opts.deliver(parsed.node_id, parsed.message as ServerMessage);
    if (parsed.ref === undefined) return;
    const stored = await takeRelayMessage(sql, parsed.ref, instance_id);
    if (stored) opts.deliver(stored.node_id, stored.message as ServerMessage);
  };
  const listener = await sql.listen(channel, (payload) => {
    onPayload(payload).catch((err: unknown) => log.error({ err }, 'hub notification failed'));
  });
  const notify = (event: RelayEvent) => sql.notify(channel, JSON.stringify(event));
  // Drops asked for together (every node of a restart says hello at once, each replacing any
  // older socket elsewhere) go out as a few notifications of many nodes, not one each.
  const drops = batchCalls<{ node_id: string; close: DropClose; except?: string }, void>(async (items) => {
    const events = new Map<string, { close: DropClose; except?: string; node_ids: string[] }>();
    for (const { node_id, close, except } of items) {
      const key = `${close} ${except ?? ''}`;
      const event = events.get(key) ?? { close, ...(except ? { except } : {}), node_ids: [] };
      events.set(key, event);
      event.node_ids.push(node_id);
    }
    for (const { node_ids, ...rest } of events.values()) {
      for (const part of chunkByBytes(node_ids, INLINE_MAX_BYTES - 200)) await notify({ k: 'drop', node_ids: part, ...rest });
    }
    return items.map(() => undefined);
  }, { max: 5000 });
  return {
    async send(target, node_id, message) {
      const inline = JSON.stringify({ k: 'send', instance_id: target, node_id, message });
      if (Buffer.byteLength(inline) <= INLINE_MAX_BYTES) {
        await sql.notify(channel, inline);
        return;
      }
      const ref = await storeRelayMessage(sql, target, node_id, message);
      await notify({ k: 'send', instance_id: target, node_id, ref });
    },
    async drop(node_id, close, except) {
      await drops({ node_id, close, ...(except ? { except } : {}) });
    },
    async stop() {
      await listener.unlisten();
    },
  };
}

/** `ids` in consecutive parts whose JSON (quoted, comma-separated) stays under `max_bytes`. */
function chunkByBytes(ids: string[], max_bytes: number): string[][] {
  const parts: string[][] = [];
  let part: string[] = [];
  let bytes = 0;
  for (const id of ids) {
    const size = Buffer.byteLength(id) + 3;
    if (part.length > 0 && bytes + size > max_bytes) {
      parts.push(part);
      part = [];
      bytes = 0;
    }
    part.push(id);
    bytes += size;
  }
  if (part.length > 0) parts.push(part);
  return parts;
}
