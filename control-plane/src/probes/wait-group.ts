import type { ProbeTaskResult } from '@vantage/shared-protocol';
import { ApiError } from '../errors.js';
import type { GroupViews } from './view.js';

const DONE = new Set(['completed', 'failed']);
/** Pause between two reads of a group still running, ms. */
export const GROUP_POLL_MS = 200;

/**
 * The probe group of `task_id` once every node has ended (status completed or failed: docs/api/probes.md
 * "Polling"), read through `views` every `poll_ms` until then.
 * @throws ApiError PROBE_JOB_NOT_FOUND (no such task); `signal`'s reason once it aborts (the caller's bound)
 */
export async function waitForGroup(views: GroupViews, task_id: string, signal: AbortSignal, poll_ms = GROUP_POLL_MS): Promise<ProbeTaskResult> {
  for (;;) {
    const result = await views.load(task_id);
    if (!result) throw new ApiError('PROBE_JOB_NOT_FOUND', `no probe task ${task_id}`);
    if (DONE.has(result.status)) return result;
    signal.throwIfAborted();
    await new Promise((resolve) => setTimeout(resolve, poll_ms));
  }
}
