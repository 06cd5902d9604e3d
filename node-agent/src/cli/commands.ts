import fs from 'node:fs';
import { PROTOCOL_VERSION, MIN_PROTOCOL_VERSION } from '@vantage/shared-protocol';
import { createAgent } from '../agent.js';
import { ConfigError, loadConfig, type ConfigSources } from '../config/load.js';
import type { AgentConfig } from '../config/schema.js';
import { ConfigFileWatch } from '../config/watch.js';
import { createLogger } from '../log.js';
// Static on purpose: a dynamic import() of a module compiled into the bundle would make esbuild
// wrap its whole import graph for a lazy start, and keep every shared-protocol module unshaken
// (docs/architecture/node-agent.md "Memory of the installed bundle").
import { createRunCheck } from '../probes/runner.js';
import { openStateDb, stateFile } from '../state/db.js';
import type { RunCheckFn } from '../tasks/check-job.js';
import { USAGE, UsageError, parseCli, type ParsedArgs } from './args.js';
import { formatStatus, readStatus } from './status.js';

/** Exit statuses (documented in USAGE and docs/operators/agent.md). */
export const EXIT = { ok: 0, error: 1, usage: 2, refused: 3 } as const;

/** Where the CLI writes: stdout for results, stderr for problems (tests capture both). */
export interface CliIo {
  out: (text: string) => void;
  err: (text: string) => void;
  /** Register the soft-shutdown handler for SIGTERM/SIGINT; returns an unregister function. */
  onSignal: (handler: (signal: string) => void) => () => void;
}

/** The agent's version (node-agent/package.json). */
export function agentVersion(): string {
  const pkg = JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

/** Soft-shutdown bound for running tasks, ms. */
const SHUTDOWN_GRACE_MS = 10_000;

/** How the running configuration was loaded: its sources and the file read (null: none). */
interface Loaded { config: AgentConfig; file: string | null; sources: ConfigSources }

async function runAgent({ config, file, sources }: Loaded, mode: 'run' | 'enroll', io: CliIo): Promise<number> {
  const log = createLogger(config.log_level);
  const db = openStateDb(config.state_dir);
  let runCheck: RunCheckFn = async () => { throw new Error('no probe engine in enroll mode'); };
  if (mode === 'run') {
    const caps = { max_bytes: config.speedtest_max_bytes, max_duration_ms: config.speedtest_max_duration_ms };
    runCheck = createRunCheck({ speedtest: caps });
  }
  const agent = createAgent({ config, db, log, runCheck, agent_version: agentVersion(), mode, config_file: file });
  // Settings are read once: say when the file changes under the running agent.
  const watch = mode === 'run' && file ? new ConfigFileWatch({ file, sources, running: config, log: log.child({ module: 'agent.config' }) }) : null;
  watch?.start();
  const off = io.onSignal((signal) => {
    log.info({ signal, grace_ms: SHUTDOWN_GRACE_MS }, 'shutting down');
    void agent.stop(SHUTDOWN_GRACE_MS);
  });
  try {
    const exit = await agent.start();
    if (exit.kind === 'fatal') {
      log.fatal({ code: exit.error.code }, exit.error.message);
      io.err(`node-agent: ${exit.error.message}`);
      return EXIT.refused;
    }
    if (exit.kind === 'enrolled') {
      io.out(exit.already ? `already enrolled as ${exit.node_id}` : `enrolled as ${exit.node_id}; credential stored in ${stateFile(config.state_dir)}`);
    }
    return EXIT.ok;
  } finally {
    watch?.stop();
    off();
    db.close();
  }
}

function status(config: AgentConfig, args: ParsedArgs, io: CliIo): number {
  let db;
  try {
    db = openStateDb(config.state_dir, { must_exist: true });
  } catch (err) {
    io.err(`node-agent: ${(err as Error).message}`);
    return EXIT.error;
  }
  try {
    const report = readStatus(db, config.state_dir);
    io.out(args.json ? JSON.stringify(report, null, 2) : formatStatus(report));
    return EXIT.ok;
  } finally {
    db.close();
  }
}

/**
 * The `node-agent` command line: parse, load config once, run one command.
 * @returns the process exit status (see {@link EXIT}); never throws for bad input.
 */
export async function runCli(argv: string[], env: Record<string, string | undefined>, io: CliIo): Promise<number> {
  let args: ParsedArgs;
  try {
    args = parseCli(argv);
  } catch (err) {
    io.err(`node-agent: ${(err as Error).message}\n\n${USAGE}`);
    return EXIT.usage;
  }
  if (args.command === 'help') {
    io.out(USAGE);
    return EXIT.ok;
  }
  if (args.command === 'version') {
    io.out(`node-agent ${agentVersion()} (protocol ${PROTOCOL_VERSION}, accepts ${MIN_PROTOCOL_VERSION}-${PROTOCOL_VERSION})`);
    return EXIT.ok;
  }
  for (const warning of args.warnings) io.err(`node-agent: ${warning}`);
  let loaded: Loaded;
  try {
    const sources: ConfigSources = { flags: args.flags, env, config_path: args.config_path, is_root: process.getuid?.() === 0 };
    loaded = { ...loadConfig(sources), sources };
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    io.err(`node-agent: ${err.message}`);
    return EXIT.usage;
  }
  const { config } = loaded;
  if (args.command === 'status') return status(config, args, io);
  if (args.command === 'enroll' && !config.token) {
    io.err('node-agent: enroll needs an enrollment token (--token ent_… or VANTAGE_AGENT_TOKEN)');
    return EXIT.usage;
  }
  try {
    return await runAgent(loaded, args.command, io);
  } catch (err) {
    io.err(`node-agent: ${(err as Error).message}`);
    return EXIT.error;
  }
}
