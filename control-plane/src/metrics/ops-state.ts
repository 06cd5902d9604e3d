/**
 * What the process tells GET /readyz beyond the database (main.ts sets both): `listening` once the
 * server listens with the node hub attached, `draining` from the first shutdown signal on, so a
 * load balancer stops sending requests while open ones finish.
 */
export interface OpsState {
  listening: boolean;
  draining: boolean;
}

/** A state for a process that is neither listening nor draining yet. */
export function createOpsState(): OpsState {
  return { listening: false, draining: false };
}
