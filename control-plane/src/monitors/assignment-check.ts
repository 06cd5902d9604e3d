import { createHash } from 'node:crypto';
import { LIMITS, assignmentSchema, fieldIssues, httpHeadersFault, jsonDepthFault, type Assignment, type FieldIssue } from '@vantage/shared-protocol';
import { HEADER_TYPES } from './header-secrets.js';

/** Monitors whose verdict is remembered at most; past it the memory starts again (a verdict is cheap to redo). */
const VERDICTS_MAX = 100_000;
/** Nesting an assignment may have: the node's frame bound less the message object and its list. */
const ASSIGNMENT_DEPTH_MAX = LIMITS.ws_message_depth_max - 2;

/**
 * Why a node would refuse `a`, as field issues with paths from the assignment
 * (`check.config.headers.X Foo:`), or null when it takes it:
 * - its request headers break the request header rule (shared-protocol http-headers.ts), secrets
 *   opened, masks not accepted (docs/api/conventions.md "Request headers");
 * - it nests deeper than a node-protocol frame may (LIMITS.ws_message_depth_max, counted in the
 *   frame that carries it), or cannot be serialised at all;
 * - node-protocol `assignmentSchema` refuses it: the schema the node parses each assignment with
 *   (messages.ts splitAssignments), e.g. an `expected_fields` JSONPath using match() or a regex
 *   assertion that compiles too large, stored before the API refused them.
 */
function assignmentFaults(a: Assignment, json: string): FieldIssue[] | null {
  const headers: unknown = HEADER_TYPES.has(a.check.type) ? (a.check.config as { headers?: unknown }).headers : undefined;
  // Any other shape is the schema's to name, below.
  const bad = typeof headers === 'object' && headers !== null && !Array.isArray(headers) ? httpHeadersFault(headers as Record<string, string>) : null;
  if (bad) return [{ path: bad.name === null ? 'check.config.headers' : `check.config.headers.${bad.name}`, message: bad.message }];
  const deep = jsonDepthFault(json, ASSIGNMENT_DEPTH_MAX);
  if (deep) return [{ path: deep.path.slice(0, 200), message: deep.message }];
  const parsed = assignmentSchema.safeParse(a);
  return parsed.success ? null : fieldIssues(parsed.error);
}

/**
 * A guard for the assignment feed (assignment-feed.ts): `check(a)` says why a node would refuse
 * assignment `a` (field issues, see assignmentFaults above) or null when it would take it. Nodes
 * parse each assignment on its own and drop only a refused one, but the control plane does not send
 * it at all, so a monitor stored before a rule was added is withheld here with a reason in the log
 * rather than silently not run. Verdicts are remembered per monitor for the exact content checked
 * (a SHA-256 digest of the assignment's JSON: a revision, a re-sealed secret or a raw change all
 * count), so a set sent again costs a digest per monitor, not a validation.
 */
export function createAssignmentCheck(): (a: Assignment) => FieldIssue[] | null {
  const verdicts = new Map<string, { digest: string; faults: FieldIssue[] | null }>();
  return (a) => {
    let json: string;
    try {
      json = JSON.stringify(a);
    } catch (err) {
      return [{ path: 'check.config', message: `cannot be serialised: ${(err as Error).message}` }];
    }
    const digest = createHash('sha256').update(json).digest('base64url');
    const known = verdicts.get(a.monitor_id);
    if (known?.digest === digest) return known.faults;
    const faults = assignmentFaults(a, json);
    if (verdicts.size >= VERDICTS_MAX) verdicts.clear();
    verdicts.set(a.monitor_id, { digest, faults });
    return faults;
  };
}
