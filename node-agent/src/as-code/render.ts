import type { AsCodeIssue } from './load.js';
import type { Plan, ResourceChange } from './plan.js';

const SIGN = { create: '+', update: '~', delete: '-' } as const;
const VERB = { create: 'will be created', update: 'will be changed', delete: 'will be deleted' } as const;

const show = (v: unknown) => (v === undefined ? '(absent)' : JSON.stringify(v));

function renderChange(c: ResourceChange): string[] {
  const head = `${SIGN[c.action]} ${c.kind} "${c.name}" ${c.mark_only ? 'will be marked as managed by' : VERB[c.action]}${c.mark_only ? ` ${c.source_file}` : ` (${c.source_file})`}`;
  const lines = [head];
  for (const f of c.fields) {
    if (c.action === 'create') lines.push(`    + ${f.path}: ${show(f.after)}`);
    else if (c.action === 'delete') lines.push(`    - ${f.path}: ${show(f.before)}`);
    else lines.push(`    ~ ${f.path}: ${show(f.before)} -> ${show(f.after)}`);
  }
  return lines;
}

/**
 * A plan as text: one block per resource (`+` create, `~` change with `before -> after` per
 * field, `-` delete) and the summary line `Plan: N to create, N to change, N to delete.`
 * (or `No changes.`). Secrets appear only masked, as the API shows them.
 */
export function renderPlan(plan: Plan): string {
  const lines = plan.changes.flatMap((c) => [...renderChange(c), '']);
  const { create, update, delete: del } = plan.summary;
  lines.push(plan.changes.length ? `Plan: ${create} to create, ${update} to change, ${del} to delete.` : 'No changes. The account matches the files.');
  return lines.join('\n');
}

/** Issues as lines `file: path: message`, one per issue. */
export function renderIssues(issues: AsCodeIssue[]): string {
  return issues.map((i) => `${i.source_file}: ${i.path || '(file)'}: ${i.message}`).join('\n');
}
