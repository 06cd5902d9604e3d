import net, { isIP } from 'node:net';
import tls from 'node:tls';
import { canonicalHost, deadlineSignal, splitSslTarget, type SslExpiryCheckOutput } from '@vantage/shared-protocol';
import { certificateFacts } from '../probes/http/certificate.js';
import { secureContextWithCa } from '../probes/http/tls-context.js';
import { ProbeInputError } from '../probes/input-error.js';
import { resolveTarget } from '../probes/resolve.js';
import { failed, passed, type Check } from './types.js';

/** Host and port of an ssl_expiry target: `host`, `host:port`, `[v6]:port` or an https:// URL. */
export function sslTargetOf(target: string, config_port: number | undefined): { host: string; port: number } {
  const parts = splitSslTarget(target);
  if ('error' in parts) {
    throw new ProbeInputError(parts.error === 'scheme' ? 'an ssl_expiry URL target must use https://' : `not a host, host:port or https:// URL: ${target.slice(0, 200)}`);
  }
  return { host: parts.host, port: parts.port ?? config_port ?? 443 };
}

type Handshake = { ok: true; socket: tls.TLSSocket; handshake_ms: number } | { ok: false; error: string };

function handshake(socket: net.Socket, servername: string | null, context: tls.SecureContext, signal: AbortSignal): Promise<Handshake> {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const options: tls.ConnectionOptions = {
      socket, secureContext: context, rejectUnauthorized: false, ALPNProtocols: ['http/1.1'],
      // Identity is judged below with tls.checkServerIdentity, so `authorized` reflects the chain alone.
      checkServerIdentity: () => undefined,
    };
    if (servername) options.servername = servername;
    const t = tls.connect(options);
    const finish = (r: Handshake) => {
      signal.removeEventListener('abort', onAbort);
      if (!r.ok) t.destroy();
      resolve(r);
    };
    const onAbort = () => finish({ ok: false, error: 'TLS handshake did not finish in time' });
    signal.addEventListener('abort', onAbort, { once: true });
    t.once('secureConnect', () => finish({ ok: true, socket: t, handshake_ms: Math.round((performance.now() - t0) * 1000) / 1000 }));
    t.on('error', (err: NodeJS.ErrnoException) => finish({ ok: false, error: `TLS handshake failed: ${err.code ?? err.message}` }));
  });
}

/**
 * Build the `ssl_expiry` check (docs/api/checks.md): a TLS handshake with SNI (the host name; none
 * for an IP) to host:port (default 443), reporting the leaf's subject, issuer, validity, SANs,
 * SHA-256 fingerprint, whether the chain verifies (`ca` adds trusted roots: tests) and whether the
 * name matches. Down when the chain or the name is invalid, the certificate has expired, or fewer
 * than `min_days_remaining` (or `critical_days`, if larger) whole days remain.
 */
export function createSslExpiryCheck(options: { ca?: string | string[] } = {}): Check<'ssl_expiry'> {
  return {
    type: 'ssl_expiry',
    async run(target, config, ctx) {
      const { host, port } = sslTargetOf(target, config.port);
      const name = canonicalHost(host);
      const servername = isIP(name) ? null : name.replace(/\.$/, '');
      const output: SslExpiryCheckOutput = {
        resolved_address: null, port, servername, handshake_ms: null, tls_version: null, cipher: null, subject: null, issuer: null,
        not_before: null, not_after: null, days_until_expiry: null, san: [], fingerprint_sha256: null, chain_valid: null, chain_error: null, hostname_match: null,
      };
      const resolved = await resolveTarget(host, config.ip_version, ctx.policy);
      if (!resolved.ok) return failed(output, resolved.error, resolved.error_class);
      output.resolved_address = resolved.address;
      // Not AbortSignal.any/timeout: their WeakRefs kept each check's socket through young-generation
      // collections (shared-protocol deadline-signal.ts).
      const deadline = deadlineSignal(ctx.signal, config.timeout_ms);
      try {
        return await connectAndJudge(resolved, port, servername, output, config, options.ca, deadline.signal);
      } finally {
        deadline.dispose();
      }
    },
  };
}

