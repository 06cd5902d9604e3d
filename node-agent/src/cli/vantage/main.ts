import { setTimeout as wait } from 'node:timers/promises';
import { runVantage } from './commands.js';

/* Entry point of `vantage` (bin/vantage.mjs). Everything testable is in commands.ts; this binds it to the process. */
const controller = new AbortController();
process.once('SIGINT', () => controller.abort());
process.once('SIGTERM', () => controller.abort());
const code = await runVantage(process.argv.slice(2), {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
  status: process.stderr.isTTY ? (text) => process.stderr.write(`\r\x1b[2K${text}`) : null,
  env: { ...process.env },
  sleep: (ms, signal) => wait(ms, undefined, { signal }),
  readStdin: async () => {
    const chunks: Buffer[] = [];
    for await (const c of process.stdin) chunks.push(c as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  },
  signal: controller.signal,
});
process.exit(code);
