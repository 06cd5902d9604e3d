import type { Sql } from '../../db/sql.js';
import { getChannelsByIds, type AlertChannelRow } from '../alert-channels.db.js';

/** Reads alert channels for the senders, many sends' reads in one query. */
export interface ChannelLoader {
  /** The channel `id` as stored now, or null (deleted). Rejects with the query's error. */
  load(id: string): Promise<AlertChannelRow | null>;
}

/** Ids one query reads at most. */
const MAX_IDS = 500;

/**
 * A loader that gathers the channel reads asked for within one turn of the event loop (the sends
 * of one claim start together) into one query (alert-channels.db.ts getChannelsByIds). Nothing is
 * cached past that query: every send still reads the channel as it is at send time, so a config
 * change applies to the next attempt.
 */
export function createChannelLoader(sql: Sql): ChannelLoader {
  let waiting = new Map<string, Array<{ resolve: (row: AlertChannelRow | null) => void; reject: (err: unknown) => void }>>();
  let scheduled = false;

  async function flush(): Promise<void> {
    scheduled = false;
    const batch = waiting;
    waiting = new Map();
    const ids = [...batch.keys()];
    for (let i = 0; i < ids.length; i += MAX_IDS) {
      const part = ids.slice(i, i + MAX_IDS);
      try {
        const rows = new Map((await getChannelsByIds(sql, part)).map((r) => [r.id, r]));
        for (const id of part) for (const w of batch.get(id)!) w.resolve(rows.get(id) ?? null);
      } catch (err) {
        for (const id of part) for (const w of batch.get(id)!) w.reject(err);
      }
    }
  }

  return {
    load(id) {
      return new Promise((resolve, reject) => {
        const list = waiting.get(id);
        if (list) list.push({ resolve, reject });
        else waiting.set(id, [{ resolve, reject }]);
        if (!scheduled) {
          scheduled = true;
          setImmediate(() => void flush());
        }
      });
    },
  };
}
