import type { NodeResult, ProbeTaskResult } from '@vantage/shared-protocol';
import type { Sql } from '../db/sql.js';
import { groupVersion, readGroup, resultsSince, type GroupRead, type GroupVersion } from './groups.db.js';
import { aggregateGroup, isReplaceable, type AggResult } from './aggregate.js';

/**
 * One group as last answered: the answer's JSON for its version and, while the group can still
 * change, the rows it was built from and the node results built from them. A final group (every
 * node has a result, none of them replaceable) keeps the JSON only: one string, no objects.
 */
interface Entry {
  version: GroupVersion;
  /** The answer for `version`, without its first member (`task_id`, the id polled). */
  rest: string | null;
  rows: { group: GroupRead; built: WeakMap<AggResult, NodeResult> } | null;
  /** What the entry holds, in bytes (rows counted at about 300 bytes each). */
  bytes: number;
}

/** Memory a {@link GroupViews} cache may hold, bytes; the least recently polled groups go first. */
const CACHED_BYTES_MAX = 48 * 1024 * 1024;
const ROW_BYTES = 300;
/** Polled ids that are not their group's id, remembered so their polls take the versioned path. */
const ALIASES_MAX = 10_000;

const same = (a: GroupVersion, b: GroupVersion) => a.results === b.results && a.max_seq === b.max_seq && a.started === b.started;

/**
 * The polling answer of probe groups (docs/api/probes.md result, probes/aggregate.ts), with the
 * groups last polled kept in memory so that a poll reads only what changed: one small statement
 * tells the group's version (groups.db.ts groupVersion); the same version is answered with the
 * JSON built for it, new results are read alone (seq after the last one seen) and only they are
 * built into node results; anything else (a replaced result, a result committed out of seq order,
 * a task that started) reads the whole group again in one statement (readGroup), so every answer
 * is one consistent state of the group. A group not in memory is read whole at once (one
 * statement). Node names and facts are those of the group's last full read.
 */
export class GroupViews {
  readonly #cache = new Map<string, Entry>();
  readonly #busy = new Map<string, Promise<unknown>>();
  /** Ids other than the group id (a group's first task id) polled lately → their group id. */
  readonly #aliases = new Map<string, string>();
  #bytes = 0;

  constructor(private readonly sql: Sql, private readonly max_bytes = CACHED_BYTES_MAX) {}

  /**
   * The polling answer's JSON (`data` of GET /v1/probe/tasks/{task_id}) for any id of a group;
   * null when unknown. A group not in memory (its first poll, usually) is read whole at once: its
   * version comes with it, so that poll is one statement, not two.
   */
  async loadJson(task_id: string): Promise<string | null> {
    const known = this.#cache.has(task_id) ? task_id : this.#aliases.get(task_id);
    // One refresh of a group at a time: two polls must not both append the same new results.
    const rest = known !== undefined && this.#cache.has(known)
      ? await this.#versioned(task_id)
      : await this.#serial(task_id, () => this.#build(this.#read(task_id), task_id));
    return rest === null ? null : `{"task_id":${JSON.stringify(task_id)},${rest}`;
  }

