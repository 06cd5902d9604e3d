import { parseArgs } from 'node:util';
import { ApiCallError, createApiClient } from '../../as-code/client.js';
import { applyCommand, exportCommand, planCommand, schemaCommand } from './as-code-commands.js';
import { clientFor, forgetCredentials, saveCredentials } from './credentials.js';
import { EXIT, VantageUsageError, type VantageIo } from './io.js';
import { eventsTailCommand, monitorsCommand } from './monitor-commands.js';
import { probeCommand } from './probe-command.js';

export const VANTAGE_USAGE = `usage: vantage <command> [options]

commands:
  login --url URL --key sk_…           store the control plane and an API key (verified first)
  login --url URL --email E            the same with a password (from VANTAGE_PASSWORD or stdin): an API key is created
  logout                               forget the stored credentials
  plan FILE... [--prune]               show what apply would create, change and delete (exit 2: changes pending)
  apply FILE... [--prune]              make the account match the files (--prune: delete what files no longer name)
  export                               the account as a monitoring-as-code file (YAML; JSON with --json)
  schema                               the JSON Schema of the file format
  probe TYPE TARGET [--nodes N] [--country CC]... [--param k=v]...
                                       run a probe (http, ping, dns, tcp, traceroute, mtr, …) and show each node's result
  monitors [list]                      the monitors as a table
  monitors pause|resume|delete ID
  events tail [--interval-s N] [--once]  print alert events as they fire, are acknowledged and resolve

options:
  --url URL, --key KEY                 instead of the stored login [VANTAGE_URL, VANTAGE_API_KEY]
  --json                               machine-readable output

exit status: 0 done (plan: no changes), 1 failed, 2 plan has changes pending, 64 bad command line.
`;

const OPTIONS = {
  url: { type: 'string' }, key: { type: 'string' }, email: { type: 'string' }, json: { type: 'boolean', default: false },
  prune: { type: 'boolean', default: false }, nodes: { type: 'string' }, country: { type: 'string', multiple: true },
  param: { type: 'string', multiple: true }, 'interval-s': { type: 'string' }, once: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

function positiveInt(name: string, raw: string | undefined, fallback: number, max: number): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > max) throw new VantageUsageError(`--${name} must be an integer 1-${max}`);
  return n;
}

/** `--param k=v`: v parsed as JSON when it is JSON (numbers, booleans), else kept as a string. */
function params(list: string[] = []): Record<string, unknown> {
  return Object.fromEntries(list.map((p) => {
    const i = p.indexOf('=');
    if (i < 1) throw new VantageUsageError(`--param ${p}: expected key=value`);
    const raw = p.slice(i + 1);
    try { return [p.slice(0, i), JSON.parse(raw)]; } catch { return [p.slice(0, i), raw]; }
  }));
}

async function login(io: VantageIo, v: { url?: string; key?: string; email?: string }): Promise<number> {
  if (!v.url) throw new VantageUsageError('login needs --url');
  let key = v.key;
  if (!key && v.email) {
    const password = io.env.VANTAGE_PASSWORD ?? (await io.readStdin()).replace(/\r?\n$/, '');
    const anon = createApiClient({ base_url: v.url, token: '', fetch: io.fetch });
    const session = await anon.post<{ access_token: string }>('/v1/auth/login', { email: v.email, password });
    const created = await createApiClient({ base_url: v.url, token: session.access_token, fetch: io.fetch }).post<{ key: string }>('/v1/account/api-keys', { name: 'vantage CLI' });
    key = created.key;
  }
  if (!key) throw new VantageUsageError('login needs --key, or --email with the password on stdin or in VANTAGE_PASSWORD');
  await createApiClient({ base_url: v.url, token: key, fetch: io.fetch }).get('/v1/account/profile');
  const file = await saveCredentials(io.env, { url: v.url, key });
  io.out(`logged in to ${v.url}; credentials stored in ${file}`);
  return EXIT.ok;
}

/**
 * Run `vantage` with `argv` (without node and script). Every error becomes a message on stderr
 * and an exit status (VANTAGE_USAGE's list); nothing throws.
 */
export async function runVantage(argv: string[], io: VantageIo): Promise<number> {
  try {
    const { values: v, positionals } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
    const [command, ...rest] = positionals;
    if (v.help || !command || command === 'help') { io.out(VANTAGE_USAGE); return command || v.help ? EXIT.ok : EXIT.usage; }
    const api = () => clientFor(io, v);
    switch (command) {
      case 'login': return await login(io, v);
      case 'logout': await forgetCredentials(io.env); io.out('logged out'); return EXIT.ok;
      case 'schema': return schemaCommand(io);
      case 'plan':
      case 'apply':
        if (!rest.length) throw new VantageUsageError(`${command} needs at least one FILE`);
        return await (command === 'plan' ? planCommand : applyCommand)(io, await api(), rest, { prune: v.prune, json: v.json });
      case 'export': return await exportCommand(io, await api(), { json: v.json });
      case 'probe':
        if (rest.length !== 2) throw new VantageUsageError('probe needs TYPE and TARGET');
        return await probeCommand(io, await api(), rest[0]!, rest[1]!, { nodes: positiveInt('nodes', v.nodes, 3, 1000), countries: v.country ?? [], params: params(v.param), json: v.json });
      case 'monitors': return await monitorsCommand(io, await api(), rest[0], rest[1], { json: v.json });
      case 'events':
        if (rest[0] !== 'tail') throw new VantageUsageError('events: the command is `events tail`');
        return await eventsTailCommand(io, await api(), { json: v.json, once: v.once, interval_s: positiveInt('interval-s', v['interval-s'], 5, 3600) });
      default: throw new VantageUsageError(`unknown command "${command}"`);
    }
  } catch (err) {
    if (err instanceof VantageUsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      io.err(`vantage: ${(err as Error).message}\n\n${VANTAGE_USAGE}`);
      return EXIT.usage;
    }
    if (err instanceof ApiCallError) io.err(`vantage: ${err.code}: ${err.message}`);
    else io.err(`vantage: ${(err as Error).message}`);
    return EXIT.error;
  }
}
