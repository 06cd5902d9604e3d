import type { ApiClient } from './client.js';
import { resolveDesired, type Env } from './desired.js';
import { loadFiles, type AsCodeIssue, type Declared } from './load.js';
import { applyPlan, preflightMonitors, type ChangeResult } from './apply.js';
import { preflightStatusPages } from './kinds/status-pages.js';
import { makePlan, type Plan } from './plan.js';
import { readAccountState, type AccountState } from './state.js';

/** A plan made from files: the issues found (when any, `plan` is null and nothing may be applied). */
export interface PlanOutcome {
  issues: AsCodeIssue[];
  plan: Plan | null;
  state: AccountState;
}

/**
 * Plan already-parsed resources against the account: check each (format.ts, references, the API's
 * own monitor checks through a dry run, new status pages' slugs being free), then diff. Any
 * issue, in any resource, means no plan.
 * @throws ApiCallError when the account cannot be read
 */
export async function planResources(api: ApiClient, declared: Declared[], files: string[], opts: { env: Env; prune: boolean; issues?: AsCodeIssue[] }): Promise<PlanOutcome> {
  const state = await readAccountState(api);
  const { desired, issues } = resolveDesired(declared, state, opts.env);
  const all = [...(opts.issues ?? []), ...issues];
  if (all.length) return { issues: all, plan: null, state };
  const plan = makePlan(desired, state, { prune: opts.prune, files });
  const refused = [...await preflightMonitors(api, plan), ...await preflightStatusPages(api, plan)];
  return refused.length ? { issues: refused, plan: null, state } : { issues: [], plan, state };
}

/**
 * `vantage plan FILE...`: read the files and plan them (docs/api/as-code.md).
 * @throws Error when a file cannot be read; ApiCallError when the account cannot be read
 */
export async function planFiles(api: ApiClient, files: string[], opts: { env: Env; prune: boolean }): Promise<PlanOutcome> {
  const loaded = await loadFiles(files);
  return planResources(api, loaded.resources, files, { ...opts, issues: loaded.issues });
}

/**
 * `vantage apply FILE...`: plan, and when the plan has no issue carry it out. With issues,
 * nothing is changed. Applying the same files twice changes nothing the second time.
 */
export async function applyFiles(api: ApiClient, files: string[], opts: { env: Env; prune: boolean }): Promise<PlanOutcome & { results: ChangeResult[] }> {
  const outcome = await planFiles(api, files, opts);
  if (!outcome.plan) return { ...outcome, results: [] };
  return { ...outcome, results: await applyPlan(api, outcome.plan, outcome.state) };
}
