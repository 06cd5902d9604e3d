import fs from 'node:fs';
import path from 'node:path';
import type { Secret } from '../secret.js';

/** What {@link forgetSpentToken} did with the config file. */
export type ForgetOutcome =
  | { done: 'removed' }
  /** The file holds no `token`, or another one than the spent token (left alone). */
  | { done: 'absent' }
  /** The file could not be read or rewritten: `reason` says why (the token is still in it). */
  | { done: 'failed'; reason: string };

/**
 * Remove a spent enrollment token from the agent's JSON config file: once the node holds its
 * credential the token is never used again (docs/operators/agent.md "Enrollment"), and a used
 * token left on disk only invites mistakes. Only a `token` equal to `token` is removed; every
 * other field, the file's mode and (as root) its owner are kept.
 * Written to a temporary file beside it and renamed over it; where the folder is not writable
 * (/etc/vantage belongs to root while the file belongs to the service user) the file is
 * rewritten in place. Never throws: a failure comes back as `failed` with the reason.
 */
export function forgetSpentToken(file: string, token: Secret): ForgetOutcome {
  let text: string;
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    return { done: 'failed', reason: (err as Error).message };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { done: 'failed', reason: 'the file is not valid JSON' };
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return { done: 'failed', reason: 'the file does not hold a JSON object' };
  const config = json as Record<string, unknown>;
  if (config.token !== token.reveal()) return { done: 'absent' };
  delete config.token;
  const out = `${JSON.stringify(config, null, 2)}\n`;
  const mode = stat.mode & 0o777;
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);
  try {
    fs.writeFileSync(tmp, out, { mode, flag: 'wx' });
    try {
      if (process.getuid?.() === 0) fs.chownSync(tmp, stat.uid, stat.gid);
      fs.renameSync(tmp, file);
    } catch (err) {
      fs.rmSync(tmp, { force: true });
      throw err;
    }
    return { done: 'removed' };
  } catch {
    // A folder we may not write in (or a read-only bind of the file itself): rewrite in place.
  }
  try {
    fs.writeFileSync(file, out);
    return { done: 'removed' };
  } catch (err) {
    return { done: 'failed', reason: (err as Error).message };
  }
}
