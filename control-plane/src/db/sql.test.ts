import pino from 'pino';
import t from 'tap';
import { TEST_DATABASE_URL } from '../test-support/db.js';
import { connect, genericPlanClient, GENERIC_POOL_SIZE, serverWarningCount } from './sql.js';

interface LogLine { level: number; msg: string; module?: string; notice?: { severity?: string; code?: string; message?: string } }

/** A client of the test server whose notice logger writes into `lines` (pino levels: 20 debug, 50 error). */
function capturedClient(t: { teardown(fn: () => unknown): void }): { sql: ReturnType<typeof connect>; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const log = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) });
  const sql = connect(TEST_DATABASE_URL, 1, log.child({ module: 'db' }));
  t.teardown(() => sql.end({ timeout: 5 }));
  return { sql, lines };
}

t.test('a BEGIN inside an open transaction (25001) is logged at error level and counted', async (t) => {
  const { sql, lines } = capturedClient(t);
  const before = serverWarningCount();
  // The server only warns and carries on, so nothing fails: the log line and the count are all
  // that shows a connection was handed a BEGIN while a transaction was open on it.
  await sql.begin((tx) => tx.unsafe('BEGIN'));
  const warnings = lines.filter((l) => l.notice?.code === '25001');
  t.equal(warnings.length, 1, 'one line for the one warning');
  t.match(warnings[0], { level: 50, module: 'db', msg: /25001.*already a transaction in progress/, notice: { severity: 'WARNING' } });
  t.equal(serverWarningCount() - before, 1, 'the process-wide warning count went up by one');
});

t.test('plain notices (IF EXISTS skips) stay at debug level and are not counted', async (t) => {
  const { sql, lines } = capturedClient(t);
  const before = serverWarningCount();
  await sql`DROP TABLE IF EXISTS pg_temp.vantage_no_such_table`;
  const notices = lines.filter((l) => l.notice);
  t.equal(notices.length, 1);
  t.match(notices[0], { level: 20, notice: { severity: 'NOTICE', code: '00000' } });
  t.equal(serverWarningCount(), before, 'a notice is not a warning');
});

t.test('the pick client runs generic plans only; the main client leaves the choice to Postgres', async (t) => {
  const log = pino({ level: 'silent' });
  const pick = genericPlanClient(TEST_DATABASE_URL, log);
  const main = connect(TEST_DATABASE_URL, 1, log);
  t.teardown(() => Promise.all([pick.end({ timeout: 5 }), main.end({ timeout: 5 })]));
  // Every connection of the pool: as many concurrent reads as it has connections.
  const modes = await Promise.all(Array.from({ length: GENERIC_POOL_SIZE }, () => pick<{ mode: string }[]>`SELECT current_setting('plan_cache_mode') AS mode, pg_sleep(0.05)`));
  t.same(modes.map(([r]) => r!.mode), Array(GENERIC_POOL_SIZE).fill('force_generic_plan'));
  const [other] = await main<{ mode: string }[]>`SELECT current_setting('plan_cache_mode') AS mode`;
  t.equal(other!.mode, 'auto');
});

t.test('every client runs with JIT compilation off, whatever the server\'s default', async (t) => {
  const log = pino({ level: 'silent' });
  const pick = genericPlanClient(TEST_DATABASE_URL, log);
  const main = connect(TEST_DATABASE_URL, 1, log);
  t.teardown(() => Promise.all([pick.end({ timeout: 5 }), main.end({ timeout: 5 })]));
  for (const [name, sql] of [['main', main], ['pick', pick]] as const) {
    const [row] = await sql<{ jit: string }[]>`SELECT current_setting('jit') AS jit`;
    t.equal(row!.jit, 'off', `${name} client`);
  }
});
