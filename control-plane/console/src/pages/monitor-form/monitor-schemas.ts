// A stand-in for Node's global Buffer, which shared-protocol's id module touches when it loads.
import '../../shims/buffer-global.js';
// parse.ts first: shared-protocol's config modules and its node protocol import each other, and
// this order is the one that initialises them (as the package's main entry does).
import '@vantage/shared-protocol/parse';
import { MONITOR_CONFIGS } from '@vantage/shared-protocol/monitor-config';
import { monitorCreateSchema, monitorPatchSchema } from '@vantage/shared-protocol/monitor-requests';

/**
 * The API's own monitor schemas, for the form: each type's config schema and the create and
 * patch request schemas (docs/api/monitors.md "Create and update", "Config per type").
 */
export { MONITOR_CONFIGS, monitorCreateSchema, monitorPatchSchema };
