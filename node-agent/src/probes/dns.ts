import type { DnsOutput, FailureClass } from '@vantage/shared-protocol';
import type { RecordType } from 'dns-packet';
import type { ExchangeFailure, ExchangeResult } from './dns/exchange.js';
import { toRecords } from './dns/format.js';
import { buildQuery, formatServer, normalizeName, parseServer, rcodeOf } from './dns/query.js';
import { systemNameserver } from './dns/resolv-conf.js';
import { tcpExchange } from './dns/tcp.js';
import { udpExchange } from './dns/udp.js';
import { ProbeInputError } from './input-error.js';
import { resolveTarget } from './resolve.js';
import type { Probe, ProbeOutcome } from './types.js';

/** A server to query: a literal address and port. */
export interface DnsServerAddress {
  address: string;
  port: number;
}

export interface DnsProbeOptions {
  /**
   * The node's own resolver, used when `params.server` is absent. Default: the first nameserver
   * of /etc/resolv.conf on port 53. Tests pass a resolver on a loopback port.
   */
  systemServer?: () => Promise<DnsServerAddress>;
}

const CLASS_OF_FAILURE: Record<ExchangeFailure, FailureClass> = {
  timeout: 'timeout',
  aborted: 'timeout',
  refused: 'refused',
  unreachable: 'unreachable',
  error: 'target',
};

function failed(output: DnsOutput, error: string, error_class: FailureClass): ProbeOutcome<'dns'> {
  return { success: false, error, error_class, output };
}

const round_us = (ms: number): number => Math.round(ms * 1000) / 1000;

/**
 * Build a DNS probe (docs/api/probes.md `POST /v1/probe/dns`). One query for `target`
 * (a domain) and `params.record_type`, with dns-packet, no resolver library in between:
 * - `params.server` (`host`, `host:port`, `[v6]:port`): a name is resolved with the system
 *   resolver and the address is checked against the node's policy (a public node must not be
 *   turned against private resolvers); without it, the system resolver (see DnsProbeOptions).
 * - `protocol: 'udp'` sends one datagram and falls back to TCP when the reply has TC set
 *   (RFC 1035 4.2.1, RFC 7766 5); `'tcp'` goes straight to TCP. `params.timeout_ms` bounds both.
 * - Output: the server queried, the protocol of the reply used, rcode, query_ms (send → matching
 *   reply, fractional ms; after a TCP fallback the TCP exchange, connect included, like dig),
 *   `truncated` (the UDP reply had TC set), answers and authorities in presentation form
 *   (dns/format.ts).
 * - success is rcode NOERROR (an empty answer is still a success); any other rcode is
 *   error_class 'target' with the rcode in `error`; no reply is 'timeout', ICMP port unreachable
 *   'refused', no route 'unreachable'. Throws ProbeInputError for a name or server that cannot be
 *   sent (the runner marks it 'rejected').
 */
export function createDnsProbe(options: DnsProbeOptions = {}): Probe<'dns'> {
  const systemServer = options.systemServer ?? (async () => ({ address: await systemNameserver(), port: 53 }));
  return {
    type: 'dns',
    async run(target, params, ctx) {
      const name = normalizeName(target);
      if (!name) throw new ProbeInputError(`not a domain name: ${target.slice(0, 260)}`);
      const output: DnsOutput = { server: params.server ?? '', protocol: params.protocol, rcode: null, query_ms: null, truncated: false, answers: [], authorities: [] };

      let server: DnsServerAddress;
      let family: 4 | 6;
      if (params.server !== undefined) {
        const spec = parseServer(params.server);
        if (!spec) throw new ProbeInputError(`not a host or host:port: ${params.server.slice(0, 260)}`);
        const resolved = await resolveTarget(spec.host, 'auto', ctx.policy);
        if (!resolved.ok) return failed(output, `DNS server ${resolved.error}`, resolved.error_class);
        server = { address: resolved.address, port: spec.port };
        family = resolved.family;
      } else {
        // Policy exempt on purpose: this is the node's own configured resolver, which is usually
        // private (127.0.0.53, a LAN router) and is what the node already uses for every lookup.
        server = await systemServer();
        family = server.address.includes(':') ? 6 : 4;
      }
      output.server = formatServer(server.address, server.port);

      const deadline = performance.now() + params.timeout_ms;
      const remaining = () => Math.max(0, deadline - performance.now());
      const query = buildQuery(name, params.record_type as RecordType);
      let got: ExchangeResult;
      if (params.protocol === 'udp') {
        got = await udpExchange(server.address, family, server.port, query, remaining(), ctx.signal);
        if (got.ok && got.reply.flag_tc) {
          output.truncated = true;
          output.rcode = rcodeOf(got.reply);
          output.answers = toRecords(got.reply.answers);
          output.authorities = toRecords(got.reply.authorities);
          output.query_ms = round_us(got.query_ms);
          ctx.log.debug({ target: name, server: output.server }, 'udp reply truncated, retrying over tcp');
          got = await tcpExchange(server.address, server.port, query, remaining(), ctx.signal);
          if (!got.ok) {
            return failed(output, `UDP reply from ${output.server} truncated and TCP retry failed: ${got.detail}`, CLASS_OF_FAILURE[got.failure]);
          }
          output.protocol = 'tcp';
        }
      } else {
        got = await tcpExchange(server.address, server.port, query, remaining(), ctx.signal);
      }

      if (!got.ok) {
        const error = got.failure === 'timeout'
          ? `no reply from ${output.server} within ${params.timeout_ms} ms`
          : `query to ${output.server} over ${output.protocol} failed: ${got.detail}`;
        return failed(output, error, CLASS_OF_FAILURE[got.failure]);
      }
      const rcode = rcodeOf(got.reply);
      output.rcode = rcode;
      output.query_ms = round_us(got.query_ms);
      output.answers = toRecords(got.reply.answers);
      output.authorities = toRecords(got.reply.authorities);
      if (rcode !== 'NOERROR') return failed(output, `${rcode} from ${output.server} for ${name} ${params.record_type}`, 'target');
      return { success: true, error: null, error_class: null, output };
    },
  };
}

/** The DNS probe registered in registry.ts, using the node's /etc/resolv.conf resolver by default. */
export const dnsProbe: Probe<'dns'> = createDnsProbe();
