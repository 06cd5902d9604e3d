import { newId } from '@vantage/shared-protocol';
import type { Sql } from '../db/sql.js';
import { seedMonitor, seedUser } from '../checks/test-support.js';
import { alertEnginePass, type AlertEngineDeps } from './engine.js';

/*
 * Fixtures of the alert engine's tests: an account with a monitor, channels and one policy written
 * straight into the database, and rounds judged by hand on a clock the test moves (the engine
 * reads rounds and monitor state, not how they were judged).
 */

export const T0 = Date.parse('2025-03-10T12:00:00Z');
/** An instant `s` seconds after T0. */
export const at = (s: number) => new Date(T0 + s * 1000);

/** What a policy fixture sets. */
export interface PolicySpec {
  delay_s?: number;
  recovery_n?: number;
  mute?: [string, string];
  fire_on_degraded?: boolean;
  /** escalation levels: after_seconds each, one new channel per level */
  levels?: number[];
}

/** A seeded account: its monitor, channels (`first` for level 0, `levels[k-1]` for level k) and policy. */
export interface World {
  sql: Sql;
  deps: AlertEngineDeps;
  user_id: string;
  monitor_id: string;
  policy_id: string;
  first: string;
  levels: string[];
  /** Record a judged round at `s` seconds (the monitor's state follows the verdict). */
  round(s: number, verdict: 'up' | 'degraded' | 'down'): Promise<void>;
  /** One engine pass at `s` seconds. */
  pass(s: number): ReturnType<typeof alertEnginePass>;
  /** Message ids of the account's alert deliveries with the event id replaced by `E`, in queue order. */
  sent(): Promise<string[]>;
  /** The account's events, oldest first. */
  events(): Promise<Array<{ id: string; status: string; suppressed: string | null; type: string }>>;
}

/** A channel of `type` (default a webhook to a closed loopback port: deliveries are queued, not sent). @returns its id */
export async function channel(sql: Sql, user_id: string, name: string, type = 'webhook'): Promise<string> {
  const id = newId('alert_channel');
  await sql`INSERT INTO alert_channels (id, user_id, name, type, config) VALUES (${id}, ${user_id}, ${name}, ${type}, ${sql.json({ url: 'http://127.0.0.1:9/hook' })})`;
  return id;
}

/**
 * Seed a world on `sql` (a migrated test database) with `spec`; `timezone` is the owner's zone.
 * Several worlds of one account: pass `user_id`, and `first` to page a channel they share;
 * `monitor_name` names the monitor (alert groups match on it).
 */
export async function seedWorld(sql: Sql, spec: PolicySpec = {}, opts: { timezone?: string; user_id?: string; first?: string; monitor_name?: string } = {}): Promise<World> {
  const user_id = opts.user_id ?? await seedUser(sql);
  if (opts.timezone) await sql`UPDATE users SET timezone = ${opts.timezone} WHERE id = ${user_id}`;
  const { monitor_id } = await seedMonitor(sql, { user_id, nodes: 1, state: 'up' });
  if (opts.monitor_name) await sql`UPDATE monitors SET name = ${opts.monitor_name} WHERE id = ${monitor_id}`;
  const first = opts.first ?? await channel(sql, user_id, 'first');
  const levels: string[] = [];
  for (const [i] of (spec.levels ?? []).entries()) levels.push(await channel(sql, user_id, `level ${i + 1}`));
  const policy_id = newId('alert_policy');
  await sql`
    INSERT INTO alert_policies (id, user_id, monitor_id, name, delay_s, recovery_n, mute_start, mute_end, fire_on_degraded)
    VALUES (${policy_id}, ${user_id}, ${monitor_id}, 'on-call', ${spec.delay_s ?? 0}, ${spec.recovery_n ?? 1},
      ${spec.mute?.[0] ?? null}, ${spec.mute?.[1] ?? null}, ${spec.fire_on_degraded ?? false})`;
  await sql`INSERT INTO alert_policy_channels (policy_id, level_id, channel_id, position) VALUES (${policy_id}, NULL, ${first}, 0)`;
  for (const [i, after_seconds] of (spec.levels ?? []).entries()) {
    const level_id = newId('escalation_level');
    await sql`INSERT INTO alert_escalation_levels (id, policy_id, level_index, after_seconds) VALUES (${level_id}, ${policy_id}, ${i + 1}, ${after_seconds})`;
    await sql`INSERT INTO alert_policy_channels (policy_id, level_id, channel_id, position) VALUES (${policy_id}, ${level_id}, ${levels[i]!}, 0)`;
  }
  const deps: AlertEngineDeps = { sql, config: { delivery_notify_channel: 'vantage_delivery_test_alerts' } };
  const names = new Map<string, string>([[first, 'first'], ...levels.map((id, i) => [id, `level${i + 1}`] as [string, string])]);
  return {
    sql, deps, user_id, monitor_id, policy_id, first, levels,
    async round(s, verdict) {
      const when = at(s);
      await sql`
        INSERT INTO check_rounds (scheduled_at, deadline_at, decided_at, monitor_id, interval_s, expected, reported, failed, verdict, dirty)
        VALUES (${when}, ${when}, ${when}, ${monitor_id}, 60, 1, 1, ${verdict === 'up' ? 0 : 1}, ${verdict}, false)`;
      await sql`UPDATE monitors SET state = ${verdict}, state_changed_at = ${when} WHERE id = ${monitor_id} AND state <> ${verdict}`;
    },
    pass: (s) => alertEnginePass(deps, at(s)),
    async sent() {
      // Rows queued in one transaction share created_at and their ids are random within a
      // millisecond: the message id (event, then level) orders them the way they were queued.
      const rows = await sql<Array<{ message_id: string }>>`SELECT message_id FROM deliveries WHERE user_id = ${user_id} ORDER BY created_at, message_id`;
      // Keys read `E:<level>:<channel name>:<kind>` so cases compare without ids.
      return rows.map((r) => {
        const [, level, channel_id, kind] = r.message_id.split(':');
        return `${level}:${names.get(channel_id!) ?? channel_id}:${kind}`;
      });
    },
    events: () => sql`SELECT id, status, suppressed, type FROM alert_events WHERE user_id = ${user_id} ORDER BY created_at, id` as never,
  };
}
