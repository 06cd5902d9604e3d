import { parseArgs } from 'node:util';
import type { ConfigKey } from '../config/schema.js';

export const COMMANDS = ['enroll', 'run', 'status', 'version', 'help'] as const;
export type Command = (typeof COMMANDS)[number];

export interface ParsedArgs {
  command: Command;
  config_path?: string;
  flags: Partial<Record<ConfigKey, string | string[] | boolean>>;
  /** `status --json`: machine-readable output. */
  json: boolean;
  /** Things to tell the user that do not stop the command (a deprecated flag). */
  warnings: string[];
}

/** A bad command line: printed with the usage text, exit status 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export const USAGE = `usage: node-agent <command> [options]

commands:
  enroll    exchange an enrollment token (ent_…) for this node's identity, then exit
  run       enroll if needed, connect to the control plane and run tasks and monitors
  status    print node id, control plane, outbox and assignments from the state DB (no network)
  version   print the agent and protocol versions

options (environment fallback in brackets; flags > env > config file > defaults):
  --config <file>              JSON config file [VANTAGE_AGENT_CONFIG] (default /etc/vantage/agent.json, ./agent.json)
  --control-plane-url <url>    http(s) base URL of the control plane [VANTAGE_AGENT_CONTROL_PLANE_URL]
  --token <ent_…>              enrollment token, used once [VANTAGE_AGENT_TOKEN]
  --name <name>                node name sent at enrollment [VANTAGE_AGENT_NAME] (default: token label, else host name)
  --state-dir <dir>            state DB folder [VANTAGE_AGENT_STATE_DIR] (default /var/lib/vantage-agent as root, else ./.agent-state)
  --concurrency <n>            checks running at once [VANTAGE_AGENT_CONCURRENCY] (default 32)
  --queue-max <n>              tasks waiting beyond those [VANTAGE_AGENT_QUEUE_MAX] (default 256)
  --outbox-max-results <n>     results buffered at most [VANTAGE_AGENT_OUTBOX_MAX_RESULTS] (default 100000)
  --outbox-max-age-s <s>       oldest buffered result kept [VANTAGE_AGENT_OUTBOX_MAX_AGE_S] (default 604800, 7 days)
  --allow-private              allow private/loopback targets on this node [VANTAGE_AGENT_ALLOW_PRIVATE]
  --allow-cidrs <list>         allow targets in these comma-separated ranges; repeatable [VANTAGE_AGENT_ALLOW_CIDRS, comma-separated]
  --log-level <level>          fatal|error|warn|info|debug|trace|silent [VANTAGE_AGENT_LOG_LEVEL] (default info)
  --browser-executable <path>  Chromium for browser checks [VANTAGE_AGENT_BROWSER_EXECUTABLE] (default /usr/bin/chromium when present)
  --browser-concurrency <n>    browser checks running at once [VANTAGE_AGENT_BROWSER_CONCURRENCY] (default 2)
  --artifact-spool-max-bytes <n>  disk for HAR/screenshot files awaiting upload [VANTAGE_AGENT_ARTIFACT_SPOOL_MAX_BYTES] (default 268435456)
  --speedtest-max-bytes <n>    bytes a speed test direction may move [VANTAGE_AGENT_SPEEDTEST_MAX_BYTES] (default 134217728)
  --speedtest-max-duration-ms <n>  time a speed test direction may take [VANTAGE_AGENT_SPEEDTEST_MAX_DURATION_MS] (default 30000)
  --metrics-port <port>        serve Prometheus metrics at /metrics on this port [VANTAGE_AGENT_METRICS_PORT] (default: off)
  --metrics-host <addr>        address of the metrics listener [VANTAGE_AGENT_METRICS_HOST] (default 127.0.0.1; token: VANTAGE_AGENT_METRICS_TOKEN)
  --json                       (status) print JSON

exit status: 0 ok; 1 unexpected error; 2 bad command line or configuration; 3 refused by the control plane (no retry)`;

const STRING_FLAGS: Array<[string, ConfigKey]> = [
  ['control-plane-url', 'control_plane_url'], ['token', 'token'], ['state-dir', 'state_dir'], ['name', 'name'],
  ['concurrency', 'concurrency'], ['queue-max', 'queue_max'], ['outbox-max-results', 'outbox_max_results'],
  ['outbox-max-age-s', 'outbox_max_age_s'], ['log-level', 'log_level'],
  ['browser-executable', 'browser_executable'], ['browser-concurrency', 'browser_concurrency'],
  ['artifact-spool-max-bytes', 'artifact_spool_max_bytes'],
  ['speedtest-max-bytes', 'speedtest_max_bytes'], ['speedtest-max-duration-ms', 'speedtest_max_duration_ms'],
  ['metrics-port', 'metrics_port'], ['metrics-host', 'metrics_host'],
];

/**
 * Parse `argv` (without node and script): a command, then options (see {@link USAGE}).
 * @throws UsageError for an unknown command or option, or a missing option value.
 */
export function parseCli(argv: string[]): ParsedArgs {
  let values: Record<string, string | boolean | string[] | undefined>;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        config: { type: 'string' },
        ...Object.fromEntries(STRING_FLAGS.map(([flag]) => [flag, { type: 'string' as const }])),
        'allow-private': { type: 'boolean' },
        'allow-cidrs': { type: 'string', multiple: true },
        // Deprecated spelling (the installer, the env variable and the config key say allow_cidrs).
        'allow-cidr': { type: 'string', multiple: true },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const command = (values.help ? 'help' : positionals[0] ?? 'help') as Command;
  if (!COMMANDS.includes(command)) throw new UsageError(`unknown command: ${positionals[0]}`);
  if (positionals.length > 1) throw new UsageError(`unexpected argument: ${positionals[1]}`);
  const flags: ParsedArgs['flags'] = {};
  for (const [flag, key] of STRING_FLAGS) if (typeof values[flag] === 'string') flags[key] = values[flag] as string;
  if (values['allow-private'] !== undefined) flags.allow_private = values['allow-private'] as boolean;
  const warnings: string[] = [];
  const cidrs = [...(values['allow-cidrs'] as string[] | undefined) ?? [], ...(values['allow-cidr'] as string[] | undefined) ?? []];
  if (values['allow-cidr']) warnings.push('--allow-cidr is deprecated and will be removed: use --allow-cidrs (comma-separated, repeatable)');
  if (cidrs.length > 0) flags.allow_cidrs = cidrs;
  return { command, config_path: values.config as string | undefined, flags, json: values.json === true, warnings };
}
