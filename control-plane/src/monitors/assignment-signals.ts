import { EventEmitter } from 'node:events';

/**
 * In-process news that nodes' assignment versions moved (placement committed a change). With a
 * database server every instance learns it from NOTIFY vantage_assignments; in embedded mode
 * (PGlite delivers no NOTIFY, one instance) the assignment feed listens here instead. Node ids are
 * globally unique, so several apps in one process (tests) can share it: each feed acts only on
 * the nodes it holds.
 */
const signals = new EventEmitter();
signals.setMaxListeners(0);

/** Tell this process's assignment feeds that `node_ids` have new versions (after commit). */
export function signalAssignmentsChanged(node_ids: string[]): void {
  if (node_ids.length > 0) signals.emit('changed', node_ids);
}

/** Listen for {@link signalAssignmentsChanged}. @returns a function that stops listening */
export function onAssignmentsChanged(listener: (node_ids: string[]) => void): () => void {
  signals.on('changed', listener);
  return () => signals.off('changed', listener);
}
