/**
 * A map keyed by (node id, monitor id), for what the check store remembers per node and monitor.
 * Kept as a map per node rather than one map keyed by joined ids: a lookup then hashes the ids as
 * they came instead of building, flattening and hashing a new joined string for every monitor of
 * every batch. `size` counts every pair held.
 */
export class NodeMonitorMap<V> {
  private readonly nodes = new Map<string, Map<string, V>>();
  size = 0;

  /** The values held for `node_id` by monitor id (an empty map when none: not kept). */
  of(node_id: string): ReadonlyMap<string, V> {
    return this.nodes.get(node_id) ?? EMPTY;
  }

  set(node_id: string, monitor_id: string, value: V): void {
    let m = this.nodes.get(node_id);
    if (!m) this.nodes.set(node_id, (m = new Map()));
    const before = m.size;
    m.set(monitor_id, value);
    this.size += m.size - before;
  }

  clear(): void {
    this.nodes.clear();
    this.size = 0;
  }
}

const EMPTY: ReadonlyMap<string, never> = new Map<string, never>();
