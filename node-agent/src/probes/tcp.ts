import net from 'node:net';
import { splitHostPort, type FailureClass, type TcpOutput } from '@vantage/shared-protocol';
import { ProbeInputError } from './input-error.js';
import { resolveTarget } from './resolve.js';
import type { Probe } from './types.js';

type State = TcpOutput['state'];

const STATE_OF_CODE: Record<string, State> = {
  ECONNREFUSED: 'refused',
  EHOSTUNREACH: 'unreachable',
  ENETUNREACH: 'unreachable',
  EHOSTDOWN: 'unreachable',
  ENETDOWN: 'unreachable',
  ETIMEDOUT: 'timeout',
};
const CLASS_OF_STATE: Record<State, FailureClass | null> = { open: null, refused: 'refused', unreachable: 'unreachable', timeout: 'timeout', error: 'target' };

/**
 * Open one TCP connection to `address:port` and close it at once. Resolves with the state and the
 * connect time in ms (float, 'connect' event minus the connect call) once the handshake completes,
 * the peer refuses (RST: ECONNREFUSED), the network says no (ICMP / no route: EHOSTUNREACH,
 * ENETUNREACH) or `timeout_ms` / `signal` ends the wait (`timeout`: SYN unanswered).
 */
export function tcpConnect(address: string, port: number, timeout_ms: number, signal: AbortSignal): Promise<{ state: State; connect_ms: number | null; code: string | null }> {
  return new Promise((resolve) => {
    if (signal.aborted) {
      resolve({ state: 'timeout', connect_ms: null, code: null });
      return;
    }
    const t0 = performance.now();
    const socket = net.connect({ host: address, port });
    let timer: NodeJS.Timeout | undefined;
    const done = (state: State, code: string | null, connect_ms: number | null) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      socket.removeAllListeners('connect');
      socket.on('error', () => {}); // a late RST after destroy must not crash the process
      socket.destroy();
      resolve({ state, connect_ms, code });
    };
    const onAbort = () => done('timeout', null, null);
    socket.once('connect', () => done('open', null, performance.now() - t0));
    socket.once('error', (err: NodeJS.ErrnoException) => done(STATE_OF_CODE[err.code ?? ''] ?? 'error', err.code ?? err.message, null));
    timer = setTimeout(() => done('timeout', null, null), timeout_ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * TCP connect probe (docs/api/probes.md): target `host:port`, or `host` plus `params.port` (the target's port
 * wins when both are given). Resolves once through resolveTarget (policy checked after
 * resolution). Success is an open port; refused, timeout and unreachable are told apart in
 * `state` and `error_class`. Throws ProbeInputError only when no port can be found.
 */
export const tcpProbe: Probe<'tcp'> = {
  type: 'tcp',
  async run(target, params, ctx) {
    const parsed = splitHostPort(target); // the grammar the control plane checked before dispatch
    if (!parsed) throw new ProbeInputError(`not a host or host:port: ${target.slice(0, 200)}`);
    const port = parsed.port ?? params.port;
    if (port === undefined) throw new ProbeInputError('no port: give the target as host:port or set params.port');
    const output: TcpOutput = { resolved_address: null, port, connect_ms: null, state: 'error' };
    const resolved = await resolveTarget(parsed.host, params.ip_version, ctx.policy);
    if (!resolved.ok) return { success: false, error: resolved.error, error_class: resolved.error_class, output };
    output.resolved_address = resolved.address;
    const got = await tcpConnect(resolved.address, port, params.timeout_ms, ctx.signal);
    output.state = got.state;
    output.connect_ms = got.connect_ms === null ? null : Math.round(got.connect_ms * 1000) / 1000;
    if (got.state === 'open') return { success: true, error: null, error_class: null, output };
    const where = `${resolved.family === 6 ? `[${resolved.address}]` : resolved.address}:${port}`;
    const error = got.state === 'timeout'
      ? `no reply from ${where} within ${params.timeout_ms} ms`
      : `${got.state === 'error' ? 'connection failed' : got.state} at ${where}${got.code ? ` (${got.code})` : ''}`;
    return { success: false, error, error_class: CLASS_OF_STATE[got.state], output };
  },
};
