import { ARTIFACT_URL_FIELDS, parseArtifactPath, type CheckItem } from '@vantage/shared-protocol';
import { publicBaseUrl } from '../config/public-url.js';
import type { AppDeps } from '../deps.js';
import { artifactKey, artifactSigner, type ArtifactSigner } from './signing.js';

/** What a check read gets its artifact URLs signed with: the signer, the base URL, the lifetime and the clock. */
export interface UrlSigning {
  signer: ArtifactSigner;
  /** Scheme and authority the URLs start with, no trailing slash (`https://vantage.example`). */
  base_url: string;
  ttl_s: number;
  now_ms: number;
}

/**
 * Turn the artifact paths a browser check's output names (`har_url`, `screenshot_url`: what the
 * node wrote, shared-protocol artifactPath) into signed URLs that expire `ttl_s` from now
 * (docs/api/artifacts.md "Signed URLs"). A value that is not an artifact path of this monitor
 * becomes the empty string ("unavailable"); outputs without these fields are returned as they are.
 */
export function signArtifactUrls(item: CheckItem, s: UrlSigning): CheckItem {
  const output = item.output as Record<string, unknown> | null;
  if (!output || !Object.values(ARTIFACT_URL_FIELDS).some((f) => typeof output[f] === 'string')) return item;
  const signed: Record<string, unknown> = { ...output };
  const expires_s = Math.floor(s.now_ms / 1000) + s.ttl_s;
  for (const field of Object.values(ARTIFACT_URL_FIELDS)) {
    const value = output[field];
    if (typeof value !== 'string') continue;
    const ref = parseArtifactPath(value);
    signed[field] = ref && ref.monitor_id === item.monitor_id ? `${s.base_url}${s.signer.sign(value.split('?')[0]!, expires_s)}` : '';
  }
  return { ...item, output: signed };
}

/**
 * The URL-signing hook of the check read paths (checks list and event stream): signs with the
 * deployment's key, the configured lifetime and the configured base URL (config/public-url.ts:
 * `public_url`, else the listening address; never the request's Host header).
 * @returns a function from a check item to the same item with signed artifact URLs
 */
export async function artifactUrlHook(deps: Pick<AppDeps, 'config' | 'sql'>): Promise<(item: CheckItem) => CheckItem> {
  const signer = artifactSigner(await artifactKey(deps));
  const base_url = publicBaseUrl(deps.config);
  return (item) => signArtifactUrls(item, { signer, base_url, ttl_s: deps.config.artifact_url_ttl_s, now_ms: Date.now() });
}
