/*
 * The probe-engine benchmark in one command:
 *
 *   npx tsx test/bench/probe-bench.ts [extra args passed to every script, e.g. --seconds 3]
 *
 * Runs every test/bench/probe-bench-*.ts (dns, http-tcp, ping, ...) as a child process, one
 * after the other so they never compete for the two cores, and concatenates their Markdown into
 * bench/out/probe-bench.md under a header describing the machine (nproc, CPU model, memory,
 * Node version, kernel). A script that fails is reported in the file with its exit code and the
 * tail of its stderr; the others still run. Some scripts need root (namespaces, ICMP) and system
 * tools (dig, curl, iputils ping): see each script's header.
 */
import { spawn } from 'node:child_process';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
const REPO = join(BENCH_DIR, '..', '..');
const OUT = join(REPO, 'bench', 'out', 'probe-bench.md');
const TSX = import.meta.resolve('tsx');

/** The first "model name" of /proc/cpuinfo, or os.cpus()'s model. */
async function cpuModel(): Promise<string> {
  try {
    const text = await readFile('/proc/cpuinfo', 'utf8');
    const m = /^model name\s*:\s*(.+)$/m.exec(text);
    if (m) return m[1]!.trim();
  } catch { /* not Linux */ }
  return os.cpus()[0]?.model ?? 'unknown';
}

/** Markdown header: when, and on what machine, the figures were measured. */
async function machineHeader(): Promise<string> {
  const gib = (bytes: number) => `${(bytes / 1024 ** 3).toFixed(1)} GiB`;
  return [
    '# Probe engine benchmark',
    '',
    `Run at ${new Date().toISOString()} by \`npx tsx test/bench/probe-bench.ts\`.`,
    '',
    '| machine | |',
    '|---|---|',
    `| nproc | ${os.availableParallelism()} |`,
    `| CPU | ${await cpuModel()} |`,
    `| memory | ${gib(os.totalmem())} total, ${gib(os.freemem())} free at start |`,
    `| Node.js | ${process.version} |`,
    `| kernel | ${os.type()} ${os.release()} (${os.arch()}) |`,
    `| load average at start | ${os.loadavg().map((x) => x.toFixed(2)).join(' ')} |`,
    '',
  ].join('\n');
}

/** Run one bench script; resolves with its stdout, exit code and the tail of its stderr. */
function runScript(file: string, args: string[]): Promise<{ stdout: string; code: number | null; stderr_tail: string; seconds: number }> {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, ['--import', TSX, file, ...args], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => { stdout += c.toString(); process.stdout.write(c); });
    child.stderr.on('data', (c: Buffer) => { stderr = (stderr + c.toString()).slice(-4000); process.stderr.write(c); });
    child.on('close', (code) => resolve({ stdout, code, stderr_tail: stderr.trim().split('\n').slice(-15).join('\n'), seconds: (performance.now() - t0) / 1000 }));
  });
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const scripts = (await readdir(BENCH_DIR)).filter((f) => /^probe-bench-.+\.ts$/.test(f)).sort();
  const sections = [await machineHeader()];
  for (const script of scripts) {
    process.stderr.write(`\n== ${script}\n`);
    const r = await runScript(join(BENCH_DIR, script), args);
    sections.push(`## ${script.replace(/\.ts$/, '')}\n`);
    sections.push(r.stdout.trim() || '(no output)');
    if (r.code !== 0) sections.push(`\n**Failed** with exit code ${r.code} after ${r.seconds.toFixed(1)} s:\n\n\`\`\`\n${r.stderr_tail}\n\`\`\``);
    else sections.push(`\n_${r.seconds.toFixed(1)} s_`);
    sections.push('');
  }
  await mkdir(dirname(OUT), { recursive: true });
  await writeFile(OUT, `${sections.join('\n')}\n`);
  process.stderr.write(`\nwrote ${OUT} (${scripts.length} scripts)\n`);
}

await main();
