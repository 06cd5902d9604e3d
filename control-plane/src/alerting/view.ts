import type { AlertChannel } from '@vantage/shared-protocol';
import type { AlertChannelRow } from './alert-channels.db.js';
import { maskConfig } from './channel-config.js';

/** A channel row as the API returns it: secrets masked. */
export function toChannel(row: AlertChannelRow): AlertChannel {
  return {
    id: row.id, user_id: row.user_id, team_id: row.team_id, name: row.name, type: row.type, config: maskConfig(row.type, row.config),
    verified: row.verified, created_at: row.created_at.toISOString(), updated_at: row.updated_at.toISOString(),
  };
}
