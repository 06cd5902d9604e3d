import { isIP } from 'node:net';
import { rblServerHost, splitSslTarget, type MonitorConfig, type MonitorType, type ProbeParams } from '@vantage/shared-protocol';
import { isHost, parseTarget, TargetSyntaxError } from '../probes/target.js';

/** A host a node contacts for a monitor, and the request field it comes from (`target`, `config.server`). */
export interface ContactedHost {
  host: string;
  path: string;
}

/**
 * A monitor's target taken apart: `target` as stored (trimmed; null for heartbeat) and `hosts`,
 * the hosts a node contacts for it, which the address policy must allow (the target's host, or
 * the DNS server of dns and rbl monitors; none for domain_expiry and heartbeat, and for an rbl
 * target, which is looked up, not contacted).
 */
export interface MonitorTarget {
  target: string | null;
  hosts: ContactedHost[];
}

/** A target that does not fit its monitor's type: the route answers 422 MONITOR_INVALID_TARGET naming `path`. */
export class MonitorTargetError extends Error {
  constructor(readonly path: string, message: string) {
    super(message);
    this.name = 'MonitorTargetError';
  }
}

const DOMAIN = /^(?=.{1,253}\.?$)(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.?$/;

/** True for a domain name of at least two labels whose last is not numeric (`example.com`), not an IP. */
export function isDomain(text: string): boolean {
  return isIP(text) === 0 && DOMAIN.test(text);
}

function probeTarget(type: 'http' | 'ping' | 'dns' | 'tcp', target: string, params: unknown): MonitorTarget {
  // A dns monitor contacts its server (config.server), never its target, which is the name asked about.
  const path = type === 'dns' ? 'config.server' : 'target';
  try {
    return { target, hosts: parseTarget(type, target, params as ProbeParams[typeof type]).hosts.map((host) => ({ host, path })) };
  } catch (err) {
    if (err instanceof TargetSyntaxError) throw new MonitorTargetError(err.path.replace(/^params\./, 'config.'), err.message.replace(/params\./g, 'config.'));
    throw err;
  }
}

function sslTarget(target: string, config: MonitorConfig<'ssl_expiry'>): MonitorTarget {
  const parts = splitSslTarget(target);
  if ('error' in parts) {
    throw new MonitorTargetError('target', parts.error === 'scheme' ? 'an ssl_expiry URL target must use https://' : 'target must be a host, host:port or an https:// URL');
  }
  const { host, port } = parts;
  if (!isHost(host)) throw new MonitorTargetError('target', 'target has no valid host');
  if (port !== null && config.port !== undefined && port !== config.port) {
    throw new MonitorTargetError('config.port', `config.port ${config.port} disagrees with the port in target (${port})`);
  }
  return { target, hosts: [{ host, path: 'target' }] };
}

/**
 * Check `target` against monitor `type` (docs/api/monitors.md: URL, host, host:port, domain or IP):
 * - http, keyword, llm_endpoint, tool_api, rag, browser: an absolute http:// or https:// URL;
 *   https: an https:// URL;
 * - ping, traceroute: a host name or IP; tcp: host:port, or a host with `config.port`;
 * - dns: a domain (the contacted host is `config.server` when given); ssl_expiry: host,
 *   host:port or https:// URL (port 443 unless given);
 * - domain_expiry: a domain; rbl: an IP address or a domain (both looked up, not contacted; an
 *   rbl monitor contacts `config.server` when given: shared-protocol rblServerHost);
 * - heartbeat: ignored (stored as null).
 * @param config the type's validated config (ports and DNS servers live there)
 * @throws MonitorTargetError naming the field (`target`, `config.port`, `config.server`)
 */
export function parseMonitorTarget<T extends MonitorType>(type: T, raw: string | null | undefined, config: MonitorConfig<T>): MonitorTarget {
  if (type === 'heartbeat') return { target: null, hosts: [] };
  const target = raw?.trim() ?? '';
  if (target === '') throw new MonitorTargetError('target', `a ${type} monitor needs a target`);
  switch (type) {
    case 'http': case 'keyword': case 'llm_endpoint': case 'tool_api': case 'rag': case 'browser':
      return probeTarget('http', target, {});
    case 'https':
      if (!/^https:\/\//i.test(target)) throw new MonitorTargetError('target', 'an https monitor needs an https:// URL');
      return probeTarget('http', target, {});
    case 'ping': case 'traceroute':
      return probeTarget('ping', target, {});
    case 'tcp':
      return probeTarget('tcp', target, config);
    case 'dns':
      return probeTarget('dns', target, config);
    case 'ssl_expiry':
      return sslTarget(target, config as MonitorConfig<'ssl_expiry'>);
    case 'domain_expiry':
      if (!isDomain(target)) throw new MonitorTargetError('target', 'target must be a domain name such as example.com');
      return { target, hosts: [] };
    case 'rbl': {
      const bare = target.replace(/^\[(.*)\]$/, '$1');
      if (isIP(bare) === 0 && !isDomain(bare)) throw new MonitorTargetError('target', 'target must be an IP address or a domain name');
      const server = rblServerHost(config as MonitorConfig<'rbl'>);
      return { target: bare, hosts: server === null ? [] : [{ host: server, path: 'config.server' }] };
    }
    default:
      throw new MonitorTargetError('type', `unknown monitor type ${String(type)}`);
  }
}
