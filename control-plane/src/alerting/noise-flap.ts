/*
 * Pure rules of the noise rules (docs/api/alerting.md "Noise rules"): when a monitor is flapping
 * and what counts as the same target. No SQL, no clock.
 */

/** A flap under way: since its first counted change, and the last change seen. */
export interface FlapEpisode { since: Date; last_change_at: Date }

/**
 * The flap monitor state changes `changes` (oldest first) show at `at`, or null. A monitor is
 * flapping from the first change of `n` changes that fall within `window_s` seconds (first to
 * last), until it has not changed for `window_s` (the flap is over once stable that long: a
 * gap of `window_s` between two changes ends it too). Like Nagios' flap detection, but on a
 * count of changes in a window rather than a weighted percentage.
 */
export function flapEpisode(changes: Date[], n: number, window_s: number, at: Date): FlapEpisode | null {
  const window_ms = window_s * 1000;
  const last = changes.at(-1);
  if (!last || at.getTime() - last.getTime() >= window_ms) return null;
  let start = changes.length - 1;
  while (start > 0 && changes[start]!.getTime() - changes[start - 1]!.getTime() < window_ms) start--;
  for (let i = start; i + n - 1 < changes.length; i++) {
    if (changes[i + n - 1]!.getTime() - changes[i]!.getTime() <= window_ms) return { since: changes[i]!, last_change_at: last };
  }
  return null;
}

/**
 * What a duplicate rule compares of a monitor's target: `host` the host name of a URL
 * (`https://api.example.com/health` → `api.example.com`) or of `host:port` / `[v6]:port`,
 * lower-cased; `target` the whole target, trimmed. Null when the monitor has no target
 * (heartbeats): such a monitor is never a duplicate.
 */
export function targetKey(target: string | null, match: 'host' | 'target'): string | null {
  const t = target?.trim();
  if (!t) return null;
  if (match === 'target') return t;
  if (t.includes('://')) {
    try {
      return new URL(t).hostname.replace(/^\[|\]$/g, '').toLowerCase() || null;
    } catch {
      return t.toLowerCase();
    }
  }
  const v6 = /^\[([^\]]+)\](?::\d+)?$/.exec(t);
  if (v6) return v6[1]!.toLowerCase();
  const hostPort = /^([^:/\s]+):\d+$/.exec(t);
  return (hostPort ? hostPort[1]! : t).toLowerCase();
}
