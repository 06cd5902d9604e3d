import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { glob } from 'tinyglobby';
import {
  applyPlan, createApiClient, parseFileText, planResources, renderIssues, type AsCodeIssue, type ChangeResult, type Declared, type Env, type FetchLike,
} from '@vantage/node-agent/as-code';
import type { Logger } from '../log.js';

/** What one provisioning pass did: files applied, files refused (with their issues) and each change's result. */
export interface ProvisionReport {
  applied_files: string[];
  refused_files: Array<{ file: string; issues: AsCodeIssue[] }>;
  results: ChangeResult[];
}

/** What provisioning needs: the glob, the account's API key, prune, poll interval (config/as-code.ts), where the API answers and the env secrets come from. */
export interface ProvisionOptions {
  pattern: string;
  api_key: string;
  prune: boolean;
  poll_ms: number;
  /** The control plane's own base URL (its listening address), or any with `fetch` given. */
  base_url: string;
  fetch?: FetchLike;
  /** Environment read once at start: channel secrets' `{ env: NAME }` references. */
  env: Env;
  log: Logger;
}

/**
 * Apply the files matching `pattern` through the public API (docs/api/as-code.md
 * "Provisioning"). Each file is checked whole: a file with any issue (its own, or a reference to
 * a refused file's resource, or a monitor the API refuses) is left out entirely, its issues
 * logged per resource, and nothing of it is applied; the other files are applied together. With
 * `prune`, resources marked from the applied files, and from files gone since the last pass, that
 * no file names any more are deleted; a refused file's resources are kept as they are.
 * @throws ApiCallError when the account cannot be read (the caller logs and retries at the next change)
 */
export async function provisionOnce(opts: ProvisionOptions, previous: Set<string>): Promise<ProvisionReport> {
  const api = createApiClient({ base_url: opts.base_url, token: opts.api_key, fetch: opts.fetch });
  const files = (await glob(opts.pattern, { absolute: true, onlyFiles: true })).sort();
  const refused = new Map<string, AsCodeIssue[]>();
  const byFile = new Map<string, Declared[]>();
  for (const file of files) {
    const { resources, issues } = parseFileText(file, await readFile(file, 'utf8'));
    if (issues.length) refused.set(file, issues);
    else byFile.set(file, resources);
  }
  // Issues found against the account refuse their files; what remains is planned again.
  for (;;) {
    const good = [...byFile.keys()];
    const gone = [...previous].filter((f) => !files.includes(f));
    const outcome = await planResources(api, good.flatMap((f) => byFile.get(f)!), [...good, ...gone], { env: opts.env, prune: opts.prune });
    if (outcome.plan) {
      const results = await applyPlan(api, outcome.plan, outcome.state);
      return { applied_files: good, refused_files: [...refused].map(([file, issues]) => ({ file, issues })), results };
    }
    for (const issue of outcome.issues) {
      refused.set(issue.source_file, [...(refused.get(issue.source_file) ?? []), issue]);
      byFile.delete(issue.source_file);
    }
  }
}

/**
 * Provision at start and then whenever a matching file appears, changes or goes (checked every
 * `poll_ms` by content hash). Failures are logged; the next change tries again.
 * @returns `stop()` (waits for a pass under way) and `onPass(fn)`, called with each pass's report
 */
export function startProvisioning(opts: ProvisionOptions): { stop(): Promise<void>; onPass(fn: (r: ProvisionReport) => void): void } {
  const log = opts.log.child({ module: 'as-code.provision' });
  const listeners: Array<(r: ProvisionReport) => void> = [];
  let lastDigest = '';
  const previous = new Set<string>();
  let running: Promise<void> = Promise.resolve();
  let stopped = false;
  const digest = async () => {
    const h = createHash('sha256');
    for (const f of (await glob(opts.pattern, { absolute: true, onlyFiles: true })).sort()) h.update(f).update('\0').update(await readFile(f)).update('\0');
    return h.digest('hex');
  };
  const pass = async () => {
    const d = await digest();
    if (d === lastDigest) return;
    const report = await provisionOnce(opts, previous);
    lastDigest = d;
    previous.clear();
    for (const f of report.applied_files) previous.add(f);
    for (const r of report.refused_files) log.error({ file: r.file, issues: r.issues }, `provisioning file refused, nothing of it applied:\n${renderIssues(r.issues)}`);
    for (const r of report.results.filter((x) => x.status === 'failed')) log.error({ kind: r.kind, name: r.name, error: r.error }, 'provisioned resource failed');
    const done = report.results.filter((x) => x.status === 'done').length;
    log.info({ files: report.applied_files.length, refused: report.refused_files.length, changes: done }, 'monitoring-as-code files provisioned');
    for (const fn of listeners) fn(report);
  };
  const tick = () => {
    running = running.then(pass).catch((err: unknown) => log.error({ err }, 'provisioning failed; retried at the next check'));
  };
  tick();
  const timer = setInterval(() => { if (!stopped) tick(); }, opts.poll_ms);
  timer.unref();
  return {
    async stop() { stopped = true; clearInterval(timer); await running; },
    onPass(fn) { listeners.push(fn); },
  };
}
