import net from 'node:net';
import tls from 'node:tls';
import type { buildConnector } from 'undici';
import { certificateFacts, type CertificateFacts } from './certificate.js';
import { secureContextWithCa } from './tls-context.js';

/** Monotonic timestamps (ms, performance.now()) of one connection, null when not reached. */
export interface ConnectMarks {
  /** Just before the TCP connect: the start of tcp_ms (our set-up before it is not the network's). */
  tcp_start: number | null;
  /** TCP handshake done ('connect'). */
  tcp_done: number | null;
  /** TLS handshake done ('secureConnect'); null for plain http. */
  tls_done: number | null;
  /** Negotiated TLS facts (docs/api/probes.md `tls`). */
  tls: { cipher: string; version: string } | null;
  /** Leaf certificate facts, read even when verification fails (so an expired cert is reported). */
  certificate: CertificateFacts | null;
  /** First response byte readable on the socket after the connection was handed to undici. */
  first_byte: number | null;
  /** OpenSSL's reason when an invalid certificate was accepted (`accept_invalid_certificate`); else null. */
  certificate_error?: string | null;
}

export interface ConnectPlan {
  /** Resolved, policy-checked address to dial (never re-resolved: docs/architecture/probes.md, target safety). */
  address: string;
  port: number;
  /** 'https:' dials TLS with SNI `servername`; anything else plain TCP. */
  protocol: string;
  /** The URL's host name for SNI and certificate identity; null for an IP literal (no SNI). */
  servername: string | null;
  /** Extra trusted CA certificates (PEM); tests pass their generated CA here. */
  ca?: string | string[];
  /** Go on with a certificate that fails verification, noting why in `marks.certificate_error` (an https monitor's ignore_tls_errors). */
  accept_invalid_certificate?: boolean;
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

/**
 * Readable high-water mark of a probe's socket, bytes. At Node 20's default (16 KiB; Node.js
 * docs, stream "Buffering") every 64 KiB read from the kernel overshoots it, so the socket stops
 * reading (epoll_ctl) until undici has drained its buffer on a later tick, then starts again: a
 * 1 MB body took ~16 such stop/start rounds, each waiting for the event loop and, on a busy node,
 * for the scheduler. With 1 MiB the socket keeps reading as the data comes, as curl does; undici
 * still applies its own backpressure (our handler never asks it to pause), so at most this much
 * is buffered per probe. Figures: docs/benchmarks.md, "HTTP probe timing inside running agents".
 */
export const SOCKET_READ_HWM_BYTES = 1024 * 1024;

/** net.connect options for `plan` with {@link SOCKET_READ_HWM_BYTES} (Node's stream option, absent from @types/node's connect types). */
function tcpOptions(plan: ConnectPlan): net.NetConnectOpts {
  const options = { host: plan.address, port: plan.port, readableHighWaterMark: SOCKET_READ_HWM_BYTES };
  return options;
}

/**
 * Build an undici connector that dials `plan.address` and records blackbox_exporter's connect and
 * tls boundaries in `marks` (mutated as the handshake proceeds). The URL's host stays in the Host
 * header (undici takes it from the origin) and in SNI; only the dialled address is pinned.
 * It dials when undici asks for the connection, from inside dispatch, so nothing of ours runs
 * between the connect and its completion to delay the 'connect' event; tcp_ms starts at
 * `marks.tcp_start`, taken just before the connect, so the client's set-up is not in it either.
 *
 * Certificates are verified (system roots plus `plan.ca`) with the standard identity check; on a
 * failure the leaf's facts are still recorded and the callback gets a ConnectError whose code is
 * OpenSSL's reason (e.g. CERT_HAS_EXPIRED, ERR_TLS_CERT_ALTNAME_INVALID).
 */
export function pinnedConnector(plan: ConnectPlan, marks: ConnectMarks): { connector: buildConnector.connector; dispose: () => void } {
  return {
    connector: (_opts, callback) => dial(plan, marks, callback as Done),
    /** Nothing is dialled before undici asks, so nothing is left to close; kept for the callers. */
    dispose: () => {},
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
    // TCP first, then TLS over it (like curl): the TLS socket's own set-up stays out of tcp_ms.
    const secureContext = secureContextWithCa(plan.ca);
    marks.tcp_start = performance.now();
    const tcp = net.connect(tcpOptions(plan));
    socket = tcp;
    tcp.once('connect', () => {
      marks.tcp_done = performance.now();
      // highWaterMark: the TLS socket's own readable buffer (Node's tls.connect option, not in @types/node).
      const options: tls.ConnectionOptions & { highWaterMark: number } = {
        socket: tcp,
        host: plan.address, // the identity checked when there is no servername (an IP literal)
        ALPNProtocols: ['http/1.1'],
        secureContext,
        // Verified by hand below, so the certificate can be described even when it is rejected.
        rejectUnauthorized: false,
        highWaterMark: SOCKET_READ_HWM_BYTES,
      };
      if (plan.servername) options.servername = plan.servername;
      const tlsSocket = tls.connect(options);
      socket = tlsSocket;
      tlsSocket.on('error', onError);
      handshake(tlsSocket);
    });
  } else {
    marks.tcp_start = performance.now();
    socket = net.connect(tcpOptions(plan));
    socket.once('connect', () => {
      marks.tcp_done = performance.now();
      finish(null, socket);
    });
  }
  socket.setNoDelay(true);
  socket.on('error', onError);
  if (plan.signal.aborted) onAbort();
  else plan.signal.addEventListener('abort', onAbort, { once: true });

  function handshake(tlsSocket: tls.TLSSocket): void {
    tlsSocket.once('secureConnect', () => {
      marks.tls_done = performance.now();
      const cipher = tlsSocket.getCipher();
      marks.tls = { cipher: cipher?.name ?? 'unknown', version: tlsSocket.getProtocol() ?? 'unknown' };
      const peer = tlsSocket.getPeerCertificate(false);
      marks.certificate = peer && Object.keys(peer).length > 0 ? certificateFacts(peer) : null;
      if (!tlsSocket.authorized) {
        const reason = String(tlsSocket.authorizationError ?? 'UNKNOWN');
        if (!plan.accept_invalid_certificate) {
          finish(new ConnectError(`certificate rejected: ${reason}`, reason), tlsSocket);
          return;
        }
        marks.certificate_error = reason;
      }
      finish(null, tlsSocket); // onError stays attached: a no-op once finished, and never unhandled
    });
  }
}
