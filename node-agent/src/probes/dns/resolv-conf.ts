import { readFile } from 'node:fs/promises';
import { isIP } from 'node:net';

/** Where glibc reads its resolver configuration (resolv.conf(5)). */
export const RESOLV_CONF_PATH = '/etc/resolv.conf';

/**
 * The first usable `nameserver` of a resolv.conf text (resolv.conf(5)): comment lines start with
 * `#` or `;`, the address is an IPv4 or IPv6 literal, an IPv6 zone suffix (`%eth0`) is dropped.
 * When none is listed glibc uses the local host, so this returns `127.0.0.1` (resolv.conf(5)
 * "If there are no nameserver lines ... the default is to use the name server on the local machine").
 */
export function firstNameserver(text: string): string {
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line.startsWith('#') || line.startsWith(';')) continue;
    const m = /^nameserver\s+(\S+)/.exec(line);
    if (!m) continue;
    const address = m[1]!.split('%')[0]!;
    if (isIP(address)) return address;
  }
  return '127.0.0.1';
}

/**
 * Read `path` (default /etc/resolv.conf) and return its first nameserver (see firstNameserver).
 * Read on every call, as glibc re-reads it when it changes (DHCP, VPN); an unreadable file
 * falls back to the local host like a missing one.
 */
export async function systemNameserver(path: string = RESOLV_CONF_PATH): Promise<string> {
  try {
    return firstNameserver(await readFile(path, 'utf8'));
  } catch {
    return '127.0.0.1';
  }
}
