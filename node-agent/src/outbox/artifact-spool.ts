import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { SHA256_HEX } from '@vantage/shared-protocol';

/** A file kept for upload: its SHA-256 digest (hex) and size in bytes. */
export interface SpooledArtifact {
  sha256: string;
  size_bytes: number;
}

/**
 * Artifacts waiting for upload (docs/architecture/node-agent.md "Artifacts"), one file per
 * content digest in `<state_dir>/artifacts/<sha256>`, written before the result that names them
 * enters the outbox and removed once uploaded (or once no outbox row needs them). Bounded:
 * past `max_bytes` in all, {@link ArtifactSpool.put} refuses (the check then reports no URL).
 */
export class ArtifactSpool {
  readonly dir: string;
  readonly max_bytes: number;
  #used_bytes: number;

  /** @param dir the spool folder (created 0700 when missing); @param max_bytes bound on all files, bytes */
  constructor(dir: string, max_bytes: number) {
    this.dir = dir;
    this.max_bytes = max_bytes;
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    this.#used_bytes = 0;
    for (const name of fs.readdirSync(dir)) {
      const file = path.join(dir, name);
      // Half-written files of a crash are useless: their digest was never handed out.
      if (!SHA256_HEX.test(name)) fs.rmSync(file, { force: true });
      else this.#used_bytes += fs.statSync(file).size;
    }
  }

  /** Bytes the spool holds now. */
  get used_bytes(): number {
    return this.#used_bytes;
  }

  /** Path of the file for `sha256`. */
  file(sha256: string): string {
    if (!SHA256_HEX.test(sha256)) throw new TypeError('not a sha256 digest');
    return path.join(this.dir, sha256);
  }

  /**
   * Keep `bytes` under their digest (a temp file renamed into place, so a crash leaves no partial
   * file under a digest name). The same content twice is one file.
   * @returns the digest and size, or null when it would pass `max_bytes` (nothing written)
   */
  async put(bytes: Buffer): Promise<SpooledArtifact | null> {
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const file = this.file(sha256);
    if (fs.existsSync(file)) return { sha256, size_bytes: bytes.length };
    if (this.#used_bytes + bytes.length > this.max_bytes) return null;
    this.#used_bytes += bytes.length;
    const tmp = path.join(this.dir, `.${randomBytes(6).toString('hex')}.tmp`);
    try {
      await mkdir(this.dir, { recursive: true, mode: 0o700 });
      await writeFile(tmp, bytes, { mode: 0o600 });
      await rename(tmp, file);
    } catch (err) {
      this.#used_bytes -= bytes.length;
      await rm(tmp, { force: true }).catch(() => undefined);
      throw err;
    }
    return { sha256, size_bytes: bytes.length };
  }

  /** The bytes kept for `sha256`, or null when there is no such file. */
  async read(sha256: string): Promise<Buffer | null> {
    try {
      return await readFile(this.file(sha256));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  /** Delete the file of `sha256` (no error when it is gone already). */
  remove(sha256: string): void {
    const file = this.file(sha256);
    let size = 0;
    try {
      size = fs.statSync(file).size;
      fs.rmSync(file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      return;
    }
    this.#used_bytes = Math.max(0, this.#used_bytes - size);
  }

  /**
   * Delete every file whose digest `keep` does not name (files of results dropped from the
   * outbox, or written by a check whose result never reached it).
   * @returns how many files were deleted
   */
  sweep(keep: ReadonlySet<string>): number {
    let n = 0;
    for (const name of fs.readdirSync(this.dir)) {
      if (SHA256_HEX.test(name) && !keep.has(name)) {
        this.remove(name);
        n++;
      }
    }
    return n;
  }
}
