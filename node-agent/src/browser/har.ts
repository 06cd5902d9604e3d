import { readFile } from 'node:fs/promises';

/** Largest HAR a check keeps, bytes; a larger one loses its last entries until it fits. */
export const HAR_MAX_BYTES = 5 * 1024 * 1024;

/**
 * Read the HAR 1.2 archive Playwright wrote for a check's context (recordHar, bodies omitted)
 * and bound it to `max_bytes`: entries are dropped from the end until it fits (the archive stays
 * valid HAR; `log.comment` says how many were dropped). Null when there is no usable archive.
 */
export async function readHar(path: string, max_bytes = HAR_MAX_BYTES): Promise<Buffer | null> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    return null;
  }
  if (Buffer.byteLength(text) <= max_bytes) return Buffer.from(text);
  let har: { log: { entries: unknown[]; comment?: string } };
  try {
    har = JSON.parse(text) as typeof har;
  } catch {
    return null;
  }
  const total = har.log.entries.length;
  let keep = total;
  let out = text;
  while (keep > 0 && Buffer.byteLength(out) > max_bytes) {
    keep = Math.floor(keep * 0.8);
    out = JSON.stringify({ log: { ...har.log, entries: har.log.entries.slice(0, keep), comment: `${total - keep} of ${total} entries left out (size bound)` } });
  }
  return Buffer.byteLength(out) <= max_bytes ? Buffer.from(out) : null;
}
