import { ALERT_CHANNEL_SECRET_FIELDS, type AlertChannelType } from './channel-configs.js';

/** `****` and the last 4 characters (nothing of a value of 8 characters or fewer). */
export function maskChannelSecret(value: string): string {
  return value.length <= 8 ? '****' : `****${value.slice(-4)}`;
}

/** A secret URL keeps its scheme and host (so a user can tell which service it is), the rest masked. */
function maskUrl(value: string): string {
  try {
    const u = new URL(value);
    return `${u.protocol}//${u.host}/${maskChannelSecret(value)}`;
  } catch {
    return maskChannelSecret(value);
  }
}

/**
 * A channel config as the API returns it (docs/api/alerting.md "Channels"): every secret field
 * (ALERT_CHANNEL_SECRET_FIELDS) masked; an object of secrets (`headers`) has each value masked.
 */
export function maskChannelConfig(type: AlertChannelType, config: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...config };
  for (const field of ALERT_CHANNEL_SECRET_FIELDS[type]) {
    const v = out[field];
    if (typeof v === 'string') out[field] = /^https?:\/\//.test(v) ? maskUrl(v) : maskChannelSecret(v);
    else if (v && typeof v === 'object') out[field] = Object.fromEntries(Object.entries(v).map(([k, x]) => [k, typeof x === 'string' ? maskChannelSecret(x) : '****']));
  }
  return out;
}
