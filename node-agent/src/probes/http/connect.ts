import net from 'node:net';
import tls from 'node:tls';
import type { buildConnector } from 'undici';
import { certificateFacts, type CertificateFacts } from './certificate.js';

/** Monotonic timestamps (ms, performance.now()) of one connection, null when not reached. */
export interface ConnectMarks {
  /** TCP handshake done ('connect'). */
  tcp_done: number | null;
  /** TLS handshake done ('secureConnect'); null for plain http. */
  tls_done: number | null;
  /** Negotiated TLS facts (spec 2.3 `tls`). */
  tls: { cipher: string; version: string } | null;
  /** Leaf certificate facts, read even when verification fails (so an expired cert is reported). */
  certificate: CertificateFacts | null;
  /** First response byte readable on the socket after the connection was handed to undici. */
  first_byte: number | null;
}

export interface ConnectPlan {
  /** Resolved, policy-checked address to dial (never re-resolved: DESIGN.md target safety). */
  address: string;
  port: number;
  /** 'https:' dials TLS with SNI `servername`; anything else plain TCP. */
  protocol: string;
  /** The URL's host name for SNI and certificate identity; null for an IP literal (no SNI). */
  servername: string | null;
  /** Extra trusted CA certificates (PEM); tests pass their generated CA here. */
  ca?: string | string[];
  signal: AbortSignal;
}

/** An Error carrying a Node/OpenSSL style code, as net/tls errors do. */
export class ConnectError extends Error {
  constructor(message: string, readonly code: string) {
    super(message);
    this.name = 'ConnectError';
  }
}

type Done = (err: Error | null, socket: net.Socket | null) => void;

const contexts = new Map<string, tls.SecureContext>();

/** A TLS context trusting the system roots plus `ca`, built once per CA set (parsing roots is costly). */
function contextWithCa(ca: string | string[]): tls.SecureContext {
  const extra = Array.isArray(ca) ? ca : [ca];
  const key = extra.join('\n');
  let context = contexts.get(key);
  if (!context) {
    context = tls.createSecureContext({ ca: [...tls.rootCertificates, ...extra] });
    contexts.set(key, context);
  }
  return context;
}

/**
 * Build an undici connector that dials `plan.address` and records blackbox_exporter's connect and
 * tls boundaries in `marks` (mutated as the handshake proceeds). The URL's host stays in the Host
 * header (undici takes it from the origin) and in SNI; only the dialled address is pinned.
 * The first connection is dialled at once, before undici asks for it, so the client's set-up
 * is not counted in tcp_ms; a later call (a reconnect) dials again.
 *
 * Certificates are verified (system roots plus `plan.ca`) with the standard identity check; on a
 * failure the leaf's facts are still recorded and the callback gets a ConnectError whose code is
 * OpenSSL's reason (e.g. CERT_HAS_EXPIRED, ERR_TLS_CERT_ALTNAME_INVALID).
 */
export function pinnedConnector(plan: ConnectPlan, marks: ConnectMarks): { connector: buildConnector.connector; dispose: () => void } {
  let early: { err: Error | null; socket: net.Socket | null } | null = null;
  let waiting: Done | null = null;
  let used = false;
  dial(plan, marks, (err, socket) => {
    if (waiting) waiting(err, socket);
    else early = { err, socket };
  });
  return {
    connector: (_opts, callback) => {
      const cb = callback as Done;
      if (used) return dial(plan, marks, cb);
      used = true;
      if (early) cb(early.err, early.socket);
      else waiting = cb;
    },
    /** Close the early connection if undici never took it (the request failed before dispatch). */
    dispose: () => {
      if (!used) {
        used = true;
        waiting = (_err, socket) => socket?.destroy();
        early?.socket?.destroy();
      }
    },
  };
}

/** Dial one connection; `callback` once, with the ready socket or the error. */
function dial(plan: ConnectPlan, marks: ConnectMarks, callback: Done): void {
  let done = false;
  const finish = (err: Error | null, socket: net.Socket | null) => {
    if (done) return;
    done = true;
    plan.signal.removeEventListener('abort', onAbort);
    if (err) {
      socket?.destroy();
      callback(err, null);
    } else {
      socket!.once('readable', () => { marks.first_byte ??= performance.now(); });
      callback(null, socket!);
    }
  };
  const onAbort = () => {
    socket.destroy();
    finish(new ConnectError('aborted during connect', 'ABORT_ERR'), null);
  };
  const onError = (err: Error) => finish(err, null);
  let socket: net.Socket;
  if (plan.protocol === 'https:') {
    const options: tls.ConnectionOptions = {
      host: plan.address,
      port: plan.port,
      ALPNProtocols: ['http/1.1'],
      // Verified by hand below, so the certificate can be described even when it is rejected.
      rejectUnauthorized: false,
    };
    if (plan.servername) options.servername = plan.servername;
    if (plan.ca) options.ca = [...tls.rootCertificates, ...(Array.isArray(plan.ca) ? plan.ca : [plan.ca])];
    const tlsSocket = tls.connect(options);
    socket = tlsSocket;
    tlsSocket.once('connect', () => { marks.tcp_done = performance.now(); });
    tlsSocket.once('secureConnect', () => {
      marks.tls_done = performance.now();
      const cipher = tlsSocket.getCipher();
      marks.tls = { cipher: cipher?.name ?? 'unknown', version: tlsSocket.getProtocol() ?? 'unknown' };
      const peer = tlsSocket.getPeerCertificate(false);
      marks.certificate = peer && Object.keys(peer).length > 0 ? certificateFacts(peer) : null;
      if (!tlsSocket.authorized) {
        const reason = String(tlsSocket.authorizationError ?? 'UNKNOWN');
        finish(new ConnectError(`certificate rejected: ${reason}`, reason), tlsSocket);
        return;
      }
      finish(null, tlsSocket); // onError stays attached: a no-op once finished, and never unhandled
    });
  } else {
    socket = net.connect({ host: plan.address, port: plan.port });
    socket.once('connect', () => {
      marks.tcp_done = performance.now();
      finish(null, socket);
    });
  }
  socket.setNoDelay(true);
  socket.on('error', onError);
  if (plan.signal.aborted) onAbort();
  else plan.signal.addEventListener('abort', onAbort, { once: true });
}
