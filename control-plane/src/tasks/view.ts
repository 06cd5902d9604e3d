import type { ProbeTaskResult } from '@vantage/shared-protocol';
import type { Sql } from '../db/sql.js';
import { loadGroup } from '../db/tasks.js';
import { aggregateGroup } from './aggregate.js';

/**
 * The polling answer for `task_id` (any id of a probe group; spec 2.3 result, tasks/aggregate.ts),
 * plus its group id; null when the id is unknown.
 */
export async function loadTaskResult(sql: Sql, task_id: string): Promise<{ result: ProbeTaskResult; group_id: string } | null> {
  const group = await loadGroup(sql, task_id);
  if (!group || group.tasks.length === 0) return null;
  return { result: aggregateGroup(task_id, group.tasks, group.results, group.nodes), group_id: group.tasks[0]!.group_id };
}
