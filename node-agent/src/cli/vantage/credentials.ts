import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { createApiClient, type ApiClient } from '../../as-code/client.js';
import { VantageUsageError, type VantageIo } from './io.js';

/** What `vantage login` stores: the control plane's base URL and an API key. */
export interface Credentials {
  url: string;
  key: string;
}

/** The credentials file: `$VANTAGE_CONFIG_DIR/credentials.json`, else `~/.config/vantage/credentials.json` (mode 0600). */
export function credentialsFile(env: VantageIo['env']): string {
  return join(env.VANTAGE_CONFIG_DIR ?? join(env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), 'vantage'), 'credentials.json');
}

export async function saveCredentials(env: VantageIo['env'], c: Credentials): Promise<string> {
  const file = credentialsFile(env);
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  await writeFile(file, `${JSON.stringify(c, null, 2)}\n`, { mode: 0o600 });
  return file;
}

export async function forgetCredentials(env: VantageIo['env']): Promise<void> {
  await rm(credentialsFile(env), { force: true });
}

/**
 * The API client of a command: `--url`/`--key` flags, else VANTAGE_URL / VANTAGE_API_KEY, else the
 * stored credentials (`vantage login`).
 * @throws VantageUsageError when none gives both a URL and a key
 */
export async function clientFor(io: VantageIo, flags: { url?: string; key?: string }): Promise<ApiClient> {
  let url = flags.url ?? io.env.VANTAGE_URL;
  let key = flags.key ?? io.env.VANTAGE_API_KEY;
  if (!url || !key) {
    try {
      const stored = JSON.parse(await readFile(credentialsFile(io.env), 'utf8')) as Partial<Credentials>;
      url ??= stored.url;
      key ??= stored.key;
    } catch { /* not logged in */ }
  }
  if (!url || !key) throw new VantageUsageError('not logged in: run `vantage login --url URL --key sk_…`, or set VANTAGE_URL and VANTAGE_API_KEY');
  return createApiClient({ base_url: url, token: key, fetch: io.fetch });
}
