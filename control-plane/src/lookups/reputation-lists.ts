import { readFile, stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import ipaddr from 'ipaddr.js';
import type { Logger } from '../log.js';

/** How often a list file's modification time is looked at, ms: a replaced file is read again within this. */
const RECHECK_MS = 1000;

/** The lists shipped with the control plane (lookups/data/): used when the operator names none. */
export const SHIPPED_HOSTING_ASNS = fileURLToPath(new URL('./data/hosting-asns.txt', import.meta.url));
export const SHIPPED_ABUSE_ASNS = fileURLToPath(new URL('./data/abuse-asns.txt', import.meta.url));

/** Lines of a list file without comments (`#` to the end of the line) and blanks. */
function entries(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.replace(/#.*/, '').trim();
    if (line) out.push(line);
  }
  return out;
}

/** A set of addresses and CIDR ranges; IPv4-mapped IPv6 is matched as IPv4. */
export interface AddressSet {
  has(ip: string): boolean;
  readonly size: number;
}

const canonical = (addr: ipaddr.IPv4 | ipaddr.IPv6): ipaddr.IPv4 | ipaddr.IPv6 =>
  addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress() ? (addr as ipaddr.IPv6).toIPv4Address() : addr;

/**
 * Parse an address list: one address or CIDR range a line, `#` comments; the Tor Project's
 * exit-addresses format is read too (its `ExitAddress <ip> <date>` lines; other keywords ignored).
 * Lines that are neither are skipped.
 */
export function parseAddressList(text: string): AddressSet {
  const exact = new Set<string>();
  const ranges: Array<[ipaddr.IPv4 | ipaddr.IPv6, number]> = [];
  for (const line of entries(text)) {
    const words = line.split(/\s+/);
    const item = words[0] === 'ExitAddress' ? words[1] ?? '' : words.length === 1 ? words[0]! : '';
    try {
      if (item.includes('/')) ranges.push(ipaddr.parseCIDR(item));
      else if (ipaddr.isValid(item)) exact.add(canonical(ipaddr.parse(item)).toNormalizedString());
    } catch { /* not an address: skipped */ }
  }
  return {
    size: exact.size + ranges.length,
    has(ip) {
      let addr: ipaddr.IPv4 | ipaddr.IPv6;
      try { addr = canonical(ipaddr.parse(ip)); } catch { return false; }
      if (exact.has(addr.toNormalizedString())) return true;
      for (const range of ranges) if (range[0].kind() === addr.kind() && addr.match(range)) return true;
      return false;
    },
  };
}

/** Parse an ASN list: `AS13335` or `13335` first on each line (anything after it is a note), `#` comments. */
export function parseAsnList(text: string): Set<number> {
  const asns = new Set<number>();
  for (const line of entries(text)) {
    const m = /^(?:AS)?(\d{1,10})\b/i.exec(line);
    if (m) asns.add(Number(m[1]));
  }
  return asns;
}

/**
 * One list file, read on first use and read again when its modification time changes (looked
 * at no more than once per RECHECK_MS), so an operator refreshes a list by replacing the file.
 * A file that cannot be read gives `empty` (logged once per failure) until it can.
 */
export class ListFile<T> {
  #value: T;
  #mtime_ms = -1;
  #checked_at = 0;
  #loading: Promise<T> | null = null;

  constructor(readonly path: string, private readonly parse: (text: string) => T, private readonly empty: T, private readonly log?: Pick<Logger, 'warn'>) {
    this.#value = empty;
  }

  /** The list as of the file's last change. */
  async get(): Promise<T> {
    if (Date.now() - this.#checked_at < RECHECK_MS) return this.#value;
    return (this.#loading ??= this.#reload().finally(() => { this.#loading = null; }));
  }

  async #reload(): Promise<T> {
    this.#checked_at = Date.now();
    try {
      const { mtimeMs } = await stat(this.path);
      if (mtimeMs !== this.#mtime_ms) {
        this.#value = this.parse(await readFile(this.path, 'utf8'));
        this.#mtime_ms = mtimeMs;
      }
    } catch (err) {
      if (this.#mtime_ms !== -2) this.log?.warn({ err, path: this.path }, 'reputation list unreadable; treated as empty');
      this.#mtime_ms = -2;
      this.#value = this.empty;
    }
    return this.#value;
  }
}

/** Several address list files read as one: listed when any file lists the address. */
export function addressFiles(paths: string[], log?: Pick<Logger, 'warn'>): () => Promise<AddressSet[]> {
  const files = paths.map((p) => new ListFile<AddressSet>(p, parseAddressList, parseAddressList(''), log));
  return () => Promise.all(files.map((f) => f.get()));
}
