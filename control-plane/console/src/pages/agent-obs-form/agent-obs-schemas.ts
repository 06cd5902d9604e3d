// A stand-in for Node's global Buffer, which shared-protocol's id module touches when it loads.
import '../../shims/buffer-global.js';
// parse.ts first, in the order the package's main entry initialises its modules (as monitor-schemas.ts).
import '@vantage/shared-protocol/parse';
import {
  AGENT_OBS_CHECK_TYPES, agentObsConfigRequestSchema, agentObsFailureThresholdSchema, createAgentObsMonitorSchema, patchAgentObsMonitorSchema,
} from '@vantage/shared-protocol/agent-obs';
import { fieldsOf, type FieldSpec } from '../monitor-form/schema-fields.js';

/**
 * The API's own agent-obs schemas, for the form (docs/api/agent-obs.md "Monitors", "The config"):
 * the create and patch requests, the config request (PUT …/config), and the payload assertions'
 * row fields read off the failure threshold's schema (the monitors' assertion schema).
 */
export { AGENT_OBS_CHECK_TYPES, agentObsConfigRequestSchema, createAgentObsMonitorSchema, patchAgentObsMonitorSchema };
export const PAYLOAD_ASSERTIONS: FieldSpec = fieldsOf(agentObsFailureThresholdSchema).find((f) => f.key === 'payload_assertions')!;
