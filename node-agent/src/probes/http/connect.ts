import net from 'node:net';
import tls from 'node:tls';
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
  /**
   * Called with each read of the connection once it is ready (plain: the bytes of one read(2);
   * TLS: decrypted data). A plain connection's chunk is a view of {@link READ_BUFFER}, valid only
   * during the call: copy what must outlive it.
   */
  on_read: (chunk: Buffer) => void;
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
 * The one buffer every plain probe connection reads into, bytes: Node's `onread` option (net.Socket
 * docs) hands each read(2) to our callback in this buffer, with no stream in between. The stream
 * path allocated a fresh 64 KiB buffer per read, wrapped it, queued it and emitted it, and then
 * undici copied it into its parser: 0.9 to 1.05 ms more than curl on a 1 MB body, against 0.3 ms
 * more on this path (docs/benchmarks.md, "HTTP probe timing inside running agents"). One buffer serves
 * all connections because a read's callback runs to completion before the next read(2) of any
 * socket, and nothing keeps a view of it past the callback (the parser copies head bytes, the
 * check copies the body it keeps). 64 KiB is libuv's own read size; larger reads measured the same.
 */
export const READ_BUFFER = Buffer.allocUnsafe(64 * 1024);

/**
 * Readable high-water mark of a TLS socket, bytes (TLS data comes through the stream: `onread`
 * is for plain sockets). At Node 20's default (16 KiB; Node.js docs, stream "Buffering") every
 * 64 KiB read overshoots it and the socket stops reading until the buffer is drained on a later
 * tick; with 1 MiB it keeps reading as the data comes, as curl does.
 */
export const SOCKET_READ_HWM_BYTES = 1024 * 1024;

/**
 * Dial `plan.address` and record blackbox_exporter's connect and tls boundaries in `marks`
 * (mutated as the handshake proceeds); resolves the ready socket (a TLSSocket for https), whose
 * reads go to `plan.on_read`. Only the dialled address is pinned: the URL's host stays in the
 * Host header and in SNI. tcp_ms starts at `marks.tcp_start`, taken just before the connect, so
 * our set-up before it is not in it.
 *
 * Certificates are verified (system roots plus `plan.ca`) with the standard identity check; on a
 * failure the leaf's facts are still recorded and the promise rejects with a ConnectError whose
 * code is OpenSSL's reason (e.g. CERT_HAS_EXPIRED, ERR_TLS_CERT_ALTNAME_INVALID). Socket errors
 * reject with Node's error (code ECONNREFUSED, …); an abort of `plan.signal` with code ABORT_ERR.
 */
export function dialPinned(plan: ConnectPlan, marks: ConnectMarks): Promise<net.Socket> {
  return new Promise((resolve, reject) => dial(plan, marks, (err, socket) => (err ? reject(err) : resolve(socket!))));
}

/**
 * net.connect options for `plan`: a plain connection reads through `onread` into READ_BUFFER; the
 * TCP socket under TLS keeps the stream (TLS reads it) with SOCKET_READ_HWM_BYTES (Node's stream
 * option, absent from @types/node's connect types).
 */
function tcpOptions(plan: ConnectPlan, plain: boolean): net.NetConnectOpts {
  if (plain) {
    return { host: plan.address, port: plan.port, onread: { buffer: READ_BUFFER, callback: (n: number, buf: Uint8Array) => { plan.on_read((buf as Buffer).subarray(0, n)); return true; } } };
  }
  const options = { host: plan.address, port: plan.port, readableHighWaterMark: SOCKET_READ_HWM_BYTES };
  return options;
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
      if (socket instanceof tls.TLSSocket) socket.on('data', plan.on_read);
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
    const tcp = net.connect(tcpOptions(plan, false));
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
    socket = net.connect(tcpOptions(plan, true));
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
