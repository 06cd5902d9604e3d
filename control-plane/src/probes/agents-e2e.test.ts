import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { SMTPServer } from 'smtp-server';
import { diagnoseReportSchema, probeTaskResultSchema } from '@vantage/shared-protocol';
import { startNtpServer } from '@vantage/node-agent/test-support/ntp-server';
import { makeTestPki } from '@vantage/node-agent/test-support/certs';
import { waitFor } from '../hub/test-harness.js';
import { call, testApp } from '../test-support/app.js';
import { startRealAgents } from './real-agents.js';

/*
 * smtp, ntp, headers and a diagnose through the public API, run by two real enrolled agents (the
 * node-agent code and its probes) against real servers on loopback: smtp-server offering STARTTLS
 * with a test certificate, the repository's NTP responder, and an HTTP server. Each probe is
 * polled at GET /v1/probe/tasks/{task_id} (and the diagnose at GET /v1/diagnose/{id}) until it
 * ends; the per-node results are what the agents measured.
 */

const LOOPBACK = ['127.0.0.0/8'];

const { app, sql, url } = await testApp(t, { config: { probe_allow_cidrs: LOOPBACK } });

const web: Server = createServer((req, res) => {
  res.setHeader('x-frame-options', 'DENY');
  res.setHeader('x-content-type-options', 'nosniff');
  res.end(`hello ${req.url}`);
});
await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
t.teardown(() => new Promise<void>((resolve) => web.close(() => resolve())));
const web_port = (web.address() as AddressInfo).port;

const pki = await makeTestPki();
const rcpts: string[] = [];
const smtp = new SMTPServer({
  key: pki.leaf.key, cert: pki.leaf.cert, authOptional: true, disabledCommands: ['AUTH'], logger: false, banner: 'vantage test relay',
  onRcptTo(address, _session, callback) {
    rcpts.push(address.address);
    callback(address.address.startsWith('nobody@') ? Object.assign(new Error('no such user'), { responseCode: 550 }) : undefined);
  },
});
await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
t.teardown(() => new Promise<void>((resolve) => smtp.close(() => resolve())));
const smtp_port = (smtp.server.address() as AddressInfo).port;

const ntp = await startNtpServer({ offset_ms: 250 });
t.teardown(() => ntp.close());

const { capabilities: caps } = await startRealAgents(t, sql, url, { countries: ['DE', 'FR'], allow_cidrs: LOOPBACK });

/** POST a probe on both nodes and poll its group until it is no longer running (generous bound: the machine is busy). */
async function probe(type: string, body: Record<string, unknown>) {
  const created = await call(app, 'POST', `/v1/probe/${type}`, { body: { ...body, nodes: { count: 2 } } });
  if (created.status !== 202) throw new Error(`${type}: ${created.status} ${JSON.stringify(created.body)}`);
  let result: any;
  await waitFor(async () => {
    result = (await call(app, 'GET', `/v1/probe/tasks/${created.body.data.task_id}`)).body.data;
    return result.status !== 'running' && result.status !== 'queued';
  }, 120_000);
  return result;
}

