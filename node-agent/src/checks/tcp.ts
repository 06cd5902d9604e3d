import net from 'node:net';
import { RESPONSE_PREVIEW_MAX_CHARS, splitHostPort, type MonitorConfig, type TcpCheckOutput } from '@vantage/shared-protocol';
import { ProbeInputError } from '../probes/input-error.js';
import { resolveTarget } from '../probes/resolve.js';
import { tcpProbe } from '../probes/tcp.js';
import type { Probe } from '../probes/types.js';
import { failed, passed, type Check, type CheckContext, type CheckOutcome } from './types.js';

/** Bytes of the server's answer read at most while waiting for `expect_banner`. */
export const BANNER_READ_MAX_BYTES = 4096;

interface Conversation {
  state: TcpCheckOutput['state'];
  connect_ms: number | null;
  banner: string | null;
  code: string | null;
}

/**
 * Connect to `address:port`, write `send` once connected, and read until `expect` appears, the
 * server closes, BANNER_READ_MAX_BYTES arrive or `timeout_ms` (connect included) passes.
 */
function converse(address: string, port: number, send: string | undefined, expect: string | undefined, timeout_ms: number, signal: AbortSignal): Promise<Conversation> {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const out: Conversation = { state: 'timeout', connect_ms: null, banner: null, code: null };
    const chunks: Buffer[] = [];
    let size = 0;
    const socket = net.connect({ host: address, port });
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      if (size > 0) out.banner = Buffer.concat(chunks).toString('utf8');
      socket.removeAllListeners();
      socket.on('error', () => {});
      socket.destroy();
      resolve(out);
    };
    const timer = setTimeout(done, timeout_ms);
    signal.addEventListener('abort', done, { once: true });
    socket.once('connect', () => {
      out.state = 'open';
      out.connect_ms = Math.round((performance.now() - t0) * 1000) / 1000;
      if (send !== undefined) socket.write(send);
      if (expect === undefined) done();
    });
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= BANNER_READ_MAX_BYTES || (expect !== undefined && Buffer.concat(chunks).toString('utf8').includes(expect))) done();
    });
    socket.once('end', done);
    socket.once('error', (err: NodeJS.ErrnoException) => {
      if (out.state !== 'open') {
        out.code = err.code ?? err.message;
        out.state = err.code === 'ECONNREFUSED' ? 'refused' : err.code === 'EHOSTUNREACH' || err.code === 'ENETUNREACH' ? 'unreachable' : 'error';
      }
      done();
    });
  });
}

async function withBanner(target: string, config: MonitorConfig<'tcp'>, ctx: CheckContext): Promise<CheckOutcome<'tcp'>> {
  const parsed = splitHostPort(target);
  if (!parsed) throw new ProbeInputError(`not a host or host:port: ${target.slice(0, 200)}`);
  const port = parsed.port ?? config.port;
  if (port === undefined) throw new ProbeInputError('no port: give the target as host:port or set config.port');
  const output: TcpCheckOutput = { resolved_address: null, port, connect_ms: null, state: 'error', expected: 'open', banner: null, banner_matched: null };
  const resolved = await resolveTarget(parsed.host, config.ip_version, ctx.policy);
  if (!resolved.ok) return failed(output, resolved.error, resolved.error_class);
  output.resolved_address = resolved.address;
  const got = await converse(resolved.address, port, config.send, config.expect_banner, config.timeout_ms, ctx.signal);
  output.state = got.state;
  output.connect_ms = got.connect_ms;
  output.banner = got.banner === null ? null : got.banner.slice(0, RESPONSE_PREVIEW_MAX_CHARS);
  const where = `${resolved.family === 6 ? `[${resolved.address}]` : resolved.address}:${port}`;
  if (got.state !== 'open') {
    const error = got.state === 'timeout' ? `no answer from ${where} within ${config.timeout_ms} ms` : `${got.state} at ${where}${got.code ? ` (${got.code})` : ''}`;
    return failed(output, error, got.state === 'timeout' ? 'timeout' : got.state === 'refused' ? 'refused' : got.state === 'unreachable' ? 'unreachable' : 'target');
  }
  if (config.expect_banner !== undefined) {
    output.banner_matched = got.banner !== null && got.banner.includes(config.expect_banner);
    if (!output.banner_matched) {
      const seen = got.banner === null ? 'nothing' : JSON.stringify(got.banner.slice(0, 80));
      return failed(output, `${where} sent ${seen}, not ${JSON.stringify(config.expect_banner)}, within ${config.timeout_ms} ms`, 'assertion');
    }
  }
  return passed(output);
}

/**
 * `tcp` check (docs/api/checks.md): a TCP connect to host:port. `expect: open` (default) is up
 * when the port accepts; with `send`/`expect_banner` the text is written once connected and the
 * answer must contain `expect_banner` within timeout_ms. `expect: closed` is up when the port
 * refuses, times out or is unreachable, and down when it accepts; a target that cannot be
 * resolved or may not be reached is down either way.
 */
export function createTcpCheck(probe: Probe<'tcp'> = tcpProbe): Check<'tcp'> {
  return {
    type: 'tcp',
    async run(target, config, ctx) {
      if (config.send !== undefined || config.expect_banner !== undefined) return withBanner(target, config, ctx);
      const got = await probe.run(target, { port: config.port, timeout_ms: config.timeout_ms, ip_version: config.ip_version }, ctx);
      const output: TcpCheckOutput = { ...got.output, expected: config.expect, banner: null, banner_matched: null };
      if (config.expect === 'open') return got.success ? passed(output) : failed(output, got.error ?? 'not open', got.error_class ?? 'target');
      if (got.output.state === 'open') return failed(output, `port ${output.port} of ${output.resolved_address} is open, expected closed`, 'assertion');
      if (got.output.resolved_address === null || got.output.state === 'error') return failed(output, got.error ?? 'connection failed', got.error_class ?? 'target');
      return passed(output);
    },
  };
}
