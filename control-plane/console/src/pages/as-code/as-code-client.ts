import type { ApiClient } from '@vantage/node-agent/as-code/client';
import { api } from '../../api/client.js';

/**
 * The as-code engine's API client (node-agent/src/as-code/client.ts) over the console's session:
 * the same calls, with the signed-in user's access token and its refresh on 401. The console's
 * own errors (ApiFailure) pass through as they are.
 */
export const consoleApiClient: ApiClient = {
  get: (path) => api('GET', path),
  post: (path, body) => api('POST', path, body ?? {}),
  patch: (path, body) => api('PATCH', path, body),
  put: (path, body) => api('PUT', path, body),
  delete: async (path) => { await api('DELETE', path); },
};
