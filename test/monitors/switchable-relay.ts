import { createServer, connect, type Server, type Socket } from 'node:net';

/** A TCP relay to a control plane that a test can take down (nothing listens) and bring back on the same port. */
export interface SwitchableRelay {
  /** `http://127.0.0.1:<port>`: give this to an agent as its control plane URL. */
  url: string;
  /** Close the listener and cut every relayed connection: the control plane is unreachable. */
  down(): Promise<void>;
  /** Listen again on the same port. */
  up(): Promise<void>;
  close(): Promise<void>;
}

/** Relay 127.0.0.1:<new port> to `target_port` on loopback, byte for byte. */
export async function startRelay(target_port: number): Promise<SwitchableRelay> {
  const sockets = new Set<Socket>();
  let server: Server | null = null;
  const listen = (port: number) => new Promise<number>((resolve, reject) => {
    const s = createServer((client) => {
      const upstream = connect(target_port, '127.0.0.1');
      for (const sock of [client, upstream]) {
        sockets.add(sock);
        sock.on('close', () => sockets.delete(sock));
        sock.on('error', () => { client.destroy(); upstream.destroy(); });
      }
      client.pipe(upstream).pipe(client);
    });
    s.once('error', reject);
    s.listen(port, '127.0.0.1', () => resolve((s.address() as { port: number }).port));
    server = s;
  });
  const port = await listen(0);
  const down = async () => {
    const s = server;
    server = null;
    for (const sock of sockets) sock.destroy();
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
  };
  return {
    url: `http://127.0.0.1:${port}`,
    down,
    up: async () => { if (!server) await listen(port); },
    close: down,
  };
}
