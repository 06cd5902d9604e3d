import { ARTIFACT_KINDS, ARTIFACT_URL_FIELDS, parseArtifactPath, type ArtifactKind, type ResultEnvelope } from '@vantage/shared-protocol';

/** One artifact a result names and the node must upload before the result is sent. */
export interface ArtifactRef {
  kind: ArtifactKind;
  sha256: string;
  monitor_id: string;
  /** The result's round, ISO 8601 UTC (the upload is authorised per monitor and round). */
  scheduled_at: string;
}

/**
 * The artifacts a result waits for: a monitor result of type `browser` whose `har_url` or
 * `screenshot_url` is an artifact path of its own monitor (shared-protocol artifactPath, as
 * browser/check.ts writes it once the bytes are in the spool). Every other result names none.
 */
export function artifactRefsOf(result: ResultEnvelope): ArtifactRef[] {
  if (result.type !== 'browser' || !result.monitor_id || !('scheduled_at' in result)) return [];
  const output = result.output as Record<string, unknown> | null;
  if (!output) return [];
  const refs: ArtifactRef[] = [];
  for (const kind of ARTIFACT_KINDS) {
    const value = output[ARTIFACT_URL_FIELDS[kind]];
    const parsed = typeof value === 'string' ? parseArtifactPath(value) : null;
    if (parsed && parsed.monitor_id === result.monitor_id) {
      refs.push({ kind, sha256: parsed.sha256, monitor_id: result.monitor_id, scheduled_at: String(result.scheduled_at) });
    }
  }
  return refs;
}
