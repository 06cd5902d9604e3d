import { EventEmitter } from 'node:events';

/**
 * In-process wake-ups for result streams: after a transaction that stored results for a probe
 * group commits, its group id is signalled, so an SSE stream on this instance sends the result
 * at once instead of at its next database poll. Streams still poll (results stored by another
 * instance are found that way), so a missed signal costs latency, never a result.
 */
const emitter = new EventEmitter();
emitter.setMaxListeners(0);

/** Signal that results of `group_ids` were committed (call after COMMIT). */
export function signalGroups(group_ids: Iterable<string>): void {
  for (const id of new Set(group_ids)) emitter.emit(id);
}

/**
 * Resolve after `ms`, or earlier when `group_id` is signalled or `abort` fires.
 * @param ms the poll period that bounds the wait
 */
export function waitForGroup(group_id: string, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const done = () => { clearTimeout(timer); emitter.off(group_id, done); resolve(); };
    const timer = setTimeout(done, ms);
    emitter.once(group_id, done);
  });
}
