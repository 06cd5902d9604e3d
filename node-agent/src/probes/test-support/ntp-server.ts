import dgram from 'node:dgram';
import { NTP_PACKET_BYTES, nowMs, writeTimestamp } from '../ntp/packet.js';

/*
 * A small NTP server for tests and benchmarks (RFC 5905 server mode, no extensions): it answers
 * each mode-3 request on 127.0.0.1 with a mode-4 reply whose clock is this process's clock plus
 * `offset_ms`, stratum 2 and reference id 198.18.0.123, after `processing_ms` between receive and
 * transmit. Behaviours: `kiss` answers kiss-o'-death with that code, `unsynchronized` sets leap 3,
 * `silent` answers nothing, `forge_first` sends a reply with a wrong origin before the real one.
 */
export interface NtpServerOptions {
  offset_ms?: number;
  processing_ms?: number;
  kiss?: string;
  unsynchronized?: boolean;
  silent?: boolean;
  forge_first?: boolean;
  /** Where to listen (default 127.0.0.1 and a port the kernel picks; benchmarks bind 123 inside a namespace). */
  host?: string;
  port?: number;
}

export interface NtpTestServer {
  port: number;
  /** Requests received. */
  readonly requests: number;
  close(): Promise<void>;
}

function reply(request: Buffer, o: NtpServerOptions, received_ms: number): Buffer {
  const buf = Buffer.alloc(NTP_PACKET_BYTES);
  const version = (request[0]! >> 3) & 7;
  const leap = o.unsynchronized ? 3 : 0;
  buf[0] = (leap << 6) | (version << 3) | 4;
  buf[1] = o.kiss ? 0 : 2;
  buf[2] = request[2]!;
  buf[3] = 0xec; // precision 2^-20 s
  buf.writeUInt32BE(Math.round(0.0123 * 65536), 4); // root delay 12.3 ms
  buf.writeUInt32BE(Math.round(0.0456 * 65536), 8); // root dispersion 45.6 ms
  if (o.kiss) buf.write(o.kiss.padEnd(4, '\0').slice(0, 4), 12, 'latin1');
  else Buffer.from([198, 18, 0, 123]).copy(buf, 12);
  const offset = o.offset_ms ?? 0;
  writeTimestamp(buf, 16, received_ms + offset - 60_000);
  request.copy(buf, 24, 40, 48); // origin = the client's transmit timestamp
  writeTimestamp(buf, 32, received_ms + offset);
  writeTimestamp(buf, 40, nowMs() + offset);
  return buf;
}

/** Start the server on `options.host`:`options.port` (default 127.0.0.1 and a port the kernel picks). */
export async function startNtpServer(options: NtpServerOptions = {}): Promise<NtpTestServer> {
  const socket = dgram.createSocket('udp4');
  let requests = 0;
  socket.on('message', (msg, rinfo) => {
    const received_ms = nowMs();
    if (msg.length < NTP_PACKET_BYTES || (msg[0]! & 7) !== 3) return;
    requests++;
    if (options.silent) return;
    const send = () => {
      if (options.forge_first) {
        const forged = reply(msg, options, received_ms);
        forged.writeUInt32BE((forged.readUInt32BE(24) ^ 1) >>> 0, 24);
        forged.writeUInt32BE((forged.readUInt32BE(32) + 3600) >>> 0, 32);
        socket.send(forged, rinfo.port, rinfo.address);
      }
      socket.send(reply(msg, options, received_ms), rinfo.port, rinfo.address);
    };
    if (options.processing_ms) setTimeout(send, options.processing_ms);
    else send();
  });
  await new Promise<void>((resolve) => socket.bind(options.port ?? 0, options.host ?? '127.0.0.1', resolve));
  return {
    port: socket.address().port,
    get requests() { return requests; },
    close: () => new Promise((resolve) => socket.close(() => resolve())),
  };
}