  /** The answer of a group in memory: its version first, then only what changed. */
  async #versioned(task_id: string): Promise<string | null> {
    const version = await groupVersion(this.sql, task_id);
    if (!version) return null;
    return this.#serial(version.group_id, () => this.#answer(task_id, version));
  }

  /** The polling answer for `task_id` as an object (parsed from {@link loadJson}). */
  async load(task_id: string): Promise<ProbeTaskResult | null> {
    const json = await this.loadJson(task_id);
    return json === null ? null : (JSON.parse(json) as ProbeTaskResult);
  }

  async #answer(task_id: string, version: GroupVersion): Promise<string | null> {
    const cached = this.#cache.get(version.group_id);
    if (cached?.rest != null && same(cached.version, version)) {
      this.#touch(version.group_id, cached);
      return cached.rest;
    }
    return this.#build((await this.#refresh(version)) ?? (await this.#read(task_id)), task_id);
  }

  /** Build (and keep) the answer of `entry`, the group of the polled `task_id`; null when there is none. */
  async #build(pending: Entry | null | Promise<Entry | null>, task_id: string): Promise<string | null> {
    const entry = await pending;
    if (!entry?.rows) return null;
    const { group, built } = entry.rows;
    if (group.group_id !== task_id) this.#alias(task_id, group.group_id);
    const { task_id: _polled, ...rest } = aggregateGroup(group.group_id, group.tasks, group.results, group.nodes, built);
    entry.rest = JSON.stringify(rest).slice(1);
    const final = (rest.status === 'completed' || rest.status === 'failed') && !group.results.some(isReplaceable);
    if (final) entry.rows = null;
    this.#touch(group.group_id, entry);
    return entry.rest;
  }

  /** The cached rows brought to `version` by reading only new results, or null when that cannot be done. */
  async #refresh(version: GroupVersion): Promise<Entry | null> {
    const entry = this.#cache.get(version.group_id);
    if (!entry?.rows || (version.started && !entry.version.started)) return null;
    const { group } = entry.rows;
    if (version.max_seq > entry.version.max_seq) {
      const rows = await resultsSince(this.sql, version.group_id, entry.version.max_seq);
      const have = new Set(group.results.map((r) => r.task_id));
      if (rows.some((r) => have.has(r.task_id))) return null; // a replacement: read it all again
      const tasks = new Map(group.tasks.map((t) => [t.id, t]));
      for (const { task_finished_at, task_status, ...r } of rows) {
        group.results.push(r);
        const task = tasks.get(r.task_id);
        if (task) Object.assign(task, { finished_at: task_finished_at, status: task_status });
      }
      entry.version = { ...version, results: group.results.length, max_seq: Math.max(version.max_seq, ...rows.map((r) => r.seq)) };
    }
    // A count the seqs do not explain: a result committed after one with a higher seq.
    if (group.results.length < version.results) return null;
    return entry;
  }

  async #read(task_id: string): Promise<Entry | null> {
    const group = await readGroup(this.sql, task_id);
    if (!group) return null;
    const max_seq = group.results.reduce((m, r) => Math.max(m, r.seq), 0);
    return {
      version: { group_id: group.group_id, results: group.results.length, max_seq, started: group.tasks.some((t) => t.status !== 'queued') },
      rest: null, rows: { group, built: new WeakMap() }, bytes: 0,
    };
  }

  /** Remember that `task_id` belongs to `group_id` (the latest ALIASES_MAX such ids). */
  #alias(task_id: string, group_id: string): void {
    this.#aliases.delete(task_id);
    this.#aliases.set(task_id, group_id);
    if (this.#aliases.size > ALIASES_MAX) this.#aliases.delete(this.#aliases.keys().next().value!);
  }

  /** Run `fn` after every earlier `fn` of `group_id` settled. */
  async #serial<T>(group_id: string, fn: () => Promise<T>): Promise<T> {
    const run = (this.#busy.get(group_id) ?? Promise.resolve()).catch(() => {}).then(fn);
    this.#busy.set(group_id, run);
    try {
      return await run;
    } finally {
      if (this.#busy.get(group_id) === run) this.#busy.delete(group_id);
    }
  }

  /** Store `entry` as the most recently used and evict the least recently used past the bound. */
  #touch(group_id: string, entry: Entry): void {
    const old = this.#cache.get(group_id);
    if (old) this.#bytes -= old.bytes;
    entry.bytes = (entry.rest?.length ?? 0) + (entry.rows ? entry.rows.group.results.length * ROW_BYTES : 0);
    this.#bytes += entry.bytes;
    this.#cache.delete(group_id);
    this.#cache.set(group_id, entry);
    for (const [id, e] of this.#cache) {
      if (this.#bytes <= this.max_bytes || id === group_id) break;
      this.#cache.delete(id);
      this.#bytes -= e.bytes;
    }
  }
}

/**
 * The polling answer for `task_id` read afresh (no cache); null when the id is unknown. The group
 * is read in one statement (groups.db.ts readGroup).
 */
export async function loadTaskResult(sql: Sql, task_id: string): Promise<ProbeTaskResult | null> {
  const group = await readGroup(sql, task_id);
  return group ? aggregateGroup(task_id, group.tasks, group.results, group.nodes) : null;
}
