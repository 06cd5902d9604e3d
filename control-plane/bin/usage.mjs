// Command line of the control-plane launcher (bin/control-plane.mjs): plain JavaScript, so --help
// and --version answer without loading the server, touching the data folder or the database.
import { readFileSync } from 'node:fs';

/** The control plane's version, from control-plane/package.json (the one the API document states). */
export const VERSION = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version;

/** What `--help` prints: what this is, the settings that matter most, where the rest is. */
export const USAGE = `vantage-control-plane ${VERSION}: the Vantage control plane (the /v1 HTTP API and the probe-node hub).

Usage: control-plane.mjs [--help | --version]

Without options it starts the server. It takes no other options: every setting is an
environment variable VANTAGE_<FIELD>, read once at start. The ones that matter most:

  VANTAGE_DATABASE_URL   Postgres URL (also DATABASE_URL). Unset: an embedded single-instance
                         database under VANTAGE_DATA_DIR.
  VANTAGE_DATA_DIR       Folder for the embedded database and the secrets key file (default .data,
                         relative to the current folder).
  VANTAGE_SECRETS_KEY    Key of the secrets stored in the database (32 bytes, base64 or hex). Unset:
                         <data dir>/secrets.key. Every instance on one database needs the same key.
  VANTAGE_HOST           Listening address (default 127.0.0.1; 0.0.0.0 for every interface).
  VANTAGE_PORT           Listening port (default 8080; also PORT).
  VANTAGE_PUBLIC_URL     Base URL clients and nodes reach this instance at (links, the installer).
  VANTAGE_LOG_LEVEL      fatal, error, warn, info (default), debug, trace or silent.
  VANTAGE_REGISTRATION   Who may register: closed (default: only the first account of an empty
                         deployment, then administrators create accounts), invite or open.
  VANTAGE_ADMIN_EMAILS   Accounts (verified e-mail addresses) that administer the deployment.
  VANTAGE_PUBLIC_PROBES  Who may request probes: accounts (default), anonymous or off.

Every setting, with its type, default and meaning: docs/operators/configuration.md.

Options:
  -h, --help       Print this text and exit.
  -V, --version    Print the version and exit.
`;

/**
 * What the launcher is asked to do, from its arguments (`process.argv.slice(2)`).
 * @returns `run` (no arguments), `help`, `version`, or `bad` with the first argument not understood
 */
export function parseArgs(args) {
  if (args.length === 0) return { action: 'run' };
  const [first] = args;
  if (args.length === 1 && (first === '-h' || first === '--help')) return { action: 'help' };
  if (args.length === 1 && (first === '-V' || first === '--version')) return { action: 'version' };
  const bad = args.find((a) => !['-h', '--help', '-V', '--version'].includes(a)) ?? args[1];
  return { action: 'bad', arg: bad };
}
