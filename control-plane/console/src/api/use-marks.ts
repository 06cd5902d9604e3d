import { useMemo } from 'preact/hooks';
import type { AsCodeKind, AsCodeMark } from '@vantage/shared-protocol';
import { useApi } from './use-api.js';

/** The marks of one kind, looked up by resource id: null for a resource no file manages. */
export type MarkOf = (resource_id: string) => AsCodeMark | null;

/**
 * The monitoring-as-code marks of one kind of resource, read once for the page (`kind` null: none, nothing read)
 * (`GET /v1/as-code/marks?kind=`, docs/api/as-code.md "Marks"), never once per row. Until they
 * have loaded (or when the read fails) every resource reads as unmarked: the marks are a
 * console guard, not an access rule; the API accepts the owner's edits either way.
 */
export function useMarks(kind: AsCodeKind | null): MarkOf {
  const marks = useApi<{ items: AsCodeMark[] }>(kind ? `/v1/as-code/marks?kind=${kind}` : null);
  const byId = useMemo(() => new Map((marks.data?.items ?? []).map((m) => [m.resource_id, m])), [marks.data]);
  return (id) => byId.get(id) ?? null;
}
