import type { ComponentChildren } from 'preact';
import type { Loaded } from '../api/use-api.js';
import { Empty, ErrorState, Loading } from './states.js';

/**
 * The states of a loaded list: the error with a retry, loading, the empty state (`empty`, saying
 * what to do next) when `items` of the data is empty, else `children` with the data.
 */
export function Listed<T>({ loaded, items, empty, children }: {
  loaded: Loaded<T>; items: (data: T) => unknown[]; empty: ComponentChildren; children: (data: T) => ComponentChildren;
}) {
  if (loaded.error) return <ErrorState error={loaded.error} retry={loaded.reload} />;
  if (!loaded.data) return <Loading />;
  if (items(loaded.data).length === 0) return <Empty>{empty}</Empty>;
  return <>{children(loaded.data)}</>;
}
