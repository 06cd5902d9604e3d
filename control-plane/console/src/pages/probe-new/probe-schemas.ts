// A stand-in for Node's global Buffer, which shared-protocol's id module touches when it loads.
import '../../shims/buffer-global.js';
// parse.ts first: the order that initialises shared-protocol's modules (as its main entry does).
import '@vantage/shared-protocol/parse';
import { PROBE_PARAMS } from '@vantage/shared-protocol/probe-params';

/** The API's own `params` schema of each probe type (docs/api/probes.md), for the probe form. */
export { PROBE_PARAMS };
