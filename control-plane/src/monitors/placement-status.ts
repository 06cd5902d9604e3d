import { isNodeCheckType, type MonitorPlacement, type MonitorStatus, type MonitorType } from '@vantage/shared-protocol';
import { secretHeaderNames } from '../secrets/node-trust.js';
import { HEADER_TYPES } from './header-secrets.js';

/*
 * What placement makes of a monitor's secrets and how its placement stands (docs/api/monitors.md
 * "Placement", "Secrets in headers").
 */

/**
 * The names of the monitor's request headers whose values are secrets, sorted (`headers` is its
 * `config.headers`, whose order the database does not keep; only the HTTP-like types have request
 * headers). A monitor with any runs only on nodes trusted with its owner's secrets
 * (secrets/node-trust.ts mayHoldSecretsOf).
 */
export function monitorSecretHeaders(type: MonitorType, headers: unknown): string[] {
  return HEADER_TYPES.has(type) ? secretHeaderNames(headers).sort((a, b) => a.localeCompare(b, 'en')) : [];
}

/** What {@link placementOf} needs of a monitor (a monitors row with its live placement). */
export interface PlacedMonitor {
  type: MonitorType;
  config: Record<string, unknown>;
  node_count: number;
  node_ids: string[];
  private_target: boolean;
  status: MonitorStatus;
  /** The team it belongs to (null or absent: personal): whose nodes the message names. */
  team_id?: string | null;
}

/**
 * How the monitor's placement stands (shared-protocol monitorPlacementSchema): `control_plane`
 * for the types no node runs; `placed` on `node_count` nodes or more; else `short`, with a
 * message naming the rule that limits it: a private target (the owner's nodes that allow private
 * targets), secret headers (the owner's nodes and platform nodes), else sharing and the capability
 * its type needs (the owner's, shared and platform nodes: nodes/sharing.ts). The owner's nodes
 * are "your own" for a personal monitor, "the team's own" for a team's.
 */
export function placementOf(m: PlacedMonitor): MonitorPlacement {
  const secret_headers = monitorSecretHeaders(m.type, m.config.headers);
  if (!isNodeCheckType(m.type)) return { status: 'control_plane', secret_headers, message: null };
  if (m.node_ids.length >= m.node_count) return { status: 'placed', secret_headers, message: null };
  const own = m.team_id ? 'the team\'s own' : 'your own';
  const where = m.private_target
    ? `its target is private, so it runs only on ${own} nodes that allow private targets`
    : secret_headers.length > 0
      ? `its headers ${secret_headers.join(', ')} carry secrets, which go only to ${own} nodes and to platform nodes`
      : `it runs only on ${own}, shared and platform nodes that can run ${m.type} checks`;
  const next = m.status === 'paused' ? 'a paused monitor gets no new nodes until it is resumed' : 'placement keeps trying';
  return { status: 'short', secret_headers, message: `placed on ${m.node_ids.length} of ${m.node_count} nodes: ${where}, and no more of those online can run it; ${next}` };
}
