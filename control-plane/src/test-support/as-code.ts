import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { createApiClient, type ApiClient } from '@vantage/node-agent/as-code';
import type { AppEnv } from '../env.js';
import { createApiKey, registerUser } from './app.js';

/**
 * What monitoring-as-code tests share: `account()` registers a fresh user and gives an as-code
 * client on its API key (`write` and `read`) against `url`, with the key; `file(name, text)`
 * writes a file into a temporary folder removed at teardown and gives its path.
 */
export async function asCodeFixtures(t: { teardown(fn: () => unknown): void }, app: { request: OpenAPIHono<AppEnv>['request'] }, url: string, prefix = 'as-code-'): Promise<{
  dir: string;
  account(): Promise<{ api: ApiClient; token: string }>;
  file(name: string, text: string): Promise<string>;
}> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return {
    dir,
    async account() {
      const user = await registerUser(app);
      const { key } = await createApiKey(app, user.access_token);
      return { api: createApiClient({ base_url: url, token: key }), token: key };
    },
    async file(name, text) {
      const path = join(dir, name);
      await writeFile(path, text);
      return path;
    },
  };
}
