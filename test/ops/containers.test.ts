import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import t from 'tap';
import { validate, ValidationSeverity, type ValidatorSettings } from 'dockerfile-utils';
import { parse as parseYaml } from 'yaml';

/*
 * The container images (installer/container/): each Dockerfile is linted (dockerfile-utils, the
 * validator of the VS Code Docker extension, with every check an error; hadolint is neither in
 * Debian 12 nor on the npm registry as a binary), its shape checked (multi-stage, the final stage
 * unprivileged, the agent with CAP_NET_RAW only, production started from the build), and the
 * compose file checked against them. The images are built and started only where a Docker daemon
 * answers and the base image is present (no registry is reachable here): otherwise that test
 * says it skipped.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DIR = join(ROOT, 'installer/container');
const DOCKERFILES = ['control-plane.Dockerfile', 'agent.Dockerfile'];
const BASE_IMAGE = 'node:22-bookworm-slim';
const run = promisify(execFile);

const STRICT: ValidatorSettings = {
  deprecatedMaintainer: ValidationSeverity.ERROR, directiveCasing: ValidationSeverity.ERROR, emptyContinuationLine: ValidationSeverity.ERROR,
  instructionCasing: ValidationSeverity.ERROR, instructionCmdMultiple: ValidationSeverity.ERROR, instructionEntrypointMultiple: ValidationSeverity.ERROR,
  instructionHealthcheckMultiple: ValidationSeverity.ERROR, instructionJSONInSingleQuotes: ValidationSeverity.ERROR, instructionWorkdirRelative: ValidationSeverity.ERROR,
};

/** The instructions of a Dockerfile, continuation lines joined, comments and directives dropped, split into stages. */
function stages(text: string): Array<Array<{ op: string; args: string }>> {
  const lines = text.replace(/\\\n/g, ' ').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
  const out: Array<Array<{ op: string; args: string }>> = [];
  for (const line of lines) {
    const [op, ...rest] = line.split(/\s+/);
    const ins = { op: op!.toUpperCase(), args: rest.join(' ') };
    if (ins.op === 'FROM') out.push([]);
    out.at(-1)?.push(ins);
  }
  return out;
}

t.test('the Dockerfiles pass the linter with every check an error', async (t) => {
  for (const name of DOCKERFILES) {
    const problems = validate(readFileSync(join(DIR, name), 'utf8'), STRICT);
    t.same(problems.map((p) => `${p.range.start.line + 1}: ${p.message}`), [], `${name}: no problems`);
  }
  const broken = validate('FROM node\nCMD ["a"]\nCMD ["b"]\nWORKDIR rel\n', STRICT);
  t.ok(broken.length >= 2, 'and the linter does report problems (two CMDs, a relative WORKDIR)');
});

t.test('multi-stage, unprivileged, started from the build', async (t) => {
  for (const name of DOCKERFILES) {
    const s = stages(readFileSync(join(DIR, name), 'utf8'));
    t.ok(s.length >= 2, `${name}: multi-stage (${s.length} stages)`);
    const final = s.at(-1)!;
    const user = final.filter((i) => i.op === 'USER').at(-1)?.args;
    t.ok(user && !/^(root|0)(:|$)/.test(user), `${name}: the final stage runs as ${user}, not root`);
    t.notOk(final.some((i) => i.op === 'RUN' && /\b(pnpm|tsx|npm (ci|install))\b/.test(i.args)), `${name}: the final stage installs and compiles nothing`);
    t.ok(final.some((i) => i.op === 'ENV' && /NODE_ENV=production/.test(i.args)), `${name}: NODE_ENV=production`);
    t.ok(existsSync(join(DIR, `${name}.dockerignore`)), `${name}: has its own .dockerignore`);
    t.match(readFileSync(join(DIR, `${name}.dockerignore`), 'utf8'), /\*\*\/node_modules/, `${name}: the working copy's node_modules stay out`);
  }
  const cp = stages(readFileSync(join(DIR, 'control-plane.Dockerfile'), 'utf8'));
  t.ok(cp[0]!.some((i) => i.op === 'RUN' && /pnpm build/.test(i.args)), 'control plane: built with pnpm build');
  t.match(cp.at(-1)!.find((i) => i.op === 'CMD')?.args, /control-plane\/bin\/control-plane\.mjs/, 'control plane: started by its launcher (the build under NODE_ENV=production)');
  const agent = stages(readFileSync(join(DIR, 'agent.Dockerfile'), 'utf8'));
  const agentFinal = agent.at(-1)!;
  const setcap = agentFinal.filter((i) => i.op === 'RUN').map((i) => i.args).join(' ').match(/setcap (\S+) (\S+)/);
  t.same(setcap?.slice(1), ['cap_net_raw+ep', '/usr/local/bin/node-netraw'], 'agent: one file capability, CAP_NET_RAW, on a copy of node');
  t.match(agentFinal.find((i) => i.op === 'CMD')?.args, /node-netraw.*\/opt\/vantage-agent\/node-agent\.mjs.*run/, 'agent: the bundle run by that copy');
  t.ok(agent[0]!.some((i) => i.op === 'RUN' && /installer\/build-bundle\.ts/.test(i.args)), 'agent: the installer\'s bundle, native addons built in the build stage');
});

