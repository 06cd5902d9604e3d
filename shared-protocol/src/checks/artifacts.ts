import { z } from 'zod';
import { idSchema, isId } from '../ids.js';

/**
 * Check artifacts (docs/api/artifacts.md): the files a browser check keeps besides its metadata,
 * the HAR 1.2 archive (`har`, JSON) and the full-page screenshot (`screenshot`, PNG). A node
 * uploads them to the control plane, which stores them content-addressed (by SHA-256) and serves
 * them to the monitor's owner.
 */
export const ARTIFACT_KINDS = ['har', 'screenshot'] as const;
export type ArtifactKind = (typeof ARTIFACT_KINDS)[number];
export const artifactKindSchema = z.enum(ARTIFACT_KINDS);

/** Media type each artifact kind is served with. */
export const ARTIFACT_CONTENT_TYPES: Record<ArtifactKind, string> = { har: 'application/json', screenshot: 'image/png' };

/** Which browser output field holds the URL of each kind (docs/api/checks.md "browser"). */
export const ARTIFACT_URL_FIELDS = { har: 'har_url', screenshot: 'screenshot_url' } as const satisfies Record<ArtifactKind, string>;

/** Default bound on one uploaded artifact, bytes (the control plane's `artifact_max_bytes`). */
export const ARTIFACT_MAX_BYTES_DEFAULT = 10 * 1024 * 1024;

/** A SHA-256 digest as artifacts are named by: 64 lower-case hex digits. */
export const SHA256_HEX = /^[0-9a-f]{64}$/;
export const sha256Schema = z.string().regex(SHA256_HEX, 'must be a SHA-256 digest: 64 lower-case hex digits');

/** Path under which nodes upload artifacts: `PUT {NODE_ARTIFACT_PATH}/{sha256}` with the node credential. */
export const NODE_ARTIFACT_PATH = '/v1/nodes/artifacts';

/**
 * Query of a node's artifact upload (`PUT /v1/nodes/artifacts/{sha256}`, docs/api/artifacts.md):
 * the result the artifact belongs to, named by its monitor and round (`scheduled_at`, ISO 8601
 * UTC), and what kind of file it is. The control plane accepts it only from a node placed on
 * that browser monitor for that round.
 * @example { monitor_id: 'm_01J…', scheduled_at: '2026-11-23T01:00:00.000Z', kind: 'har' }
 */
export const artifactUploadQuerySchema = z.object({
  monitor_id: idSchema('monitor'),
  scheduled_at: z.iso.datetime(),
  kind: artifactKindSchema,
});
export type ArtifactUploadQuery = z.infer<typeof artifactUploadQuerySchema>;

/**
 * Answer to a stored upload: the digest, size in bytes, and whether this upload wrote the file
 * (false: the same content was stored already; re-sending is idempotent).
 * @example { sha256: '9f86…', size_bytes: 48213, created: true }
 */
export const artifactStoredSchema = z.object({ sha256: sha256Schema, size_bytes: z.number().int().min(1), created: z.boolean() });
export type ArtifactStored = z.infer<typeof artifactStoredSchema>;

/**
 * Query of a signed artifact URL (docs/api/artifacts.md "Signed URLs"): `expires` (Unix time,
 * seconds) and `signature` (base64url HMAC-SHA256 over the path and `expires` with the control
 * plane's key). Both or neither.
 */
export const artifactSignedQuerySchema = z.object({
  expires: z.string().regex(/^\d{1,12}$/, 'must be a Unix time in seconds').optional(),
  signature: z.string().regex(/^[A-Za-z0-9_-]{43}$/, 'must be a base64url HMAC-SHA256').optional(),
});

/**
 * The API path of one artifact of a monitor (`GET /v1/monitors/{id}/artifacts/{sha256}`): what a
 * node writes into `har_url` / `screenshot_url` of a browser result once the artifact is kept for
 * upload. The control plane serves checks with these turned into signed, expiring URLs.
 */
export function artifactPath(monitor_id: string, sha256: string): string {
  return `/v1/monitors/${monitor_id}/artifacts/${sha256}`;
}

/** The monitor id and digest of an artifact path as {@link artifactPath} makes it (query ignored), or null. */
export function parseArtifactPath(value: string): { monitor_id: string; sha256: string } | null {
  const m = /^\/v1\/monitors\/([^/?#]+)\/artifacts\/([0-9a-f]{64})(?:\?.*)?$/.exec(value);
  if (!m || !isId('monitor', m[1])) return null;
  return { monitor_id: m[1]!, sha256: m[2]! };
}
