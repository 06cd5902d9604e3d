import { PROBE_PARAMS, type MonitorType, type ProbeType } from '@vantage/shared-protocol';

/** An ad-hoc probe that runs what one round of a monitor checks (docs/api/monitors.md "Run now"). */
export interface AdhocProbe {
  type: ProbeType;
  target: string;
  params: Record<string, unknown>;
}

/** The longest an ad-hoc HTTP probe may take, ms (docs/api/probes.md timeout_ms bound). */
const HTTP_TIMEOUT_MS_MAX = 30_000;

/** The fields of `config` that the probe type's params know (a monitor config extends them). */
function paramsOf(type: ProbeType, config: Record<string, unknown>): Record<string, unknown> {
  const keys = Object.keys(PROBE_PARAMS[type].shape);
  return Object.fromEntries(keys.filter((k) => config[k] !== undefined).map((k) => [k, config[k]]));
}

/**
 * The ad-hoc probe for a monitor's round (the probe path: probes/create.ts), or null when the type
 * has none:
 * - http, https, keyword, llm_endpoint, tool_api, rag: an HTTP probe with the config's method,
 *   headers, body (an agent endpoint's payload_template as JSON, variables left as written),
 *   follow_redirects, ip_version and timeout_ms (at most 30 s); expected status, assertions,
 *   keyword and thresholds are not judged (the probe result shows what came back);
 * - ping, tcp, dns, traceroute: the probe of that type with the config's probe params;
 * - ssl_expiry: an HTTP HEAD to https://host[:port]/ (the result carries the certificate);
 * - rbl, browser, heartbeat, domain_expiry: null (no probe runs them).
 */
export function adhocProbeOf(type: MonitorType, target: string | null, config: Record<string, unknown>): AdhocProbe | null {
  if (target === null) return null;
  switch (type) {
    case 'http': case 'https': case 'keyword': case 'llm_endpoint': case 'tool_api': case 'rag': {
      const params = paramsOf('http', config);
      if (params.body === undefined && config.payload_template !== undefined) params.body = JSON.stringify(config.payload_template);
      if (typeof params.timeout_ms === 'number') params.timeout_ms = Math.min(params.timeout_ms, HTTP_TIMEOUT_MS_MAX);
      return { type: 'http', target, params };
    }
    case 'ping': case 'tcp': case 'dns': case 'traceroute':
      return { type, target, params: paramsOf(type, config) };
    case 'ssl_expiry': {
      let url = /^https:\/\//i.test(target) ? target : `https://${target}`;
      if (!/^https:\/\//i.test(target) && typeof config.port === 'number' && !/:\d+$/.test(target)) url += `:${config.port}`;
      return { type: 'http', target: url, params: { method: 'HEAD', timeout_ms: config.timeout_ms ?? 10_000, ip_version: config.ip_version ?? 'auto' } };
    }
    default:
      return null;
  }
}
