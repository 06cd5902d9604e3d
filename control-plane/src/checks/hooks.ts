import type { MonitorState, MonitorType, StateChange } from '@vantage/shared-protocol';
import type { SqlExecutor } from '../contracts.js';
import type { Logger } from '../log.js';

/**
 * What the verdict job tells subscribers about one monitor after one pass (docs/architecture/checks.md
 * "Hooks"): the state before and after it and the verdict changes it recorded, oldest first. A
 * change is `late` when results arrived after their round's deadline (the nodes buffered them):
 * it happened a while ago, so a subscriber that pages people should not replay it as news.
 */
export interface StatePass {
  monitor: { id: string; user_id: string; name: string; type: MonitorType; target: string | null };
  previous_state: MonitorState;
  state: MonitorState;
  changes: StateChange[];
}

/**
 * A subscriber (webhook events, alerting). It is called once per verdict pass with every monitor
 * the pass recorded changes for (`passes`, one entry each, in the pass's order), inside the
 * verdict job's transaction (`tx`), so what it queues commits with the changes it reports,
 * exactly once; it should do its reads and writes for all of them together (a storm's pass holds
 * 200 monitors). It must not throw for data it does not care about (a throw rolls the pass back
 * and it is retried).
 */
export type StatePassListener = (passes: StatePass[], tx: SqlExecutor) => Promise<unknown> | unknown;

/** The registry subscribers add themselves to (one per process, built in main.ts). */
export interface CheckHooks {
  /** Subscribe; @returns unsubscribe */
  onStatePass(listener: StatePassListener): () => void;
  /** Run every subscriber for `passes` (nothing when empty), in subscription order. */
  emit(passes: StatePass[], tx: SqlExecutor): Promise<void>;
}

/** A hook registry. */
export function createCheckHooks(log?: Logger): CheckHooks {
  const listeners: StatePassListener[] = [];
  return {
    onStatePass(listener) {
      listeners.push(listener);
      return () => {
        const i = listeners.indexOf(listener);
        if (i >= 0) listeners.splice(i, 1);
      };
    },
    async emit(passes, tx) {
      if (passes.length === 0) return;
      for (const l of listeners) {
        try {
          await l(passes, tx);
        } catch (err) {
          log?.error({ err, monitor_ids: passes.map((p) => p.monitor.id) }, 'state-change subscriber failed');
          throw err;
        }
      }
    },
  };
}
