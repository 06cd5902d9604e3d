import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { SHA256_HEX } from '@vantage/shared-protocol';

/** Why {@link ArtifactStore.write} did not store a body. */
export type WriteRefusal = { refused: 'too_large'; max_bytes: number } | { refused: 'digest_mismatch'; sha256: string } | { refused: 'empty' } | { refused: 'bad_format' };

/** A stored body: its size, and whether this write created the file (false: the content was there). */
export type WriteOutcome = { size_bytes: number; created: boolean } | WriteRefusal;

/** Temp files older than this are left-overs of a crash (an upload lasts at most a minute), ms. */
const TEMP_MAX_AGE_MS = 3_600_000;

/**
 * Artifact files under `<data_dir>/artifacts` (docs/architecture/artifacts.md): content-addressed,
 * `ab/cd/abcd…` (two levels of fan-out by the first hex digits of the SHA-256, so no folder holds
 * more than a few thousand files), written through `tmp/` and renamed into place once the whole
 * body hashed to the expected digest: a file under a digest name is always complete.
 */
export class ArtifactStore {
  readonly root: string;

  constructor(data_dir: string) {
    this.root = path.resolve(data_dir, 'artifacts');
  }

  /** The path of the file of `sha256`. @throws TypeError for anything but 64 lower-case hex digits */
  file(sha256: string): string {
    if (!SHA256_HEX.test(sha256)) throw new TypeError('not a sha256 digest');
    return path.join(this.root, sha256.slice(0, 2), sha256.slice(2, 4), sha256);
  }

  /**
   * Stream `body` to disk, counting and hashing: refused (nothing kept) past `max_bytes`, when it
   * is empty, when it does not hash to `sha256`, or when `format` refuses its first 64 bytes. The
   * same content stored twice is one file.
   */
  async write(sha256: string, body: AsyncIterable<Uint8Array>, max_bytes: number, format: (head: Buffer) => boolean = () => true): Promise<WriteOutcome> {
    const target = this.file(sha256);
    const tmp_dir = path.join(this.root, 'tmp');
    await mkdir(tmp_dir, { recursive: true });
    const tmp = path.join(tmp_dir, `${sha256.slice(0, 8)}-${randomBytes(6).toString('hex')}`);
    const handle = await open(tmp, 'w', 0o600);
    const hash = createHash('sha256');
    let size = 0;
    const heads: Buffer[] = [];
    let keep = false;
    try {
      for await (const chunk of body) {
        size += chunk.byteLength;
        if (size > max_bytes) return { refused: 'too_large', max_bytes };
        if (size - chunk.byteLength < 64) heads.push(Buffer.from(chunk.subarray(0, 64)));
        hash.update(chunk);
        await handle.write(chunk);
      }
      if (size === 0) return { refused: 'empty' };
      const got = hash.digest('hex');
      if (got !== sha256) return { refused: 'digest_mismatch', sha256: got };
      if (!format(Buffer.concat(heads).subarray(0, 64))) return { refused: 'bad_format' };
      await handle.sync();
      keep = true;
    } finally {
      await handle.close();
      if (!keep) await rm(tmp, { force: true });
    }
    if (fs.existsSync(target)) {
      await rm(tmp, { force: true });
      return { size_bytes: size, created: false };
    }
    await mkdir(path.dirname(target), { recursive: true });
    await rename(tmp, target);
    return { size_bytes: size, created: true };
  }

  /** Does the file of `sha256` exist? */
  has(sha256: string): boolean {
    return fs.existsSync(this.file(sha256));
  }

  /** A read stream of the file of `sha256`, or null when it is gone. */
  read(sha256: string): fs.ReadStream | null {
    const file = this.file(sha256);
    return fs.existsSync(file) ? fs.createReadStream(file) : null;
  }

  /** Delete the file of `sha256` (no error when it is gone already). */
  async remove(sha256: string): Promise<void> {
    await rm(this.file(sha256), { force: true });
  }

  /** Delete temp files older than an hour (uploads cut off by a crash). @returns how many */
  async sweepTemp(now_ms = Date.now()): Promise<number> {
    const tmp_dir = path.join(this.root, 'tmp');
    let names: string[];
    try {
      names = await readdir(tmp_dir);
    } catch {
      return 0;
    }
    let n = 0;
    for (const name of names) {
      const file = path.join(tmp_dir, name);
      const s = await stat(file).catch(() => null);
      if (s && now_ms - s.mtimeMs > TEMP_MAX_AGE_MS) {
        await rm(file, { force: true });
        n++;
      }
    }
    return n;
  }
}
