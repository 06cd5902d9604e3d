/*
 * Test helper: run one check with a real probe and print its outcome as JSON on stdout. Used to
 * probe from inside a test network namespace (`ip netns exec <ns> node --import tsx probe-cli.ts
 * '{"type":"tcp","target":"198.18.77.2:80","params":{…},"policy":{…}}'`).
 */
import pino from 'pino';
import { PROBE_PARAMS } from '@vantage/shared-protocol';
import { httpProbe } from '../http.js';
import { tcpProbe } from '../tcp.js';
import type { TargetPolicy } from '../target-policy.js';

const check = JSON.parse(process.argv[2] ?? '{}') as { type: 'tcp' | 'http'; target: string; params: unknown; policy: TargetPolicy };
const ctx = { signal: new AbortController().signal, policy: check.policy, log: pino({ level: 'silent' }) };
const outcome = check.type === 'tcp'
  ? await tcpProbe.run(check.target, PROBE_PARAMS.tcp.parse(check.params), ctx)
  : await httpProbe.run(check.target, PROBE_PARAMS.http.parse(check.params), ctx);
process.stdout.write(`${JSON.stringify(outcome)}\n`);