t.test('smtp: greeting, EHLO, STARTTLS negotiated and the envelope, from both agents', async (t) => {
  const r = await probe('smtp', { target: `127.0.0.1:${smtp_port}`, params: { mail_from: 'probe@example.com', rcpt_to: 'postmaster@example.com' } });
  t.ok(probeTaskResultSchema.safeParse(r).success, 'matches probeTaskResultSchema');
  t.equal(r.status, 'completed');
  t.equal(r.node_results.length, 2);
  for (const n of r.node_results) {
    t.match(n, { success: true, error: null, port: smtp_port, starttls_offered: true, starttls_negotiated: true }, JSON.stringify(n));
    t.match(n, { banner: { code: 220, text: /vantage test relay/ }, tls_mode: 'starttls', mail_from: { code: 250 }, rcpt_to: { code: 250 } });
    t.ok(n.ehlo_extensions.includes('PIPELINING'), 'the EHLO keywords after STARTTLS');
    t.match(n.tls, { version: /^TLSv1\.[23]$/, authorized: false }, 'the test CA is not trusted: reported, not a failure');
    t.match(n.certificate, { subject: 'localhost', issuer: 'Vantage Test CA' });
    t.type(n.latency_ms, 'number');
  }
  t.equal(rcpts.filter((a) => a === 'postmaster@example.com').length, 2, 'each agent sent RCPT TO to the real server');

  const refused = await probe('smtp', { target: `127.0.0.1:${smtp_port}`, params: { mail_from: 'probe@example.com', rcpt_to: 'nobody@example.com', starttls: false } });
  for (const n of refused.node_results) t.match(n, { success: true, starttls_negotiated: false, tls: null, rcpt_to: { code: 550 } }, 'a refused RCPT is reported, not a failure');
});

t.test('ntp: the offset of the responder measured by both agents', async (t) => {
  const before = ntp.requests;
  const r = await probe('ntp', { target: `127.0.0.1:${ntp.port}`, params: { count: 2, interval_ms: 100 } });
  t.ok(probeTaskResultSchema.safeParse(r).success, 'matches probeTaskResultSchema');
  t.equal(r.status, 'completed');
  t.equal(r.node_results.length, 2);
  for (const n of r.node_results) {
    t.equal(n.success, true, JSON.stringify(n));
    t.equal(n.stratum, 2);
    // the responder's clock is 250 ms ahead of this process (same host): allow for scheduling
    t.ok(Math.abs(n.offset_ms - 250) < 200, `offset ${n.offset_ms} ms near 250`);
  }
  t.ok(ntp.requests - before >= 4, 'the responder saw the requests of both agents');
});

t.test('headers: the security headers of the HTTP server and the insecure reasons', async (t) => {
  const r = await probe('headers', { target: `http://127.0.0.1:${web_port}/page` });
  t.ok(probeTaskResultSchema.safeParse(r).success, 'matches probeTaskResultSchema');
  t.equal(r.status, 'completed');
  for (const n of r.node_results) {
    t.equal(n.success, true, JSON.stringify(n));
    t.match(n, { final_url: `http://127.0.0.1:${web_port}/page`, security: { x_frame_options: 'DENY', x_content_type_options: 'nosniff' } });
    t.match(n.analysis, { insecure: true });
    t.ok(n.analysis.reasons.includes('no_hsts') || n.analysis.reasons.includes('no_https_redirect'), JSON.stringify(n.analysis));
  }
});

t.test('a diagnose of the HTTP server: each scope run by the agents and scored', async (t) => {
  const scope = caps.includes('ping') ? ['http', 'ping', 'ssl', 'security_headers'] : ['http', 'ssl', 'security_headers'];
  const created = await call(app, 'POST', '/v1/diagnose', { body: { target: `http://127.0.0.1:${web_port}/`, scope, nodes: { count: 2 } } });
  t.equal(created.status, 202, JSON.stringify(created.body.error ?? ''));
  let report: any;
  await waitFor(async () => {
    report = (await call(app, 'GET', `/v1/diagnose/${created.body.data.id}`)).body.data;
    return report.status !== 'running';
  }, 120_000);
  t.ok(diagnoseReportSchema.safeParse(report).success, 'matches diagnoseReportSchema');
  t.equal(report.status, 'completed');
  t.same(Object.keys(report.sections), scope);
  t.match(report.sections.http, { status: 'completed', score: 100 });
  t.equal(report.sections.http.task_ids.length, 2, 'one task per node');
  if (scope.includes('ping')) t.match(report.sections.ping, { status: 'completed', score: 100 });
  t.match(report.sections.ssl, { status: 'failed', score: 0 }, 'the https form of a plain-HTTP server does not answer TLS');
  t.match(report.sections.security_headers, { status: 'completed' });
  t.type(report.overall_score, 'number');
});
