import { isIP } from 'node:net';
import { splitHostPort as splitTarget, type ProbeParams, type ProbeType } from '@vantage/shared-protocol';

/**
 * A probe target taken apart (docs/api/probes.md, Targets: a URL, a host or IP, a domain, or host:port):
 * `hosts` are the hosts the node will contact (checked against the address policy before
 * dispatch), `port` the TCP port when the type has one.
 */
export interface ParsedTarget {
  hosts: string[];
  port: number | null;
}

/** A malformed target or params: the route answers 400 VALIDATION_FAILED naming `path`. */
export class TargetSyntaxError extends Error {
  constructor(readonly path: string, message: string) {
    super(message);
    this.name = 'TargetSyntaxError';
  }
}

const LABEL = '[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?';
const HOSTNAME = new RegExp(`^(?=.{1,253}\\.?$)${LABEL}(?:\\.${LABEL})*\\.?$`);

/** True for an ASCII host name (RFC 1123 labels; `_` allowed for service names) or an IP literal. */
export function isHost(host: string): boolean {
  return isIP(host) !== 0 || HOSTNAME.test(host);
}

/** `splitHostPort` of shared-protocol (the node uses the same grammar) plus an RFC 1123 host check. */
export function splitHostPort(text: string): { host: string; port: number | null } | null {
  const hp = splitTarget(text);
  return hp && isHost(hp.host) ? hp : null;
}

function parseHttp(target: string): ParsedTarget {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    throw new TargetSyntaxError('target', 'target must be an absolute http:// or https:// URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TargetSyntaxError('target', 'target URL scheme must be http or https');
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!isHost(host)) throw new TargetSyntaxError('target', 'target URL has no valid host');
  return { hosts: [host], port: url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80 };
}

function parseBareHost(target: string): ParsedTarget {
  const host = target.replace(/^\[(.*)\]$/, '$1');
  if (!isHost(host)) throw new TargetSyntaxError('target', 'target must be a host name or an IP address (no port, no scheme)');
  return { hosts: [host], port: null };
}

function parseDns(target: string, params: ProbeParams['dns']): ParsedTarget {
  if (isIP(target) !== 0 || !HOSTNAME.test(target)) throw new TargetSyntaxError('target', 'target must be a domain name');
  if (params.server === undefined) return { hosts: [], port: null };
  const server = splitHostPort(params.server);
  if (!server) throw new TargetSyntaxError('params.server', 'params.server must be host, host:port or [v6]:port');
  return { hosts: [server.host], port: server.port ?? 53 };
}

function parseTcp(target: string, params: ProbeParams['tcp']): ParsedTarget {
  const hp = splitHostPort(target);
  if (!hp) throw new TargetSyntaxError('target', 'target must be host:port, [v6]:port, or a host with params.port');
  if (hp.port !== null && params.port !== undefined && hp.port !== params.port) {
    throw new TargetSyntaxError('params.port', `params.port ${params.port} disagrees with the port in target (${hp.port})`);
  }
  const port = hp.port ?? params.port ?? null;
  if (port === null) throw new TargetSyntaxError('params.port', 'a port is required: target host:port or params.port');
  return { hosts: [hp.host], port };
}

/** host[:port] with a protocol default port (smtp 25, ntp 123, ssl 443). */
function parseHostPort(target: string, default_port: number): ParsedTarget {
  const hp = splitHostPort(target);
  if (!hp) throw new TargetSyntaxError('target', 'target must be host, host:port or [v6]:port');
  return { hosts: [hp.host], port: hp.port ?? default_port };
}

/**
 * Parse `target` for probe `type` (docs/api/probes.md): http, headers and speedtest = absolute http/https URL; ping and traceroute
 * = host or IP (IPv6 bare or in brackets); dns = domain name (the contacted host is
 * `params.server` when given, else the node's own resolver); tcp = host:port or host with
 * `params.port` (both given must agree); mtr = host or IP; smtp = host[:port] (default 25);
 * ntp = host[:port] (default 123); ssl = host[:port] (default 443).
 * @throws TargetSyntaxError naming the offending field
 */
export function parseTarget<T extends ProbeType>(type: T, target: string, params: ProbeParams[T]): ParsedTarget {
  switch (type) {
    case 'http':
    case 'headers':
    case 'speedtest': return parseHttp(target);
    case 'ping':
    case 'traceroute':
    case 'mtr': return parseBareHost(target);
    case 'smtp': return parseHostPort(target, 25);
    case 'ntp': return parseHostPort(target, 123);
    case 'ssl': return parseHostPort(target, 443);
    case 'dns': return parseDns(target, params as ProbeParams['dns']);
    case 'tcp': return parseTcp(target, params as ProbeParams['tcp']);
    default: throw new TargetSyntaxError('type', `unknown probe type ${String(type)}`);
  }
}

/**
 * The bound (ms) a node gets for the whole check, sent as `task.run.timeout_ms`:
 * http = params.timeout_ms; ping = count × interval_ms + timeout_ms; dns and tcp = timeout_ms;
 * traceroute = max_hops × probes_per_hop × timeout_ms capped at 120 000; mtr = count ×
 * max(interval_ms, timeout_ms) + timeout_ms + 1000 (reverse DNS); smtp = timeout_ms; ntp =
 * (count − 1) × interval_ms + count × timeout_ms; speedtest = timeout_ms per direction + 1000;
 * ssl = timeout_ms (the handshakes, at once) + min(timeout_ms, 5000) (the HSTS request) + 1000.
 * Always within the
 * protocol's 100..300 000 (shared-protocol taskRunMessageSchema).
 */
export function taskTimeoutMs<T extends ProbeType>(type: T, params: ProbeParams[T]): number {
  let ms: number;
  if (type === 'ping') {
    const p = params as ProbeParams['ping'];
    ms = p.count * p.interval_ms + p.timeout_ms;
  } else if (type === 'traceroute') {
    const p = params as ProbeParams['traceroute'];
    ms = Math.min(120_000, p.max_hops * p.probes_per_hop * p.timeout_ms);
  } else if (type === 'mtr') {
    const p = params as ProbeParams['mtr'];
    ms = p.count * Math.max(p.interval_ms, p.timeout_ms) + p.timeout_ms + 1000;
  } else if (type === 'speedtest') {
    const p = params as ProbeParams['speedtest'];
    ms = p.timeout_ms * (p.upload_bytes > 0 ? 2 : 1) + 1000;
  } else if (type === 'ssl') {
    const p = params as ProbeParams['ssl'];
    ms = p.timeout_ms + Math.min(p.timeout_ms, 5000) + 1000;
  } else if (type === 'ntp') {
    const p = params as ProbeParams['ntp'];
    ms = (p.count - 1) * p.interval_ms + p.count * p.timeout_ms;
  } else {
    ms = (params as { timeout_ms: number }).timeout_ms;
  }
  return Math.max(100, Math.min(300_000, Math.round(ms)));
}
