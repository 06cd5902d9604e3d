import { isIP } from 'node:net';
import { PROBE_PARAMS, type CheckSpec, type DiagnoseScope, type ProbeType } from '@vantage/shared-protocol';
import { isHost } from '../probes/target.js';

/** What one scope runs: a probe check, or the reason the target does not suit it. */
export type ScopePlan =
  | { scope: DiagnoseScope; probe_type: ProbeType; check: CheckSpec; skipped?: undefined }
  | { scope: DiagnoseScope; probe_type: ProbeType; skipped: string };

/** The probe type each scope runs (docs/api/probes.md "Diagnose"). */
export const SCOPE_PROBE: Record<DiagnoseScope, ProbeType> = {
  http: 'http', ping: 'ping', dns: 'dns', traceroute: 'traceroute', ssl: 'http', security_headers: 'headers',
};

/** `target` as a host and a URL: a URL keeps its own (its host taken out); a host gets https://host/. @returns null when neither */
export function splitDiagnoseTarget(target: string): { host: string; url: string } | null {
  if (/^https?:\/\//i.test(target)) {
    try {
      const url = new URL(target);
      const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
      return isHost(host) ? { host, url: url.href } : null;
    } catch {
      return null;
    }
  }
  const host = target.replace(/^\[(.*)\]$/, '$1');
  if (!isHost(host)) return null;
  return { host, url: `https://${isIP(host) === 6 ? `[${host}]` : host}/` };
}

function check<T extends ProbeType>(type: T, target: string, params: Record<string, unknown>): CheckSpec {
  return { type, target, params: PROBE_PARAMS[type].parse(params) } as CheckSpec;
}

/**
 * The probe each scope runs for `target` (docs/api/probes.md "Diagnose"): http = GET of the URL;
 * ping = 4 echoes to the host; dns = A record of the host (skipped for an IP literal); traceroute
 * to the host; ssl = GET of the https:// form of the URL (its TLS and certificate); security_headers
 * = the headers analysis of the URL.
 */
export function planScopes(target: { host: string; url: string }, scopes: DiagnoseScope[]): ScopePlan[] {
  const https = target.url.replace(/^http:/i, 'https:');
  return scopes.map((scope): ScopePlan => {
    const probe_type = SCOPE_PROBE[scope];
    switch (scope) {
      case 'http': return { scope, probe_type, check: check('http', target.url, {}) };
      case 'ping': return { scope, probe_type, check: check('ping', target.host, { count: 4 }) };
      case 'dns':
        return isIP(target.host) ? { scope, probe_type, skipped: 'the target is an IP address: nothing to resolve' } : { scope, probe_type, check: check('dns', target.host, { record_type: 'A' }) };
      case 'traceroute': return { scope, probe_type, check: check('traceroute', target.host, {}) };
      case 'ssl': return { scope, probe_type, check: check('http', https, {}) };
      case 'security_headers': return { scope, probe_type, check: check('headers', target.url, {}) };
    }
  });
}
