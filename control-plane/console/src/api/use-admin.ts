import type { AccountAdministrator } from '@vantage/shared-protocol';
import { signedIn } from './client.js';
import { useApi, type Loaded } from './use-api.js';

/**
 * Whether the signed-in caller is an administrator of the deployment (GET
 * /v1/account/administrator, docs/api/accounts.md "Administration"): pages show administrators'
 * actions by it. Signed out, nothing is asked (`data` stays null).
 */
export function useAdministrator(): Loaded<AccountAdministrator> {
  return useApi<AccountAdministrator>(signedIn() ? '/v1/account/administrator' : null);
}
