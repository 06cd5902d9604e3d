import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

interface Teardown { teardown(fn: () => unknown): void }

/** A message the test SMTP server accepted, parsed (mailparser). */
export interface ReceivedMail {
  from: string;
  to: string[];
  parsed: ParsedMail;
}

/**
 * A real SMTP server (smtp-server) on 127.0.0.1:0 for e-mail tests: no TLS, no auth, every
 * message parsed and kept. `smtp_url` is what VANTAGE_SMTP_URL would be; `reject(code)` makes the
 * next messages fail with that SMTP reply code. Closed at teardown.
 */
export async function startSmtpServer(t: Teardown): Promise<{
  smtp_url: string; messages: ReceivedMail[];
  waitFor(n: number, timeout_ms?: number): Promise<ReceivedMail[]>;
  reject(code: number | null): void;
}> {
  const messages: ReceivedMail[] = [];
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  let rejectCode: number | null = null;
  const server = new SMTPServer({
    secure: false, authOptional: true, disabledCommands: ['STARTTLS', 'AUTH'], logger: false,
    onData(stream, session, callback) {
      simpleParser(stream).then((parsed) => {
        if (rejectCode !== null) {
          const err = Object.assign(new Error('rejected by test server'), { responseCode: rejectCode });
          return callback(err);
        }
        messages.push({ from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '', to: session.envelope.rcptTo.map((r) => r.address), parsed });
        for (const w of [...waiters]) if (messages.length >= w.n) { waiters.splice(waiters.indexOf(w), 1); w.resolve(); }
        callback();
      }, (err: Error) => callback(err));
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return {
    smtp_url: `smtp://127.0.0.1:${port}/?ignoreTLS=true`,
    messages,
    reject(code) { rejectCode = code; },
    waitFor(n, timeout_ms = 60_000) {
      if (messages.length >= n) return Promise.resolve(messages);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`SMTP server got ${messages.length} of ${n} messages within ${timeout_ms} ms`)), timeout_ms);
        waiters.push({ n, resolve: () => { clearTimeout(timer); resolve(messages); } });
      });
    },
  };
}
