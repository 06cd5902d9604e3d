import { createHash } from 'node:crypto';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { Context } from 'hono';
import Negotiator from 'negotiator';

/** The content codings a precompressed body is kept in (RFC 9110 §8.4.1; `br` is RFC 7932). */
export type ContentCoding = 'br' | 'gzip' | 'identity';
const CODINGS: ContentCoding[] = ['br', 'gzip', 'identity'];

/**
 * A response body encoded once and served many times: the UTF-8 bytes, each compressed coding made
 * on its first use and kept, and a strong ETag of the bytes (RFC 9110 §8.8.3). For bodies that many
 * clients read unchanged between rebuilds (a cached public status page): a read then costs a header
 * look-up and a write, never a re-encode or a per-request compression.
 */
export class PrecompressedBody {
  readonly identity: Buffer;
  /** `"sha256-…"` (strong: it names these bytes, whatever the coding sent). */
  readonly etag: string;
  private readonly encoded = new Map<Exclude<ContentCoding, 'identity'>, Buffer>();

  /**
   * @param content text (encoded as UTF-8) or bytes
   * @param compressible false for bytes already compressed (images, fonts) or too small to gain:
   *   they are always sent as they are
   */
  constructor(content: string | Buffer, readonly compressible = true) {
    this.identity = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
    this.etag = `"${createHash('sha256').update(this.identity).digest('base64url').slice(0, 27)}"`;
  }

  /** The bytes in `coding`: brotli at quality 5 and gzip at level 6 (fast, most of the gain). */
  bytes(coding: ContentCoding): Buffer {
    if (coding === 'identity') return this.identity;
    let out = this.encoded.get(coding);
    if (!out) {
      out = coding === 'br'
        ? brotliCompressSync(this.identity, { params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_SIZE_HINT]: this.identity.length } })
        : gzipSync(this.identity, { level: 6 });
      this.encoded.set(coding, out);
    }
    return out;
  }
}

/**
 * The coding to send for an `Accept-Encoding` header (RFC 9110 §12.5.3): the highest q-value wins,
 * br before gzip before identity at equal q; identity when nothing acceptable is offered (a refused
 * identity is ignored rather than answered 406, as browsers never send it).
 */
export function negotiateCoding(accept_encoding: string | undefined): ContentCoding {
  if (!accept_encoding) return 'identity';
  // negotiator 1.x takes `preferred` (its DefinitelyTyped declarations still describe 0.6).
  const negotiator = new Negotiator({ headers: { 'accept-encoding': accept_encoding } }) as unknown as { encoding(available: string[], options: { preferred: string[] }): string | undefined };
  const picked = negotiator.encoding(CODINGS, { preferred: CODINGS });
  return (picked as ContentCoding | undefined) ?? 'identity';
}

/**
 * Answers `c` with `body`: 304 when `If-None-Match` names its ETag (RFC 9110 §13.1.2), else 200 (or
 * `status`) with the negotiated coding, `Content-Encoding`, `Vary: Accept-Encoding` and `ETag`.
 * `headers` are added to both answers (cache-control and the like).
 */
export function sendPrecompressed(c: Context, body: PrecompressedBody, content_type: string, headers: Record<string, string>, status: 200 | 401 = 200): Response {
  const common: Record<string, string> = { ...headers, etag: body.etag, vary: 'Accept-Encoding' };
  const inm = c.req.header('if-none-match');
  if (status === 200 && inm && inm.split(',').some((t) => t.trim().replace(/^W\//, '') === body.etag)) return c.body(null, 304, common);
  const coding = body.compressible ? negotiateCoding(c.req.header('accept-encoding')) : 'identity';
  const bytes = body.bytes(coding);
  if (coding !== 'identity') common['content-encoding'] = coding;
  return c.body(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) as unknown as ArrayBuffer, status, { ...common, 'content-type': content_type });
}
