import fs from 'node:fs';
import path from 'node:path';
import { safeParse } from '@vantage/shared-protocol';
import { CONFIG_KEYS, agentConfigSchema, type AgentConfig, type ConfigKey } from './schema.js';

/** A configuration problem: the agent prints it and exits with status 2 (no retry). */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** Config file locations tried in order when `--config` is not given. */
export const DEFAULT_CONFIG_PATHS = ['/etc/vantage/agent.json', './agent.json'];
const SYSTEM_STATE_DIR = '/var/lib/vantage-agent';
const LOCAL_STATE_DIR = './.agent-state';

/** Env variable of a config key: `state_dir` → `VANTAGE_AGENT_STATE_DIR`. */
export function envName(key: string): string {
  return `VANTAGE_AGENT_${key.toUpperCase()}`;
}

/** Flag of a config key: `state_dir` → `--state-dir`. */
export function flagName(key: string): string {
  return `--${key.replace(/_/g, '-')}`;
}

const NUMBER_KEYS = new Set<ConfigKey>(['concurrency', 'queue_max', 'outbox_max_results', 'outbox_max_age_s', 'browser_concurrency', 'artifact_spool_max_bytes', 'speedtest_max_bytes', 'speedtest_max_duration_ms', 'metrics_port']);

/** Turn a string from a flag or env variable into the value type of `key`; bad text is left for the schema to reject. */
function fromText(key: ConfigKey, text: string): unknown {
  if (NUMBER_KEYS.has(key)) return text.trim() === '' ? text : Number(text);
  if (key === 'allow_private') {
    if (/^(1|true|yes|on)$/i.test(text)) return true;
    if (/^(0|false|no|off)$/i.test(text)) return false;
    return text;
  }
  if (key === 'allow_cidrs') return text.split(',').map((s) => s.trim()).filter(Boolean);
  return text;
}

export interface ConfigSources {
  /** Values from command-line flags, keyed by config key (strings, or string[] for allow_cidrs). */
  flags: Partial<Record<ConfigKey, string | string[] | boolean>>;
  /** The environment (VANTAGE_AGENT_* are read; VANTAGE_AGENT_CONFIG names the file). */
  env: Record<string, string | undefined>;
  /** `--config` value, if given: the file must then exist. */
  config_path?: string;
  /** Running as root (uid 0): the state dir default is /var/lib/vantage-agent. */
  is_root: boolean;
}

/** Read and parse a JSON config file; errors name the file. */
function readFile(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(`cannot read config file ${file}: ${(err as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ConfigError(`config file ${file} is not valid JSON`);
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new ConfigError(`config file ${file} must hold a JSON object`);
  return json as Record<string, unknown>;
}

/**
 * Merge configuration with precedence flags > env (VANTAGE_AGENT_*) > config file > defaults, read
 * once at start-up and validated with {@link agentConfigSchema}.
 * File: `--config`, else VANTAGE_AGENT_CONFIG, else the first of DEFAULT_CONFIG_PATHS that exists.
 * state_dir default: /var/lib/vantage-agent when root or when it exists, else ./.agent-state.
 * @throws ConfigError naming the field and where its value came from, e.g.
 *   `concurrency (from env VANTAGE_AGENT_CONCURRENCY): Invalid input: expected number, received NaN`.
 */
export function loadConfig(sources: ConfigSources): { config: AgentConfig; file: string | null } {
  const explicit = sources.config_path ?? sources.env.VANTAGE_AGENT_CONFIG;
  const file = explicit ?? DEFAULT_CONFIG_PATHS.find((p) => fs.existsSync(p)) ?? null;
  const raw: Record<string, unknown> = {};
  const origin: Record<string, string> = {};
  if (file) {
    for (const [k, v] of Object.entries(readFile(file))) {
      raw[k] = v;
      origin[k] = `file ${file}`;
    }
  }
  for (const key of CONFIG_KEYS) {
    const value = sources.env[envName(key)];
    if (value !== undefined && value !== '') {
      raw[key] = fromText(key, value);
      origin[key] = `env ${envName(key)}`;
    }
  }
  for (const key of CONFIG_KEYS) {
    const value = sources.flags[key];
    if (value === undefined) continue;
    raw[key] = typeof value === 'string' ? fromText(key, value) : Array.isArray(value) ? value.flatMap((v) => fromText(key, v) as string[]) : value;
    origin[key] = `flag ${flagName(key)}`;
  }
  if (raw.state_dir === undefined) {
    raw.state_dir = sources.is_root || fs.existsSync(SYSTEM_STATE_DIR) ? SYSTEM_STATE_DIR : LOCAL_STATE_DIR;
  }
  if (typeof raw.state_dir === 'string') raw.state_dir = path.resolve(raw.state_dir);
  const parsed = safeParse(agentConfigSchema, raw);
  if (!parsed.ok) {
    const text = parsed.issues.map((i) => {
      const top = i.path.split(/[.[]/)[0] ?? '';
      return `${i.path || '(config)'}${origin[top] ? ` (from ${origin[top]})` : ''}: ${i.message}`;
    }).join('; ');
    throw new ConfigError(`invalid configuration: ${text}`);
  }
  return { config: parsed.value, file };
}
