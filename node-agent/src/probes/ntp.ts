import dgram from 'node:dgram';
import { splitHostPort, type NtpOutput } from '@vantage/shared-protocol';
import { ProbeInputError } from './input-error.js';
import { buildRequest, nowMs, offsetDelay, parseHeader, referenceIdText, type NtpHeader } from './ntp/packet.js';
import { resolveTarget } from './resolve.js';
import type { Probe } from './types.js';

/** RFC 5905 9.1: the NTP port. */
const DEFAULT_PORT = 123;
const round3 = (v: number) => Math.round(v * 1000) / 1000;

interface Answer { header: NtpHeader; t4: number }

/** Wait for the reply echoing `request`'s transmit timestamp (RFC 5905 8 origin check); others are ignored. Null on timeout or abort. */
function exchange(socket: dgram.Socket, request: Buffer, timeout_ms: number, signal: AbortSignal): Promise<Answer | null> {
  return new Promise((resolve) => {
    const sent = request.subarray(40, 48);
    const done = (answer: Answer | null) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      socket.off('message', onMessage);
      resolve(answer);
    };
    const onMessage = (msg: Buffer) => {
      const t4 = nowMs();
      const header = parseHeader(msg);
      if (header && (header.mode === 4 || header.mode === 5) && header.origin.equals(sent)) done({ header, t4 });
    };
    const onAbort = () => done(null);
    const timer = setTimeout(onAbort, timeout_ms);
    signal.addEventListener('abort', onAbort, { once: true });
    socket.on('message', onMessage);
    socket.send(request, (err) => { if (err) done(null); });
  });
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => { clearTimeout(timer); signal.removeEventListener('abort', done); resolve(); };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

function openSocket(address: string, port: number, family: 4 | 6): Promise<dgram.Socket> {
  return new Promise((resolve, reject) => {
    const socket = dgram.createSocket(family === 4 ? 'udp4' : 'udp6');
    socket.once('error', reject);
    socket.connect(port, address, () => {
      socket.off('error', reject);
      socket.on('error', () => {}); // ICMP port unreachable surfaces here; the sample simply times out
      resolve(socket);
    });
  });
}

/**
 * NTP probe (docs/api/probes.md "ntp"): an SNTP client (RFC 4330, RFC 5905 8) sending `count`
 * mode-3 requests `interval_ms` apart to host[:port] (default 123), each answered within
 * `timeout_ms` or counted lost. A reply counts when it is mode 4 (server) or 5 and echoes our
 * transmit timestamp as its origin, with a non-zero transmit timestamp. Reported: offset and delay
 * of the sample with the smallest delay (as ntpdate and sntp choose) and that reply's stratum,
 * reference id, leap, root delay and dispersion; every sample's offset and delay.
 * Fails with `target` on a kiss-o'-death (stratum 0: RFC 5905 7.4; DENY and RSTR stop the run)
 * or an unsynchronized server (leap 3 or stratum 16, which ntpdate refuses too); `timeout` when
 * nothing valid came back.
 */
export const ntpProbe: Probe<'ntp'> = {
  type: 'ntp',
  async run(target, params, ctx) {
    const hp = splitHostPort(target.trim());
    if (!hp) throw new ProbeInputError(`target ${target} is not host[:port]`);
    const port = hp.port ?? DEFAULT_PORT;
    const output: NtpOutput = {
      resolved_address: null, port, samples_sent: 0, samples_received: 0, offset_ms: null, delay_ms: null, stratum: null,
      reference_id: null, leap: null, root_delay_ms: null, root_dispersion_ms: null, version: null, samples: [],
    };
    const resolved = await resolveTarget(hp.host, params.ip_version, ctx.policy);
    if (!resolved.ok) return { success: false, error: resolved.error, error_class: resolved.error_class, output };
    output.resolved_address = resolved.address;

    let socket: dgram.Socket;
    try {
      socket = await openSocket(resolved.address, port, resolved.family);
    } catch (err) {
      return { success: false, error: `cannot open a UDP socket to ${resolved.address}:${port}: ${(err as Error).message}`, error_class: 'unreachable', output };
    }
    let best: { header: NtpHeader; delay_ms: number; offset_ms: number } | null = null;
    let kiss: string | null = null;
    try {
      for (let i = 0; i < params.count && !ctx.signal.aborted && kiss === null; i++) {
        if (i > 0) await sleep(params.interval_ms, ctx.signal);
        if (ctx.signal.aborted) break;
        const t1 = nowMs();
        output.samples_sent++;
        const answer = await exchange(socket, buildRequest(t1), params.timeout_ms, ctx.signal);
        if (!answer || answer.header.transmit_zero) {
          output.samples.push({ offset_ms: null, delay_ms: null });
          continue;
        }
        const { header, t4 } = answer;
        if (header.stratum === 0) {
          kiss = referenceIdText(0, header.reference_id);
          output.samples.push({ offset_ms: null, delay_ms: null });
          if (kiss === 'DENY' || kiss === 'RSTR' || kiss === 'RATE') break;
          continue;
        }
        output.samples_received++;
        const sample = offsetDelay(t1, header.receive_ms, header.transmit_ms, t4);
        output.samples.push({ offset_ms: round3(sample.offset_ms), delay_ms: round3(sample.delay_ms) });
        if (!best || sample.delay_ms < best.delay_ms) best = { header, ...sample };
      }
    } finally {
      socket.close();
    }
    if (best) {
      const h = best.header;
      Object.assign(output, {
        offset_ms: round3(best.offset_ms), delay_ms: round3(best.delay_ms), stratum: h.stratum, reference_id: referenceIdText(h.stratum, h.reference_id),
        leap: h.leap, root_delay_ms: round3(h.root_delay_ms), root_dispersion_ms: round3(h.root_dispersion_ms), version: h.version || null,
      });
      if (h.leap === 'unsynchronized' || h.stratum >= 16) return { success: false, error: `server is not synchronized (leap ${h.leap}, stratum ${h.stratum})`, error_class: 'target', output };
      return { success: true, error: null, error_class: null, output };
    }
    if (kiss !== null) return { success: false, error: `kiss-o'-death ${kiss} from the server`, error_class: 'target', output };
    if (ctx.signal.aborted && output.samples_sent < params.count) return { success: false, error: 'ntp aborted before a reply', error_class: 'timeout', output };
    return { success: false, error: `no NTP reply from ${resolved.address}:${port} to ${output.samples_sent} requests within ${params.timeout_ms} ms each`, error_class: 'timeout', output };
  },
};
