/*
 * Where a 1 MB HTTP transfer's time goes in Node, against curl: run inside an agent's namespace
 * by agent-http-timing-bench.ts `--read-paths N` (a fresh process, not the agent).
 *
 *   node --import tsx test/bench/lib/http-read-paths.ts <url> <n>
 *
 * Each round runs, in rotating order: the HTTP probe's engine (measureHttp), a bare net.Socket
 * read through the stream (a 'data' listener, Node's default 16 KiB high-water mark), the same
 * socket read through Node's `onread` option into one reused 64 KiB buffer, and curl. The bare
 * sockets send a minimal GET and stop at Content-Length; all stamp the first byte and the last
 * byte in their read callback. Prints one Markdown table: medians over `n` rounds (after 3
 * unrecorded ones) and the median of the paired differences with curl, ms.
 */
import { execFileSync } from 'node:child_process';
import net from 'node:net';
import { httpParamsSchema } from '@vantage/shared-protocol';
import { measureHttp } from '../../../node-agent/src/probes/http/measure.js';
import { median } from './stats.js';

/** One transfer's figures, ms: first byte → last byte, connected → first byte. */
interface Sample { download_ms: number; ttfb_ms: number }

const [urlText, nText] = process.argv.slice(2);
const url = new URL(urlText!);
const N = Number(nText ?? 40);

/** A bare GET on a net.Socket, read through the stream (`'data'`) or `onread` into one buffer. */
function bare(mode: 'stream' | 'onread', buffer = Buffer.allocUnsafe(64 * 1024)): Promise<Sample> {
  return new Promise((resolve, reject) => {
    let tConnect = 0;
    let tFirst = 0;
    let need = -1;
    let got = 0;
    let head = Buffer.alloc(0);
    const onChunk = (c: Buffer) => {
      tFirst ||= performance.now();
      if (need < 0) {
        head = Buffer.concat([head, c]);
        const end = head.indexOf('\r\n\r\n');
        if (end < 0) return;
        need = Number(/content-length: *(\d+)/i.exec(head.subarray(0, end).toString('latin1'))![1]);
        got = head.length - end - 4;
      } else got += c.length;
      if (got >= need) {
        const tEnd = performance.now();
        socket.destroy();
        resolve({ download_ms: tEnd - tFirst, ttfb_ms: tFirst - tConnect });
      }
    };
    const onread = { buffer, callback: (n: number, buf: Uint8Array) => { onChunk(Buffer.from(buf.buffer, buf.byteOffset, n)); return true; } };
    const socket = net.connect({ host: url.hostname, port: Number(url.port || 80), ...(mode === 'onread' ? { onread } : {}) });
    socket.setNoDelay(true);
    socket.on('connect', () => {
      tConnect = performance.now();
      socket.write(`GET ${url.pathname}${url.search} HTTP/1.1\r\nhost: ${url.host}\r\nconnection: close\r\n\r\n`);
    });
    if (mode === 'stream') socket.on('data', onChunk);
    socket.on('error', reject);
  });
}

/** The probe's engine, as an agent runs it (the benchmark range allowed, as the bench's agents allow it). */
async function probe(): Promise<Sample> {
  const m = await measureHttp(url.href, httpParamsSchema.parse({ timeout_ms: 10_000 }), { allow_private: false, allow_cidrs: ['198.18.0.0/15'] }, new AbortController().signal);
  if (m.failure) throw new Error(`probe failed: ${m.failure.error}`);
  return { download_ms: m.phases!.download_ms, ttfb_ms: m.phases!.ttfb_ms };
}

/** curl's transfer (total − starttransfer) and first byte (starttransfer − connect). */
function curl(): Sample {
  const out = execFileSync('curl', ['-s', '-o', '/dev/null', '-w', '%{time_total} %{time_connect} %{time_starttransfer}', url.href], { encoding: 'utf8' });
  const [total, connect, start] = out.trim().split(' ').map((s) => Number(s) * 1000);
  return { download_ms: total! - start!, ttfb_ms: start! - connect! };
}

const paths: Record<string, () => Sample | Promise<Sample>> = {
  'probe engine (measureHttp)': probe,
  "net.Socket, 'data' listener": () => bare('stream'),
  'net.Socket, onread into one 64 KiB buffer': () => bare('onread'),
  curl,
};
const names = Object.keys(paths);
const samples: Record<string, Sample[]> = Object.fromEntries(names.map((n) => [n, []]));
for (let round = 0; round < N + 3; round++) {
  for (let k = 0; k < names.length; k++) {
    const name = names[(round + k) % names.length]!;
    const s = await paths[name]!();
    if (round >= 3) samples[name]!.push(s);
  }
}
const f2 = (x: number) => x.toFixed(2);
const signed = (x: number) => `${x >= 0 ? '+' : ''}${x.toFixed(2)}`;
const diff = (name: string, key: keyof Sample) => median(samples[name]!.map((s, i) => s[key] - samples.curl![i]![key]));
console.log(`\nRead paths for ${url.href} in this namespace, N=${N} rounds, order rotating (ms)\n`);
console.log('| read path | download (median) | vs curl (median of paired differences) | first byte (median) | vs curl |');
console.log('|---|---|---|---|---|');
for (const name of names) {
  const xs = samples[name]!;
  console.log(`| ${name} | ${f2(median(xs.map((s) => s.download_ms)))} | ${signed(diff(name, 'download_ms'))} | ${f2(median(xs.map((s) => s.ttfb_ms)))} | ${signed(diff(name, 'ttfb_ms'))} |`);
}