/**
 * Connect to the resolved address, shake hands and judge the certificate (the rest of
 * {@link createSslExpiryCheck}'s run): `deadline` bounds the connect and the handshake.
 */
async function connectAndJudge(
  resolved: { address: string; family: number }, port: number, servername: string | null, output: SslExpiryCheckOutput,
  config: Parameters<Check<'ssl_expiry'>['run']>[1], ca: string | string[] | undefined, deadline: AbortSignal,
): ReturnType<Check<'ssl_expiry'>['run']> {
  const where = `${resolved.family === 6 ? `[${resolved.address}]` : resolved.address}:${port}`;
  const socket = net.connect({ host: resolved.address, port });
  const connected = await new Promise<{ ok: boolean; code: string | null }>((resolve) => {
    const onAbort = () => resolve({ ok: false, code: 'timeout' });
    deadline.addEventListener('abort', onAbort, { once: true });
    socket.once('connect', () => { deadline.removeEventListener('abort', onAbort); resolve({ ok: true, code: null }); });
    socket.on('error', (err: NodeJS.ErrnoException) => { deadline.removeEventListener('abort', onAbort); resolve({ ok: false, code: err.code ?? err.message }); });
  });
  if (!connected.ok) {
    socket.destroy();
    const cls = connected.code === 'timeout' ? 'timeout' : connected.code === 'ECONNREFUSED' ? 'refused' : connected.code === 'EHOSTUNREACH' || connected.code === 'ENETUNREACH' ? 'unreachable' : 'target';
    return failed(output, connected.code === 'timeout' ? `no TCP answer from ${where} within ${config.timeout_ms} ms` : `cannot connect to ${where} (${connected.code})`, cls);
  }
  const hs = await handshake(socket, servername, secureContextWithCa(ca), deadline);
  if (!hs.ok) {
    socket.destroy();
    return failed(output, `${hs.error} with ${where}`, deadline.aborted ? 'timeout' : 'target');
  }
  try {
    const t = hs.socket;
    output.handshake_ms = hs.handshake_ms;
    output.tls_version = t.getProtocol() ?? null;
    output.cipher = t.getCipher()?.name ?? null;
    const peer = t.getPeerCertificate(false);
    if (!peer || Object.keys(peer).length === 0) return failed(output, `${where} sent no certificate`, 'target');
    const facts = certificateFacts(peer);
    Object.assign(output, { subject: facts.subject, issuer: facts.issuer, not_before: facts.not_before, not_after: facts.not_after, days_until_expiry: facts.days_left, san: facts.san });
    output.fingerprint_sha256 = peer.fingerprint256 ?? null;
    output.chain_valid = t.authorized;
    output.chain_error = t.authorized ? null : String(t.authorizationError ?? 'UNKNOWN');
    output.hostname_match = tls.checkServerIdentity(servername ?? resolved.address, peer) === undefined;
    if (facts.days_left < 0 || Date.parse(facts.not_after) < Date.now()) return failed(output, `certificate expired on ${facts.not_after}`, 'target');
    if (!output.chain_valid) return failed(output, `certificate chain invalid: ${output.chain_error}`, 'target');
    if (!output.hostname_match) return failed(output, `certificate is not valid for ${servername ?? resolved.address} (${facts.san.join(', ') || facts.subject})`, 'target');
    const floor_days = Math.max(config.min_days_remaining, config.critical_days);
    if (facts.days_left < floor_days) {
      return failed(output, `certificate expires in ${facts.days_left} days (${facts.not_after}), fewer than min_days_remaining ${floor_days}`, 'assertion');
    }
    return passed(output);
  } finally {
    hs.socket.destroy();
  }
}
