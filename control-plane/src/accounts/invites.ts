import type { z } from 'zod';
import type { inviteSchema } from '@vantage/shared-protocol';
import type { InviteRow } from './invites.db.js';

/** An invite as the API shows it (docs/api/accounts.md "Administration"): status from its times, at `now`. */
export function toInvite(row: InviteRow, now: Date = new Date()): z.infer<typeof inviteSchema> {
  return {
    id: row.id, email: row.email,
    status: row.used_at ? 'used' : row.expires_at <= now ? 'expired' : 'pending',
    created_by: row.created_by, created_at: row.created_at.toISOString(), expires_at: row.expires_at.toISOString(),
    used_at: row.used_at?.toISOString() ?? null, used_by: row.used_by,
  };
}
