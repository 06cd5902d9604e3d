import type { AsCodeKind } from '@vantage/shared-protocol';
import { alertSilenceKind } from './alert-silences.js';
import { dashboardKind } from './dashboards.js';
import type { KindHandler } from './kind.js';
import { maintenanceWindowKind } from './maintenance-windows.js';
import { statusPageKind } from './status-pages.js';
import { webhookEndpointKind } from './webhook-endpoints.js';

export type { KindHandler } from './kind.js';

/** The kinds implemented as handlers (kind.ts), by kind: the one place the engine looks them up. */
export const KIND_HANDLERS: Partial<Record<AsCodeKind, KindHandler>> = Object.fromEntries(
  [webhookEndpointKind, alertSilenceKind, maintenanceWindowKind, statusPageKind, dashboardKind].map((h) => [h.kind, h]),
);
