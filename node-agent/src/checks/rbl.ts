import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { RBL_ADDRESSES_MAX, canonicalHost, rblServerHost, type RblCheckOutput } from '@vantage/shared-protocol';
import { dnsProbe } from '../probes/dns.js';
import { ProbeInputError } from '../probes/input-error.js';
import { resolveTarget } from '../probes/resolve.js';
import type { Probe, ProbeContext } from '../probes/types.js';
import { failed, passed, type Check } from './types.js';

type Listing = RblCheckOutput['listings'][number];

/** Look-ups in flight at once for one check. */
export const RBL_CONCURRENCY = 8;

/**
 * The name to query for `address` in `zone` (RFC 5782 2.1, 2.4): IPv4 octets reversed
 * (`2.0.0.127.zen.example`), IPv6 as 32 reversed nibbles.
 */
export function rblQueryName(address: string, zone: string): string {
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv4') return `${parsed.toByteArray().reverse().join('.')}.${zone}`;
  const nibbles = parsed.toByteArray().flatMap((b) => [b >> 4, b & 15]).map((n) => n.toString(16));
  return `${nibbles.reverse().join('.')}.${zone}`;
}

/**
 * What an A answer of a list means: 127.0.0.0/8 is a listing (RFC 5782 2.1), except
 * 127.255.255.0/24, which lists such as Spamhaus use to refuse the query (an open or public
 * resolver, over quota); anything else is not a listing answer at all.
 */
export function classifyCode(code: string): 'listed' | 'refused' | 'other' {
  if (!/^127\.\d+\.\d+\.\d+$/.test(code)) return 'other';
  return code.startsWith('127.255.255.') ? 'refused' : 'listed';
}

/** The addresses an rbl target stands for: an IP literal itself, a host name's addresses (at most RBL_ADDRESSES_MAX). */
async function addressesOf(target: string): Promise<string[]> {
  const host = canonicalHost(target.trim().replace(/^\[(.*)\]$/, '$1'));
  if (isIP(host)) return [host];
  if (!/^[A-Za-z0-9.-]+$/.test(host)) throw new ProbeInputError(`not an IP address or host name: ${target.slice(0, 200)}`);
  const all = await lookup(host, { all: true });
  return [...new Set(all.map((a) => a.address))].slice(0, RBL_ADDRESSES_MAX);
}

async function lookUp(probe: Probe<'dns'>, address: string, zone: string, server: string | undefined, timeout_ms: number, ctx: ProbeContext): Promise<Listing> {
  const listing: Listing = { address, zone, listed: null, codes: [], reasons: [], error: null };
  const name = rblQueryName(address, zone);
  const a = await probe.run(name, { record_type: 'A', server, protocol: 'udp', timeout_ms }, ctx);
  if (a.output.rcode === 'NXDOMAIN') {
    listing.listed = false;
    return listing;
  }
  if (a.output.rcode !== 'NOERROR') {
    listing.error = a.error ?? `no answer for ${name}`;
    return listing;
  }
  listing.codes = a.output.answers.filter((r) => r.type === 'A').map((r) => r.value);
  const kinds = listing.codes.map(classifyCode);
  if (kinds.includes('refused')) {
    listing.error = `${zone} refused the query (${listing.codes.join(', ')}): it does not answer this node's resolver`;
    return listing;
  }
  listing.listed = kinds.includes('listed');
  if (listing.listed) {
    const txt = await probe.run(name, { record_type: 'TXT', server, protocol: 'udp', timeout_ms }, ctx);
    listing.reasons = txt.output.answers.filter((r) => r.type === 'TXT').map((r) => r.value.replace(/^"|"$/g, '')).slice(0, 10);
  }
  return listing;
}

/**
 * Build the `rbl` check (docs/api/checks.md): the target IP, or every address of a host name (up
 * to RBL_ADDRESSES_MAX), looked up in each DNS block list of `zones` (default: shared-protocol
 * DEFAULT_RBL_ZONES) through `server` or the node's resolver. `server` is judged first by the
 * check's target policy (shared-protocol rblServerHost: the rule the control plane applies when
 * the monitor is saved): a refused one is down (class `blocked`) before any query is sent.
 * Down when any list has it, with the zones, codes and TXT reasons in the error and the output.
 * A look-up that fails (timeout, SERVFAIL, a list refusing the resolver) is reported per listing;
 * the check is down for it only when every look-up failed.
 */
export function createRblCheck(probe: Probe<'dns'> = dnsProbe): Check<'rbl'> {
  return {
    type: 'rbl',
    async run(target, config, ctx) {
      const output: RblCheckOutput = { server: config.server ?? null, addresses: [], listings: [], listed_count: 0 };
      const server = rblServerHost(config);
      if (server !== null) {
        const allowed = await resolveTarget(server, 'auto', ctx.policy);
        if (!allowed.ok) return failed(output, `DNS server ${allowed.error}`, allowed.error_class);
      }
      try {
        output.addresses = await addressesOf(target);
      } catch (err) {
        if (err instanceof ProbeInputError) throw err;
        return failed(output, `cannot resolve ${target}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, 'resolver');
      }
      const jobs = output.addresses.flatMap((address) => config.zones.map((zone) => ({ address, zone })));
      const listings: Listing[] = new Array(jobs.length);
      let next = 0;
      const worker = async () => {
        while (next < jobs.length && !ctx.signal.aborted) {
          const i = next++;
          listings[i] = await lookUp(probe, jobs[i]!.address, jobs[i]!.zone, config.server, config.timeout_ms, ctx);
        }
      };
      await Promise.all(Array.from({ length: Math.min(RBL_CONCURRENCY, jobs.length) }, worker));
      output.listings = listings.filter((l) => l !== undefined);
      const listed = output.listings.filter((l) => l.listed === true);
      output.listed_count = listed.length;
      if (listed.length > 0) {
        const what = listed.map((l) => `${l.address} in ${l.zone} (${[...l.codes, ...l.reasons].join('; ')})`).join(', ');
        return failed(output, `listed: ${what}`, 'target');
      }
      const broken = output.listings.filter((l) => l.listed === null);
      if (output.listings.length === 0 || broken.length === output.listings.length) {
        return failed(output, `no block list answered: ${broken[0]?.error ?? 'nothing looked up'}`, 'resolver');
      }
      return passed(output);
    },
  };
}
