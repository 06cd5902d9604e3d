import { STATUS_CODES, ServerResponse, type IncomingMessage, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';

/** How long a refused upgrade's answer may take to drain before the socket is destroyed anyway, ms. */
const ANSWER_DRAIN_MS = 5_000;

/**
 * Refuse an upgrade on the raw socket with an HTTP response carrying the error envelope of
 * docs/api (`{ error: { code, message, request_id }, request_id }`): the request never becomes a
 * WebSocket, and the socket is closed once the answer is written (destroyed after
 * ANSWER_DRAIN_MS whatever the peer does, so a peer that stops reading cannot keep it).
 * @param headers extra headers (Retry-After and X-RateLimit-* on 429)
 */
export function rejectUpgrade(socket: Duplex, status: number, code: string, message: string, request_id: string, headers: Record<string, string> = {}): void {
  if (socket.destroyed) return;
  const body = JSON.stringify({ error: { code, message, request_id }, request_id });
  const head = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}`,
    'Connection: close',
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    `X-Request-Id: ${request_id}`,
    ...(status === 401 ? ['WWW-Authenticate: Bearer'] : []),
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ].join('\r\n');
  if (!socket.writable) return void socket.destroy();
  const timer = setTimeout(() => socket.destroy(), ANSWER_DRAIN_MS);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
  socket.once('finish', () => socket.destroy());
  socket.end(`${head}\r\n\r\n${body}`);
}

/**
 * Run `fn` once the socket's previous response (a keep-alive request pipelined before the upgrade
 * request, which Node may still be writing) has finished, so answers never interleave; at once
 * when there is none. Node keeps that response in the socket's `_httpMessage` until it finishes.
 * Not finished within `wait_ms` → the socket is destroyed.
 */
export function afterPreviousResponse(socket: Duplex, fn: () => void, wait_ms: number): void {
  const previous = (socket as { _httpMessage?: ServerResponse | null })._httpMessage;
  if (!previous || previous.writableFinished) return fn();
  let ran = false;
  // A peer that does not read the previous answer does not hold the socket for longer than this.
  const timer = setTimeout(() => socket.destroy(), wait_ms);
  timer.unref();
  const go = () => {
    if (ran) return;
    ran = true;
    clearTimeout(timer);
    (socket as { _httpMessage?: ServerResponse | null })._httpMessage = null;
    fn();
  };
  previous.once('finish', go);
  previous.once('close', go);
}

/** True when an HTTP request declares a body (Content-Length > 0 or any Transfer-Encoding). */
export function declaresBody(req: IncomingMessage): boolean {
  if (req.headers['transfer-encoding'] !== undefined) return true;
  const length = req.headers['content-length'];
  return length !== undefined && length !== '0';
}

/**
 * Answer an upgrade request that is not for us as the ordinary HTTP request it also is (RFC 9110
 * 7.8: a server may ignore Upgrade): the server's own `request` listeners (the API) answer it on
 * the socket, with `Connection: close`, and the socket is closed once the response is sent. Node
 * hands every request carrying `Upgrade` to the `upgrade` listeners only, so without this such a
 * request would never be answered and its socket never closed.
 *
 * The caller refuses requests that declare a body (`declaresBody`): Node does not parse the body
 * of an upgrade request, so the route would see an empty one.
 */
export function serveAsPlainRequest(server: Server, req: IncomingMessage, socket: Duplex): void {
  (socket as { _httpMessage?: ServerResponse | null })._httpMessage = null;
  try {
    const res = new ServerResponse(req);
    res.shouldKeepAlive = false;
    res.assignSocket(socket as never);
    // net.Socket#destroySoon: end after the queued writes, then destroy.
    const done = () => {
      if (!socket.destroyed) (socket as Socket).destroySoon();
    };
    res.once('finish', () => { res.detachSocket(socket as never); done(); });
    res.once('close', done);
    server.emit('request', req, res);
  } catch {
    socket.destroy();
  }
}