t.test('the compose file runs Postgres, the control plane and the agent', async (t) => {
  const compose = parseYaml(readFileSync(join(DIR, 'compose.yaml'), 'utf8')) as {
    services: Record<string, { build?: { context: string; dockerfile: string }; image?: string; cap_drop?: string[]; cap_add?: string[]; environment?: Record<string, string>; depends_on?: unknown; security_opt?: string[] }>;
  };
  t.same(Object.keys(compose.services).sort(), ['agent', 'control-plane', 'postgres']);
  for (const [name, svc] of Object.entries(compose.services)) {
    if (!svc.build) continue;
    const context = join(DIR, svc.build.context);
    t.ok(existsSync(join(context, svc.build.dockerfile)), `${name}: its Dockerfile exists from its context`);
    t.ok(existsSync(join(context, 'pnpm-workspace.yaml')), `${name}: the context is the repository root`);
    t.same(svc.cap_drop, ['ALL'], `${name}: every capability dropped`);
  }
  t.same(compose.services.agent!.cap_add, ['NET_RAW'], 'agent: NET_RAW added back, nothing else');
  t.notOk(compose.services.agent!.security_opt?.some((o) => o.startsWith('no-new-privileges')), 'agent: no-new-privileges off (it would void the file capability)');
  t.equal(compose.services['control-plane']!.cap_add, undefined, 'control plane: no capability at all');
  t.match(compose.services['control-plane']!.environment?.VANTAGE_DATABASE_URL, /@postgres:5432\//, 'the control plane uses the postgres service');
  t.match(compose.services['control-plane']!.environment?.VANTAGE_SECRETS_KEY, /:\?/, 'the secrets key is required, not generated inside the container');
});

async function dockerUsable(): Promise<string | false> {
  try {
    await run('docker', ['info'], { timeout: 20_000 });
  } catch {
    return 'no Docker daemon answers here (docker info failed)';
  }
  try {
    await run('docker', ['image', 'inspect', BASE_IMAGE], { timeout: 20_000 });
  } catch {
    return `the base image ${BASE_IMAGE} is not present and no registry is reachable`;
  }
  return false;
}

const noDocker = await dockerUsable();
if (noDocker) console.log(`# image build skipped: ${noDocker}`);
t.test('the images build and start', { skip: noDocker ? `image build skipped: ${noDocker}` : false }, async (t) => {
  for (const [file, tag] of [['control-plane.Dockerfile', 'vantage-control-plane:test'], ['agent.Dockerfile', 'vantage-agent:test']] as const) {
    await run('docker', ['build', '-f', join(DIR, file), '-t', tag, ROOT], { timeout: 1_800_000, maxBuffer: 64 << 20 });
    t.pass(`${file} built as ${tag}`);
  }
  const cp = await run('docker', ['run', '--rm', '--cap-drop', 'ALL', 'vantage-control-plane:test', 'node', 'control-plane/bin/control-plane.mjs', '--version']);
  t.match(cp.stdout, /^\d+\.\d+\.\d+/);
  const agent = await run('docker', ['run', '--rm', '--cap-drop', 'ALL', '--cap-add', 'NET_RAW', 'vantage-agent:test', '/usr/local/bin/node-netraw', '/opt/vantage-agent/node-agent.mjs', 'version']);
  t.match(agent.stdout, /^node-agent \d/);
});
