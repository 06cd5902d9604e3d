import net from 'node:net';

/** What came back on a raw connection: the bytes as text, and whether the peer reset it. */
export interface RawReply { text: string; reset: boolean }

/**
 * Send `bytes` to `port` on 127.0.0.1 and collect the reply until the peer closes or `bound_ms`
 * (default 10 s) passes; `until` ends it early once the text so far satisfies it.
 */
export function rawExchange(port: number, bytes: string | Buffer, opts: { until?: (text: string) => boolean; bound_ms?: number } = {}): Promise<RawReply> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let text = '';
    let reset = false;
    const done = () => { clearTimeout(timer); socket.destroy(); resolve({ text, reset }); };
    const timer = setTimeout(done, opts.bound_ms ?? 10_000);
    socket.on('connect', () => socket.write(bytes));
    socket.on('data', (d) => { text += d.toString('latin1'); if (opts.until?.(text)) done(); });
    socket.on('error', (err: NodeJS.ErrnoException) => { if (err.code === 'ECONNRESET') reset = true; done(); });
    socket.on('close', done);
  });
}

/** The port of `http://127.0.0.1:<port>`. */
export const portOf = (server: string): number => Number(new URL(server).port);

/**
 * Open a CONNECT tunnel to `target` through the proxy on `port`; resolves with the socket once
 * the proxy answered 200 (paused, so no byte is lost: attach listeners, then `resume()`), or
 * rejects with the proxy's status line.
 */
export function connectTunnel(port: number, target: string): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`));
    let head = '';
    const onData = (d: Buffer) => {
      head += d.toString('latin1');
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      socket.off('data', onData);
      socket.pause();
      if (!head.startsWith('HTTP/1.1 200')) { socket.destroy(); reject(new Error(head.split('\r\n')[0])); return; }
      const rest = Buffer.from(head.slice(end + 4), 'latin1');
      if (rest.length) socket.unshift(rest);
      resolve(socket);
    };
    socket.on('data', onData);
    socket.once('error', reject);
  });
}
