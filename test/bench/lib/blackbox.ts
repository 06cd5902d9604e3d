import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import { procStats } from './proc-stats.js';

/*
 * The outside anchor for our agent's probe cost: Prometheus blackbox_exporter (Debian package
 * prometheus-blackbox-exporter) probing the same TCP targets at the same rate, driven through its
 * /probe endpoint the way Prometheus scrapes it (one request per target and interval, spread over
 * the interval). Only the exporter's own CPU is counted, not this driver's.
 */

const BINARIES = ['/usr/bin/prometheus-blackbox-exporter', '/usr/local/bin/blackbox_exporter'];

/** The exporter's binary; installs the Debian package when missing and this process is root (with a message), else null. */
function blackboxBinary(log: (m: string) => void): string | null {
  const found = () => BINARIES.find((b) => fs.existsSync(b)) ?? null;
  if (found()) return found();
  if (process.getuid?.() !== 0) {
    log('blackbox_exporter: not installed and not root: skipped (apt-get install prometheus-blackbox-exporter to measure it)');
    return null;
  }
  log('blackbox_exporter: installing the Debian package prometheus-blackbox-exporter (apt-get, once)');
  const r = spawnSync('apt-get', ['install', '-y', '--no-install-recommends', 'prometheus-blackbox-exporter'], { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  if (r.status !== 0) log(`blackbox_exporter: apt-get failed (${r.status}): skipped`);
  return found();
}

/** A port free on 127.0.0.1 now. */
async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
}

/** What the exporter did over the window. */
export interface BlackboxFigures {
  version: string;
  probes: number;
  failed: number;
  probes_per_s: number;
  /** CPU of the exporter process, % of one core, and per probe in µs. */
  cpu_pct: number;
  cpu_us_per_probe: number;
  rss_mb: number;
}

/**
 * Probe `targets` (host:port), each once every `interval_s` at its own phase (`phase_ms`, as our
 * agent's rounds), with blackbox_exporter's tcp_connect module for `window_s` seconds.
 * @returns its figures, or null when the exporter is not available
 */
export async function blackboxAnchor(
  targets: Array<{ target: string; phase_ms: number }>, interval_s: number, window_s: number, tmp: string, log: (m: string) => void,
): Promise<BlackboxFigures | null> {
  const bin = blackboxBinary(log);
  if (!bin) return null;
  const shown = spawnSync(bin, ['--version'], { encoding: 'utf8' });
  const version = `${shown.stdout ?? ''}${shown.stderr ?? ''}`.split('\n')[0]!.trim();
  const config = path.join(tmp, 'blackbox.yml');
  fs.writeFileSync(config, 'modules:\n  tcp_connect:\n    prober: tcp\n    timeout: 2s\n');
  const port = await freePort();
  const child = spawn(bin, [`--config.file=${config}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'], { stdio: ['ignore', 'ignore', 'inherit'] });
  const base = `http://127.0.0.1:${port}`;
  try {
    for (let i = 0; ; i++) {
      if (await fetch(`${base}/-/healthy`).then((r) => r.ok, () => false)) break;
      if (i > 100) throw new Error('blackbox_exporter did not start');
      await new Promise((r) => setTimeout(r, 100));
    }
    let probes = 0;
    let failed = 0;
    const inFlight = new Set<Promise<void>>();
    const probe = (target: string) => {
      const p = fetch(`${base}/probe?module=tcp_connect&target=${encodeURIComponent(target)}`)
        .then(async (r) => { if (!/^probe_success 1$/m.test(await r.text())) failed++; }, () => { failed++; })
        .finally(() => { probes++; inFlight.delete(p); });
      inFlight.add(p);
    };
    // Targets by the second of the interval their phase falls in: each second's are sent together.
    const step_ms = interval_s * 1000;
    const from_ms = Math.ceil(Date.now() / 1000) * 1000 + 1000;
    const to_ms = from_ms + window_s * 1000;
    await new Promise((r) => setTimeout(r, from_ms - Date.now()));
    const a = procStats(child.pid!);
    for (let s = from_ms; s < to_ms; s += 1000) {
      for (const t of targets) {
        const due = (((t.phase_ms - s) % step_ms) + step_ms) % step_ms;
        if (due < 1000) probe(t.target);
      }
      await new Promise((r) => setTimeout(r, Math.max(0, s + 1000 - Date.now())));
    }
    await Promise.all(inFlight);
    const b = procStats(child.pid!);
    const wall_s = (Date.now() - from_ms) / 1000;
    const cpu_s = b.cpu_s - a.cpu_s;
    return { version, probes, failed, probes_per_s: probes / wall_s, cpu_pct: (cpu_s / wall_s) * 100, cpu_us_per_probe: (cpu_s * 1e6) / Math.max(1, probes), rss_mb: b.rss_mb };
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.on('close', r));
  }
}
