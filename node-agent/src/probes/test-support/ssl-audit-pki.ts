import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createServer as createTlsServer, type SecureVersion, type TlsOptions } from 'node:tls';

/*
 * Test certificates for the SSL audit's tests and benchmark, made with the openssl command at
 * test time: a test CA, leaf certificates for `localhost` (good, expired, wrong name, with an
 * embedded SCT list, self-signed) and stapled OCSP responses (good, revoked) signed by the CA;
 * and the TLS servers on loopback that serve them ({@link startAuditServer}).
 */

/** A key and certificate in PEM. */
export interface KeyCert { key: string; cert: string }

export interface TestPki {
  dir: string;
  ca_file: string;
  ca: KeyCert;
  good: KeyCert;
  expired: KeyCert;
  wrong_name: KeyCert;
  with_scts: KeyCert;
  self_signed: KeyCert;
  /** DER OCSP responses for `good`'s certificate. */
  ocsp_good: Buffer;
  ocsp_revoked: Buffer;
  /** SCTs placed in `with_scts`. */
  sct_count: number;
}

const run = (dir: string, args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });

/** A fake-signature RFC 6962 SignedCertificateTimestampList of `n` SCTs (v1, 32-byte log id, timestamp, no extensions, ecdsa/sha256), as the extension's DER value. */
function sctListDer(n: number): string {
  const sct = Buffer.concat([Buffer.from([0]), Buffer.alloc(32, 7), Buffer.alloc(8, 1), Buffer.from([0, 0, 4, 3, 0, 2, 0x30, 0])]);
  const one = Buffer.concat([Buffer.from([sct.length >> 8, sct.length & 255]), sct]);
  const body = Buffer.concat(Array.from({ length: n }, () => one));
  const list = Buffer.concat([Buffer.from([body.length >> 8, body.length & 255]), body]);
  return Buffer.concat([Buffer.from([0x04, list.length]), list]).toString('hex');
}

/** Make the PKI in a temporary folder; `cleanup` removes it. Needs the openssl command. */
export function makeTestPki(): TestPki & { cleanup(): void } {
  const dir = mkdtempSync(path.join(tmpdir(), 'vantage-ssl-audit-'));
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  run(dir, ['req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '30', '-subj', '/O=Vantage Test/CN=Vantage Test CA',
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign']);
  const read = (name: string): KeyCert => ({ key: readFileSync(path.join(dir, `${name}.key`), 'utf8'), cert: readFileSync(path.join(dir, `${name}.crt`), 'utf8') });
  const leaf = (name: string, serial: number, san: string, days: string, extra = '') => {
    run(dir, ['req', '-new', ...ec, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', '/CN=localhost']);
    writeFileSync(path.join(dir, `${name}.ext`), `subjectAltName=${san}\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n${extra}`);
    run(dir, ['x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.crt', '-CAkey', 'ca.key', '-set_serial', String(serial), '-out', `${name}.crt`, '-days', days, '-extfile', `${name}.ext`]);
    return read(name);
  };
  const sct_count = 2;
  const good = leaf('good', 4097, 'DNS:localhost,DNS:www.localhost', '20');
  const expired = leaf('expired', 4098, 'DNS:localhost', '-1');
  const wrong_name = leaf('wrong', 4099, 'DNS:other.test', '20');
  const with_scts = leaf('scts', 4100, 'DNS:localhost', '20', `1.3.6.1.4.1.11129.2.4.2=DER:${sctListDer(sct_count)}\n`);
  run(dir, ['req', '-x509', ...ec, '-keyout', 'self.key', '-out', 'self.crt', '-days', '20', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost']);
  // OCSP (RFC 6960) answers signed by the CA from an `openssl ca` index: one saying good, one revoked.
  const ocsp = (status: 'V' | 'R') => {
    const revoked = status === 'R' ? '261101000000Z' : '';
    writeFileSync(path.join(dir, 'index.txt'), `${status}\t301231000000Z\t${revoked}\t1001\tunknown\t/CN=localhost\n`);
    writeFileSync(path.join(dir, 'index.txt.attr'), 'unique_subject = no\n');
    run(dir, ['ocsp', '-issuer', 'ca.crt', '-cert', 'good.crt', '-reqout', 'req.der', '-no_nonce']);
    run(dir, ['ocsp', '-index', 'index.txt', '-rsigner', 'ca.crt', '-rkey', 'ca.key', '-CA', 'ca.crt', '-reqin', 'req.der', '-respout', `ocsp-${status}.der`, '-ndays', '1']);
    return readFileSync(path.join(dir, `ocsp-${status}.der`));
  };
  return {
    dir, ca_file: path.join(dir, 'ca.crt'), ca: read('ca'), good, expired, wrong_name, with_scts, self_signed: read('self'),
    ocsp_good: ocsp('V'), ocsp_revoked: ocsp('R'), sct_count,
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** What a test needs to stop a server when it ends. */
export type Tap = { teardown(fn: () => unknown): void };

/** A test server's TLS versions (default TLS 1.2-1.3), stapled OCSP response, and HSTS header (HTTPS when given, else a TLS server that closes at once). */
export interface AuditServerOptions { min?: SecureVersion; max?: SecureVersion; ocsp?: Buffer; hsts?: string }

/**
 * A TLS server on 127.0.0.1:0 with `kc`, versions `min`..`max` (security level 0 so TLS 1.0/1.1
 * can be offered), stapling `ocsp`; HTTPS with `hsts` when given. Closed at `t`'s teardown.
 * @returns its port
 */
export async function startAuditServer(t: Tap, kc: KeyCert, opts: AuditServerOptions = {}): Promise<number> {
  const options: TlsOptions = { key: kc.key, cert: kc.cert, minVersion: opts.min ?? 'TLSv1.2', maxVersion: opts.max ?? 'TLSv1.3', ciphers: 'DEFAULT:@SECLEVEL=0' };
  const server: Server = opts.hsts !== undefined
    ? createHttpsServer(options, (_req, res) => { if (opts.hsts) res.setHeader('strict-transport-security', opts.hsts); res.end('ok'); })
    : createTlsServer(options, (s) => { s.on('error', () => {}); s.end(); });
  if (opts.ocsp) server.on('OCSPRequest', (_cert: Buffer, _issuer: Buffer, cb: (err: Error | null, res?: Buffer) => void) => cb(null, opts.ocsp));
  server.on('tlsClientError', () => {});
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => { (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.(); server.close(); });
  return (server.address() as AddressInfo).port;
}
