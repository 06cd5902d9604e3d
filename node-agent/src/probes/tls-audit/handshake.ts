import { isIP, type Socket } from 'node:net';
import { connect as tlsConnect, type ConnectionOptions, createSecureContext, rootCertificates, type SecureContext, type SecureVersion, type TLSSocket } from 'node:tls';

/*
 * TLS handshakes of the SSL audit (docs/api/lookups.md "SSL audit"), each on its own TCP
 * connection opened by the caller's {@link TcpConnect}: the control plane's outbound connector
 * (its address policy judges every address) or a node's connection to the address its target
 * policy allowed. OpenSSL's security level is lowered to 0 in these contexts only, so old protocol
 * versions and weak keys can be seen at all; the rest of the process keeps its defaults.
 */

/**
 * Open a TCP connection to `host:port` within `timeout_ms`, after the caller's address policy
 * allowed the address. @throws the caller's errors (a refused address, ENOTFOUND, a connect timeout)
 */
export type TcpConnect = (host: string, port: number, timeout_ms: number) => Promise<Socket>;

/** Security contexts of the audit, built once: trust store (system roots + extra CAs) and one per version. */
export interface AuditContexts {
  /** Any version TLS 1.0-1.3: the handshake that shows what a client gets. */
  any: SecureContext;
  /** Exactly one version each. */
  only: Record<SecureVersion, SecureContext>;
}

const WEAK_OK = 'DEFAULT:@SECLEVEL=0';

/** Build the contexts. @param extra_ca_pem PEM text of extra trusted CAs (the control plane's extra_ca_file, a node's NODE_EXTRA_CA_CERTS), or null */
export function auditContexts(extra_ca_pem: string | null): AuditContexts {
  const ca = [...rootCertificates, ...(extra_ca_pem ? [extra_ca_pem] : [])];
  const context = (minVersion: SecureVersion, maxVersion: SecureVersion) => createSecureContext({ ca, ciphers: WEAK_OK, minVersion, maxVersion });
  return {
    any: context('TLSv1', 'TLSv1.3'),
    only: { 'TLSv1': context('TLSv1', 'TLSv1'), 'TLSv1.1': context('TLSv1.1', 'TLSv1.1'), 'TLSv1.2': context('TLSv1.2', 'TLSv1.2'), 'TLSv1.3': context('TLSv1.3', 'TLSv1.3') },
  };
}

/** A finished handshake: the socket (open; the caller ends it) and the OCSP response stapled, if any. */
export interface Handshake {
  socket: TLSSocket;
  ocsp: Buffer | null;
}

/**
 * Connect to `host:port` through `connect` and complete a TLS handshake with `context`, SNI
 * `host` (none for an IP literal, RFC 6066 section 3), no verification failure fatal (the caller reads `socket.authorized`), requesting a
 * stapled OCSP response; the whole within `timeout_ms`.
 * @throws `connect`'s errors (a refused address, ENOTFOUND, connect timeout), the handshake's
 *   error (a TLS alert, a reset), or an error with `code` `ETIMEDOUT` when the handshake did not finish in time
 */
export async function handshake(connect: TcpConnect, host: string, port: number, context: SecureContext, timeout_ms: number): Promise<Handshake> {
  const started = performance.now();
  const tcp = await connect(host, port, timeout_ms);
  const left_ms = Math.max(1, timeout_ms - Math.round(performance.now() - started));
  return new Promise<Handshake>((resolve, reject) => {
    let ocsp: Buffer | null = null;
    // requestOCSP reaches the TLSSocket tls.connect builds (node's typings list it only on the TLSSocket constructor).
    const socket = tlsConnect({ socket: tcp, ...(isIP(host) ? {} : { servername: host }), secureContext: context, rejectUnauthorized: false, requestOCSP: true } as ConnectionOptions);
    const timer = setTimeout(() => socket.destroy(Object.assign(new Error(`no TLS handshake with ${host}:${port} within ${timeout_ms} ms`), { code: 'ETIMEDOUT' })), left_ms);
    socket.once('OCSPResponse', (res: Buffer) => { ocsp = res; });
    socket.once('secureConnect', () => {
      clearTimeout(timer);
      socket.removeAllListeners('error');
      socket.on('error', () => {});
      resolve({ socket, ocsp });
    });
    socket.once('error', (err) => {
      clearTimeout(timer);
      tcp.destroy();
      reject(err);
    });
  });
}

/** Largest HTTP response head read for HSTS, bytes. */
const HEAD_MAX_BYTES = 16 * 1024;

/**
 * The Strict-Transport-Security `max-age` the server sends on `HEAD /` (RFC 6797 section 6.1)
 * over an established TLS socket, in seconds; null when the header is absent, the service does not
 * speak HTTP, or no response head arrives within `timeout_ms`. Ends the socket.
 */
export function hstsMaxAge(socket: TLSSocket, host: string, timeout_ms: number): Promise<number | null> {
  return new Promise((resolve) => {
    let head = '';
    const done = (value: number | null) => {
      clearTimeout(timer);
      socket.removeAllListeners('data');
      socket.destroy();
      resolve(value);
    };
    const timer = setTimeout(() => done(null), timeout_ms);
    socket.on('data', (chunk: Buffer) => {
      head += chunk.toString('latin1');
      if (!/^HTTP\/1\.[01] /.test(head.slice(0, 9)) && head.length >= 9) return done(null);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0 && head.length < HEAD_MAX_BYTES) return;
      const header = /^strict-transport-security:[ \t]*(.*)$/im.exec(head.slice(0, end < 0 ? head.length : end))?.[1];
      const age = header ? /(?:^|;)\s*max-age\s*=\s*"?(\d+)"?/i.exec(header)?.[1] : undefined;
      done(age !== undefined ? Number(age) : null);
    });
    socket.once('end', () => done(null));
    socket.once('close', () => done(null));
    socket.write(`HEAD / HTTP/1.1\r\nHost: ${host}\r\nUser-Agent: vantage-ssl-audit\r\nConnection: close\r\n\r\n`);
  });
}
