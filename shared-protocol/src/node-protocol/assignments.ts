import { z } from 'zod';
import { idSchema, isId } from '../ids.js';
import { issuePath, type FieldIssue } from '../parse.js';
import { PUBLIC_ONLY, targetPolicySchema } from '../probe/address-policy.js';
import { monitorCheckSpecSchema } from '../checks/result.js';

/*
 * The assignment messages of the node protocol (messages.ts holds the unions): the monitors a node
 * runs on its own schedule, sent whole (`assignments.full`) or as changes (`assignments.delta`),
 * each assignment validated on its own so a bad one costs only itself.
 */

/**
 * One monitor the node runs on its own schedule (docs/architecture/node-agent.md, assignments). `policy` is
 * the monitor owner's target policy, as in `task.run`; absent = public addresses only. `check` is
 * the monitor's type, target and config with defaults filled (checks/result.ts
 * monitorCheckSpecSchema; docs/api/checks.md).
 * @example { "monitor_id": "m_…", "interval_s": 60, "phase_ms": 41237, "check": { "type": "http", "target": "https://example.com", "config": { … } } }
 */
export const assignmentSchema = z.object({
  monitor_id: idSchema('monitor'),
  interval_s: z.number().int().min(10).max(86_400),
  /**
   * The phase of the monitor's rounds, ms in [0, interval_s * 1000): round k starts at
   * `phase_ms + k * interval_s * 1000` epoch ms (monitors/rounds.ts roundPhaseMs; absent = computed
   * from monitor_id the same way), so every node runs round k at the same instant.
   */
  phase_ms: z.number().int().min(0).max(86_400_000).optional(),
  policy: targetPolicySchema.default(() => ({ ...PUBLIC_ONLY, allow_cidrs: [] })),
  check: monitorCheckSpecSchema,
});
export type Assignment = z.infer<typeof assignmentSchema>;
/** An assignment as a sender may write it (`policy` may be left out: public only). */
export type AssignmentInput = z.input<typeof assignmentSchema>;

/**
 * An assignment the receiver could not take, left out of a parsed `assignments.full` or
 * `assignments.delta` while the rest of the message is kept (a bad assignment costs only itself,
 * docs/architecture/node-agent.md "Assignments"): `index` in the message's list, `monitor_id` when
 * the entry carries a valid one (null otherwise), and why, as field issues whose paths start at the
 * message (`assignments[2].check.config.headers.X Foo:`). Never on the wire: the parser fills it.
 */
export interface RefusedAssignment {
  index: number;
  monitor_id: string | null;
  issues: FieldIssue[];
}

/**
 * Validate each entry of an assignments list on its own with {@link assignmentSchema}: the valid
 * ones (defaults filled) in order, and the others as {@link RefusedAssignment}s. `key` is the
 * list's field in the message, for the issue paths.
 */
export function splitAssignments(entries: readonly unknown[], key: 'assignments' | 'upsert'): { valid: Assignment[]; refused: RefusedAssignment[] } {
  const valid: Assignment[] = [];
  const refused: RefusedAssignment[] = [];
  entries.forEach((entry, index) => {
    const r = assignmentSchema.safeParse(entry);
    if (r.success) {
      valid.push(r.data);
      return;
    }
    const monitor_id = typeof entry === 'object' && entry !== null ? (entry as { monitor_id?: unknown }).monitor_id : undefined;
    refused.push({
      index,
      monitor_id: isId('monitor', monitor_id) ? monitor_id : null,
      issues: r.error.issues.map((i) => ({ path: issuePath([key, index, ...i.path]), message: i.message })),
    });
  });
  return { valid, refused };
}

/**
 * An entry of an assignments list as the envelope reads it: any JSON value, typed for senders as
 * {@link AssignmentInput}. Each is then validated on its own ({@link splitAssignments}), so an
 * assignment this side cannot take (a config an older version stored, a check type it does not
 * know) costs only itself, never the message.
 */
const assignmentEntrySchema = z.custom<AssignmentInput>();

/**
 * The full assignment set at `version`; replaces whatever the node held. Sent on every connect.
 * Parsed, `assignments` holds the entries that are valid assignments and `refused` (present only
 * when some were not) the others ({@link RefusedAssignment}); the node keeps the valid ones.
 * @example { "type": "assignments.full", "version": 42, "assignments": [] }
 */
export const assignmentsFullMessageSchema = z.object({
  type: z.literal('assignments.full'),
  version: z.number().int().min(0),
  assignments: z.array(assignmentEntrySchema),
}).transform(({ assignments, ...m }): { type: 'assignments.full'; version: number; assignments: Assignment[]; refused?: RefusedAssignment[] } => {
  const { valid, refused } = splitAssignments(assignments, 'assignments');
  return { ...m, assignments: valid, ...(refused.length > 0 ? { refused } : {}) };
});

/**
 * Changes from `from_version` to `version`. A node whose version differs from `from_version`
 * ignores it and waits for the next full set (it acks its own version so the server resends).
 * Parsed, `upsert` holds the valid assignments and `refused` (present only when some were not)
 * the others, as in {@link assignmentsFullMessageSchema}; a node drops what it held of a refused one.
 * @example { "type": "assignments.delta", "from_version": 42, "version": 43, "upsert": [], "remove": ["m_…"] }
 */
export const assignmentsDeltaMessageSchema = z.object({
  type: z.literal('assignments.delta'),
  from_version: z.number().int().min(0),
  version: z.number().int().min(1),
  upsert: z.array(assignmentEntrySchema),
  remove: z.array(idSchema('monitor')),
}).transform(({ upsert, ...m }): {
  type: 'assignments.delta'; from_version: number; version: number; upsert: Assignment[]; remove: string[]; refused?: RefusedAssignment[];
} => {
  const { valid, refused } = splitAssignments(upsert, 'upsert');
  return { ...m, upsert: valid, ...(refused.length > 0 ? { refused } : {}) };
});
