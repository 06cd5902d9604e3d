import { applyFiles, exportAccount, planFiles, renderIssues, renderPlan, asCodeJsonSchema, type ChangeResult, type PlanOutcome } from '../../as-code/index.js';
import type { ApiClient } from '../../as-code/client.js';
import { EXIT, type VantageIo } from './io.js';

function issuesOut(io: VantageIo, outcome: PlanOutcome, json: boolean): number {
  if (json) io.out(JSON.stringify({ ok: false, issues: outcome.issues }, null, 2));
  else io.err(`Nothing was changed: ${outcome.issues.length} issue(s) in the files.\n${renderIssues(outcome.issues)}`);
  return EXIT.error;
}

const changeJson = (o: PlanOutcome) => o.plan!.changes.map((c) => ({ action: c.action, kind: c.kind, name: c.name, source_file: c.source_file, mark_only: c.mark_only, fields: c.fields }));

/** `vantage plan FILE...`: the plan as text (or JSON); exit 2 when changes are pending, 0 when none, 1 on issues. */
export async function planCommand(io: VantageIo, api: ApiClient, files: string[], opts: { prune: boolean; json: boolean }): Promise<number> {
  const outcome = await planFiles(api, files, { env: io.env, prune: opts.prune });
  if (!outcome.plan) return issuesOut(io, outcome, opts.json);
  if (opts.json) io.out(JSON.stringify({ ok: true, summary: outcome.plan.summary, changes: changeJson(outcome) }, null, 2));
  else io.out(renderPlan(outcome.plan));
  return outcome.plan.changes.length ? EXIT.changes : EXIT.ok;
}

function resultLine(r: ChangeResult): string {
  const past = { create: 'created', update: 'changed', delete: 'deleted' }[r.action];
  return r.status === 'done' ? `${past} ${r.kind} "${r.name}"` : `FAILED ${r.action} ${r.kind} "${r.name}": ${r.error!.code}: ${r.error!.message}`;
}

/** `vantage apply FILE...`: plan, print it, carry it out; exit 0 when every change was done, 1 otherwise. */
export async function applyCommand(io: VantageIo, api: ApiClient, files: string[], opts: { prune: boolean; json: boolean }): Promise<number> {
  const outcome = await applyFiles(api, files, { env: io.env, prune: opts.prune });
  if (!outcome.plan) return issuesOut(io, outcome, opts.json);
  const failed = outcome.results.filter((r) => r.status === 'failed').length;
  if (opts.json) {
    io.out(JSON.stringify({ ok: failed === 0, summary: outcome.plan.summary, results: outcome.results }, null, 2));
  } else {
    io.out(renderPlan(outcome.plan));
    for (const r of outcome.results) (r.status === 'done' ? io.out : io.err)(resultLine(r));
    const done = outcome.results.length - failed;
    io.out(outcome.results.length ? `Apply complete: ${done} done, ${failed} failed.` : 'Nothing to apply.');
  }
  return failed ? EXIT.error : EXIT.ok;
}

/** `vantage export`: the account as a version 1 file (YAML, or JSON with --json). */
export async function exportCommand(io: VantageIo, api: ApiClient, opts: { json: boolean }): Promise<number> {
  io.out((await exportAccount(api, opts.json ? 'json' : 'yaml')).trimEnd());
  return EXIT.ok;
}

/** `vantage schema`: the JSON Schema of the file format, for editors. */
export function schemaCommand(io: VantageIo): number {
  io.out(JSON.stringify(asCodeJsonSchema(), null, 2));
  return EXIT.ok;
}
