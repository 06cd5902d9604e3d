import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/**
 * The live set of `server`'s TCP sockets, kept from `connection` to `close`. It includes what the
 * server's own bookkeeping gives up on: upgraded WebSockets and upgrade requests still being
 * answered, which `server.close()` waits for but `closeAllConnections()` never closes. Shutdown
 * destroys what is left in it after a grace.
 */
export function trackSockets(server: Server): Set<Socket> {
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  return sockets;
}
