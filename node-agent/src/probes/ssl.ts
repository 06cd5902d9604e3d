import { readFileSync } from 'node:fs';
import { connect as netConnect, type Socket } from 'node:net';
import { splitHostPort, type FailureClass, type SslOutput } from '@vantage/shared-protocol';
import { ProbeInputError } from './input-error.js';
import { resolveTarget } from './resolve.js';
import { auditTls, NoCertificateError } from './tls-audit/audit.js';
import { auditContexts, type AuditContexts, type TcpConnect } from './tls-audit/handshake.js';
import type { Probe } from './types.js';

/** The HTTPS port, the default of a target without one. */
const DEFAULT_PORT = 443;

/** The failure class of an audit that did not complete (the default handshake's error). */
function failureClass(err: unknown): FailureClass {
  if (err instanceof NoCertificateError) return 'target';
  const code = (err as { code?: string }).code;
  if (code === 'ETIMEDOUT' || / within \d+ ms$/.test((err as Error).message ?? '')) return 'timeout';
  if (code === 'ECONNREFUSED') return 'refused';
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return 'unreachable';
  return 'target';
}

/** PEM text of the CAs Node.js adds to its roots for this process (NODE_EXTRA_CA_CERTS), or null. */
function nodeExtraCas(): string | null {
  const file = process.env.NODE_EXTRA_CA_CERTS;
  return file ? readFileSync(file, 'utf8') : null;
}

/**
 * Build the SSL audit probe (docs/api/probes.md "SSL audit"; the audit of docs/api/lookups.md
 * "SSL audit", node-agent probes/tls-audit, the one the control plane runs for GET /v1/info/ssl):
 * `target` host[:port] (default 443) is resolved once and the address checked against the node's
 * target policy (resolve.ts: a private address is refused as every probe refuses it, `blocked`);
 * every handshake then connects to that address only, SNI and name check on the host. `valid`
 * trusts the system roots plus `options.extra_ca_pem` (default: the file of NODE_EXTRA_CA_CERTS,
 * which Node.js trusts for the node's other TLS connections too), read on the first run.
 * Fails with the resolver's or the policy's class, `timeout` (a handshake past params.timeout_ms),
 * `refused`, `unreachable`, or `target` (TLS alert, reset, no certificate); output.audit is null then.
 */
export function createSslProbe(options: { extra_ca_pem?: string | null } = {}): Probe<'ssl'> {
  let contexts: AuditContexts | null = null;
  return {
    type: 'ssl',
    async run(target, params, ctx) {
      const hp = splitHostPort(target.trim());
      if (!hp) throw new ProbeInputError(`target ${target} is not host[:port]`);
      const port = hp.port ?? DEFAULT_PORT;
      const output: SslOutput = { resolved_address: null, port, audit: null };
      const resolved = await resolveTarget(hp.host, params.ip_version, ctx.policy);
      if (!resolved.ok) return { success: false, error: resolved.error, error_class: resolved.error_class, output };
      const address = resolved.address;
      output.resolved_address = address;
      contexts ??= auditContexts(options.extra_ca_pem === undefined ? nodeExtraCas() : options.extra_ca_pem);

      // Every connection of the audit goes to the checked address; all are closed if the check is cancelled.
      const open = new Set<Socket>();
      const onAbort = () => { for (const s of open) s.destroy(); };
      ctx.signal.addEventListener('abort', onAbort, { once: true });
      const connect: TcpConnect = (_host, p, timeout_ms) => new Promise<Socket>((resolve, reject) => {
        if (ctx.signal.aborted) return reject(new Error('ssl audit cancelled'));
        const socket = netConnect({ host: address, port: p });
        open.add(socket);
        socket.once('close', () => open.delete(socket));
        const timer = setTimeout(() => socket.destroy(Object.assign(new Error(`no connection to ${address}:${p} within ${timeout_ms} ms`), { code: 'ETIMEDOUT' })), timeout_ms);
        const failed = (err: Error) => { clearTimeout(timer); reject(err); };
        socket.once('error', failed);
        socket.once('connect', () => { clearTimeout(timer); socket.off('error', failed); resolve(socket); });
      });
      try {
        output.audit = await auditTls(hp.host, port, { connect, contexts, timeout_ms: params.timeout_ms });
        return { success: true, error: null, error_class: null, output };
      } catch (err) {
        return { success: false, error: `no TLS audit of ${hp.host}:${port} (${address}): ${(err as Error).message}`, error_class: failureClass(err), output };
      } finally {
        ctx.signal.removeEventListener('abort', onAbort);
      }
    },
  };
}

/** The SSL audit probe trusting the system roots and NODE_EXTRA_CA_CERTS. */
export const sslProbe: Probe<'ssl'> = createSslProbe();
