import type { AlertChannelType, AlertNotification } from '@vantage/shared-protocol';

/*
 * Pure rules of alert-group collapsing (docs/api/alerting.md "Alert groups"): which group a
 * monitor's pages gather in, which channels collapse, and the one message a batch becomes.
 * No SQL, no clock. The model is Alertmanager's group_wait (dispatch.go aggregation groups):
 * the first page of a group opens the gathering, everything that arrives within the wait goes
 * out together when it ends, and a page after that opens the next one.
 */

/** What the rules read of an alert group. */
export interface GroupRef {
  id: string;
  name: string;
  group_by: 'monitor_prefix' | 'tag' | 'type';
  group_value: string;
  wait_seconds: number;
}

/** Whether `group` gathers the monitor: its name starts with the value, it carries the tag (lower-cased), or it is of the type. */
export function groupMatches(group: Pick<GroupRef, 'group_by' | 'group_value'>, m: { name: string; type: string; tags: string[] }): boolean {
  switch (group.group_by) {
    case 'monitor_prefix': return m.name.startsWith(group.group_value);
    case 'tag': return m.tags.some((tag) => tag.toLowerCase() === group.group_value);
    case 'type': return m.type === group.group_value;
  }
}

/**
 * The group a monitor's pages gather in: the oldest of the owner's groups that matches it
 * (`groups` ordered oldest first), so a monitor matched by two groups is gathered once.
 */
export function groupOfMonitor<G extends GroupRef>(groups: G[], m: { name: string; type: string; tags: string[] }): G | null {
  return groups.find((g) => groupMatches(g, m)) ?? null;
}

/**
 * Whether pages to a channel of `type` collapse. PagerDuty does not: each alert event is its own
 * incident there (its dedup key ties trigger, acknowledge and resolve together) and PagerDuty
 * groups incidents itself.
 */
export function collapses(type: AlertChannelType | string): boolean {
  return type !== 'pagerduty';
}

/** One page gathered in a batch: the monitor and the event it belongs to. */
export interface BatchMember {
  event_id: string;
  event_type: 'down' | 'degraded';
  started_at: Date;
  reason: string | null;
  monitor: { id: string; name: string; type: string; target: string | null };
}

const TITLE_MAX = 256;
const BODY_MAX = 4000;

/**
 * The one message of a flushed batch (`members` in the order they joined, one per monitor):
 * title `[down] 3 monitors of group "web": api, www, cdn` (cut to 256 characters), a body with one
 * line per monitor (name, type, target, since when, why; cut to 4000 characters with "… and N
 * more"), severity critical when any monitor is down (else warning), `dedup_key` = `message_id`,
 * and `group` listing every monitor whatever the cut.
 */
export function groupNotification(
  batch: { id: string; group_id: string | null; group_name: string; wait_seconds: number },
  members: BatchMember[], message_id: string, at: Date,
): AlertNotification {
  const monitors = [...new Map(members.map((m) => [m.monitor.id, m])).values()];
  const states = new Set(monitors.map((m) => m.event_type));
  const state = states.size === 1 ? [...states][0]! : 'down/degraded';
  const n = monitors.length;
  const title = `[${state}] ${n} monitor${n === 1 ? '' : 's'} of group "${batch.group_name}": ${monitors.map((m) => m.monitor.name).join(', ')}`;
  const head = `Alert group "${batch.group_name}" gathered ${n} failing monitor${n === 1 ? '' : 's'} within ${batch.wait_seconds} s:`;
  const lines: string[] = [];
  let length = head.length + 40;
  for (const [i, m] of monitors.entries()) {
    const line = `- ${m.monitor.name} (${m.monitor.type} ${m.monitor.target ?? ''}): ${m.event_type} since ${m.started_at.toISOString()}${m.reason ? `: ${m.reason}` : ''}`;
    if (length + line.length + 1 > BODY_MAX) {
      lines.push(`… and ${n - i} more`);
      break;
    }
    lines.push(line);
    length += line.length + 1;
  }
  return {
    kind: 'alert', event_action: 'trigger', dedup_key: message_id,
    title: title.length > TITLE_MAX ? `${title.slice(0, TITLE_MAX - 1)}…` : title,
    body: [head, ...lines, `Time: ${at.toISOString()}`].join('\n'),
    severity: states.has('down') ? 'critical' : 'warning', occurred_at: at.toISOString(),
    monitor: null, event_id: null, policy_id: null,
    group: {
      id: batch.group_id, name: batch.group_name,
      monitors: monitors.map((m) => ({
        id: m.monitor.id, name: m.monitor.name, type: m.monitor.type, target: m.monitor.target ?? '', state: m.event_type,
        event_id: m.event_id, started_at: m.started_at.toISOString(), reason: m.reason,
      })),
    },
  };
}
