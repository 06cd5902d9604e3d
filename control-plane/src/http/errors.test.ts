import t from 'tap';
import { Writable } from 'node:stream';
import { OpenAPIHono } from '@hono/zod-openapi';
import pino from 'pino';
import postgres from 'postgres';
import type { AppEnv } from '../env.js';
import { ApiError } from '../errors.js';
import { connect } from '../db/sql.js';
import { requestContext } from '../middleware/request-context.js';
import { testDatabase } from '../test-support/db.js';
import { freePort } from '../../../test/faults/ports.js';
import { classifyDbError } from './db-errors.js';
import { DB_RETRY_AFTER_S, onError } from './errors.js';

type Line = { level: number; msg: string; err?: { stack?: string }; code?: string; db_code?: string };

/** An app with the real request context and the one error handler; every log line captured. */
function harness(routes: Record<string, () => Promise<unknown>>) {
  const lines: Line[] = [];
  const sink = new Writable({ write(chunk, _enc, done) { for (const l of String(chunk).split('\n')) if (l) lines.push(JSON.parse(l)); done(); } });
  const app = new OpenAPIHono<AppEnv>();
  app.use('*', requestContext(pino({ level: 'debug' }, sink)));
  for (const [path, fn] of Object.entries(routes)) app.get(path, async (c) => c.json(await fn()));
  app.onError(onError);
  const request = async (path: string) => {
    lines.length = 0;
    const res = await app.request(path);
    return { status: res.status, headers: res.headers, body: await res.json() as any, logs: lines.filter((l) => l.msg !== 'request') };
  };
  return request;
}

const STACK = /\bat [\w.<>]+ \(|\.[jt]s:\d+:\d+|"stack"/;

t.test('the one error handler: database errors, levels, no internals', async (t) => {
  const { sql } = await testDatabase(t);
  const dead = connect(`postgres://postgres@127.0.0.1:${await freePort('127.0.0.1')}/none`, 1);
  t.teardown(() => dead.end({ timeout: 1 }));
  const request = harness({
    '/uuid': () => sql`SELECT ${'not-a-uuid'}::uuid`,
    '/nul': () => sql`SELECT ${'a\u0000b'}::text`,
    '/jsonb': () => sql`SELECT ${'{"a":"\\u0000"}'}::text::jsonb ->> 'a'`,
    '/too-long': () => sql.begin(async (tx) => {
      await tx`CREATE TEMP TABLE short_text (s varchar(3)) ON COMMIT DROP`;
      await tx`INSERT INTO short_text VALUES (${'abcdef'})`;
    }),
    '/int': () => sql`SELECT ${'99999999999'}::int`,
    '/down': () => dead`SELECT 1`,
    '/bug': async () => { throw new Error('boom at a place'); },
    '/offline': async () => { throw new ApiError('NODE_OFFLINE', 'node n_1 is offline'); },
    '/forbidden': async () => { throw new ApiError('FORBIDDEN', 'nope'); },
    '/server': async () => { throw new ApiError('INTERNAL_ERROR', 'deliberate'); },
  });

  for (const path of ['/uuid', '/nul', '/jsonb', '/too-long', '/int']) {
    const r = await request(path);
    t.equal(r.status, 400, `${path}: a value the database refused is the client's 400`);
    t.equal(r.body.error.code, 'VALIDATION_FAILED', path);
    t.notMatch(JSON.stringify(r.body), STACK, `${path}: no stack`);
    t.notMatch(r.body.error.message, /uuid|byte sequence|Unicode|varying|integer/i, `${path}: no database message`);
    t.same(r.logs.map((l) => [l.level, l.msg]), [[40, 'request refused']], `${path}: one warn line`);
    t.notOk(r.logs[0]?.err, `${path}: logged without a stack`);
  }

  const down = await request('/down');
  t.equal(down.status, 503, 'a database that is away: 503');
  t.equal(down.body.error.code, 'UNAVAILABLE');
  t.equal(down.headers.get('retry-after'), String(DB_RETRY_AFTER_S));
  t.notMatch(JSON.stringify(down.body), /ECONNREFUSED|127\.0\.0\.1|STACK/);
  t.same(down.logs.map((l) => [l.level, l.msg, l.db_code]), [[40, 'request refused', 'ECONNREFUSED']]);

  const offline = await request('/offline');
  t.equal(offline.status, 503);
  t.same(offline.logs.map((l) => [l.level, l.code]), [[40, 'NODE_OFFLINE']], 'NODE_OFFLINE is a warn, not an error');
  t.notOk(offline.logs[0]?.err, 'and carries no stack');

  const forbidden = await request('/forbidden');
  t.equal(forbidden.status, 403);
  t.same(forbidden.logs.map((l) => [l.level, l.code]), [[30, 'FORBIDDEN']], '4xx refusals at info');
  t.notOk(forbidden.logs[0]?.err);

  const bug = await request('/bug');
  t.equal(bug.status, 500);
  t.equal(bug.body.error.code, 'INTERNAL_ERROR');
  t.notMatch(JSON.stringify(bug.body), /boom|STACK/);
  t.equal(bug.logs.length, 1);
  t.equal(bug.logs[0]!.level, 50, 'an unexpected exception is an error');
  t.match(bug.logs[0]!.err?.stack, /boom at a place/, 'with its stack');

  const server = await request('/server');
  t.equal(server.status, 500);
  t.equal(server.logs[0]!.level, 50, 'a deliberate 500 is an error too');
});

t.test('classifyDbError', async (t) => {
  const pgError = (code: string) => Object.assign(new Error(code), { code });
  const cases: Array<[string, unknown, string | null]> = [
    ['57P01 admin_shutdown', pgError('57P01'), 'unavailable'],
    ['57P02 crash_shutdown', pgError('57P02'), 'unavailable'],
    ['57P03 cannot_connect_now', pgError('57P03'), 'unavailable'],
    ['53300 too_many_connections', pgError('53300'), 'unavailable'],
    ['08006 connection_failure', pgError('08006'), 'unavailable'],
    ['CONNECTION_CLOSED', pgError('CONNECTION_CLOSED'), 'unavailable'],
    ['CONNECTION_ENDED', pgError('CONNECTION_ENDED'), 'unavailable'],
    ['CONNECT_TIMEOUT', pgError('CONNECT_TIMEOUT'), 'unavailable'],
    ['ECONNRESET', pgError('ECONNRESET'), 'unavailable'],
    ['AggregateError of ECONNREFUSED (happy eyeballs)', new AggregateError([pgError('ECONNREFUSED')]), 'unavailable'],
    ['cause chain', new Error('wrapped', { cause: pgError('57P01') }), 'unavailable'],
    ['22P02', pgError('22P02'), 'bad_input'],
    ['22021', pgError('22021'), 'bad_input'],
    ['22P05', pgError('22P05'), 'bad_input'],
    ['23505 unique_violation is not guessed', pgError('23505'), null],
    ['42P01 undefined_table is a bug', pgError('42P01'), null],
    ['a plain error', new Error('x'), null],
    ['not an error', 'string', null],
  ];
  for (const [name, err, kind] of cases) t.equal(classifyDbError(err)?.kind ?? null, kind, name);
  t.ok(postgres.PostgresError, 'PostgresError carries the SQLSTATE in code');
});
