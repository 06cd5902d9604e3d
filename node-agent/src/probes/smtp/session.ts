import net from 'node:net';
import tls from 'node:tls';
import type { SmtpOutput, SmtpReply } from '@vantage/shared-protocol';
import { certificateFacts } from '../http/certificate.js';
import { ReplyReader, type ReplyLines } from './replies.js';

/** A session step the server answered outside what the step needs: the probe fails with `target`. */
export class SmtpRefusal extends Error {}

/** What a session needs: where, how to greet, what to ask, and the clock to stop at. */
export interface SessionPlan {
  address: string;
  port: number;
  /** SNI and certificate name: the target host when it is a name, else none. */
  servername: string | undefined;
  implicit_tls: boolean;
  starttls: boolean;
  helo_name: string;
  envelope: { mail_from: string; rcpt_to: string } | null;
  signal: AbortSignal;
}

const since = (t0: number) => Math.round((performance.now() - t0) * 1000) / 1000;
const brief = (r: SmtpReply): SmtpReply => ({ code: r.code, text: r.text });

function connect(address: string, port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: address, port });
    socket.once('connect', () => { socket.off('error', reject); resolve(socket); });
    socket.once('error', reject);
  });
}

/** TLS over an open socket (implicit TLS, or after STARTTLS), without verification: the facts are reported instead. */
function upgrade(socket: net.Socket, servername: string | undefined): Promise<tls.TLSSocket> {
  return new Promise((resolve, reject) => {
    const secure = tls.connect({ socket, servername, rejectUnauthorized: false });
    secure.once('secureConnect', () => { secure.off('error', reject); resolve(secure); });
    secure.once('error', reject);
  });
}

function tlsFacts(secure: tls.TLSSocket, output: SmtpOutput): void {
  const cipher = secure.getCipher();
  const error = secure.authorizationError;
  output.tls = { version: secure.getProtocol() ?? '', cipher: cipher?.standardName ?? cipher?.name ?? '', authorized: secure.authorized, authorization_error: error ? String(error) : null };
  const peer = secure.getPeerCertificate();
  output.certificate = peer && Object.keys(peer).length > 0 ? certificateFacts(peer) : null;
}

/**
 * Run one SMTP session (RFC 5321 3-4, RFC 3207 STARTTLS, RFC 8314 implicit TLS), filling `output`
 * as it goes, so a failure leaves what was reached: connect, (implicit TLS,) greeting, EHLO,
 * STARTTLS and a second EHLO when offered and asked, MAIL FROM and RCPT TO when an envelope is
 * given, then QUIT. Never sends DATA. Rejects with the socket error, a reply-format error, or an
 * SmtpRefusal for a step the server answered with an unexpected code; `signal` destroys the socket.
 */
export async function runSession(plan: SessionPlan, output: SmtpOutput): Promise<void> {
  const t0 = performance.now();
  const reader = new ReplyReader();
  let socket: net.Socket | null = null;
  const onAbort = () => { reader.fail(new Error('aborted')); socket?.destroy(); };
  plan.signal.addEventListener('abort', onAbort, { once: true });
  const command = async (line: string): Promise<ReplyLines> => {
    socket!.write(`${line}\r\n`);
    return reader.next();
  };
  const expect = (r: ReplyLines, step: string, ok: (code: number) => boolean) => {
    if (!ok(r.code)) throw new SmtpRefusal(`${step} answered ${r.code} ${r.text.split('\n')[0]}`);
  };
  try {
    if (plan.signal.aborted) throw new Error('aborted');
    let t = performance.now();
    socket = await connect(plan.address, plan.port);
    output.timing.connect_ms = since(t);
    if (plan.implicit_tls) {
      t = performance.now();
      socket = await upgrade(socket, plan.servername);
      output.timing.tls_ms = since(t);
      tlsFacts(socket as tls.TLSSocket, output);
    }
    reader.attach(socket);
    t = performance.now();
    const banner = await reader.next();
    output.timing.banner_ms = since(t);
    output.banner = brief(banner);
    expect(banner, 'greeting', (c) => c === 220);

    const ehlo = async () => {
      t = performance.now();
      const r = await command(`EHLO ${plan.helo_name}`);
      output.timing.ehlo_ms = since(t);
      expect(r, 'EHLO', (c) => c === 250);
      output.ehlo_extensions = r.lines.slice(1, 65).map((l) => l.slice(0, 512));
    };
    await ehlo();
    output.starttls_offered = !plan.implicit_tls && output.ehlo_extensions.some((e) => /^STARTTLS\b/i.test(e));
    if (output.starttls_offered && plan.starttls) {
      t = performance.now();
      const r = await command('STARTTLS');
      expect(r, 'STARTTLS', (c) => c === 220);
      reader.detach();
      socket = await upgrade(socket, plan.servername);
      output.timing.tls_ms = since(t);
      tlsFacts(socket as tls.TLSSocket, output);
      output.starttls_negotiated = true;
      output.tls_mode = 'starttls';
      reader.attach(socket);
      await ehlo(); // RFC 3207 4.2: the client must forget what it knew and greet again
    }
    if (plan.envelope) {
      t = performance.now();
      const from = await command(`MAIL FROM:<${plan.envelope.mail_from}>`);
      output.mail_from = brief(from);
      if (from.code === 250) output.rcpt_to = brief(await command(`RCPT TO:<${plan.envelope.rcpt_to}>`));
      output.timing.mail_ms = since(t);
    }
    socket.write('QUIT\r\n');
    output.timing.total_ms = since(t0);
  } finally {
    plan.signal.removeEventListener('abort', onAbort);
    reader.detach();
    socket?.on('error', () => {});
    socket?.end();
    setTimeout(() => socket?.destroy(), 1000).unref();
  }
}
