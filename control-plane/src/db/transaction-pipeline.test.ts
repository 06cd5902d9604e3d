import t from 'tap';
import { testDatabase } from '../test-support/db.js';
import { connect, MAX_PIPELINE, type Sql } from './sql.js';

// The pool pipelines queries onto a busy connection until `MAX_PIPELINE` of them wait behind the
// running one; the query that fills the pipeline marks the connection full. Unpatched, `postgres`
// 3.4.9 skipped sql.begin()'s reservation hook exactly there: BEGIN reached the server, the
// connection went back to the pool, and other callers' statements ran inside the open transaction
// (idle in transaction, never committed). These tests put BEGIN at that boundary on purpose.

interface Row { note: string }

/** A one-connection pool whose connection is open and idle, and the backend pid behind it. */
async function onePool(t: { teardown(fn: () => unknown): void }, url: string): Promise<{ sql: Sql; pid: number }> {
  const sql = connect(url, 1);
  t.teardown(() => sql.end({ timeout: 5 }));
  const [row] = await sql<{ pid: number }[]>`SELECT pg_backend_pid() AS pid`;
  return { sql, pid: row!.pid };
}

/**
 * Start `count` queries without waiting. The pool takes them (and a BEGIN or query started right
 * after) in one run of microtasks, before any reply can be read, handing them to its open
 * connections in turn; the first one on each connection sleeps 0.2 s all the same, so the
 * pipeline stays full while the test looks. None has parameters: a query with parameters is
 * described first, which marks its connection full by itself.
 */
function fillPipeline(sql: Sql, count: number, connections = 1): Promise<unknown> {
  const slow = Array.from({ length: connections }, () => sql`SELECT pg_sleep(0.2)`.execute());
  const quick = Array.from({ length: count - connections }, () => sql`SELECT 1`.execute());
  return Promise.all([...slow, ...quick]);
}

/** Backends of the observer's database other than its own that sit in an open transaction. */
async function idleInTransaction(observer: Sql): Promise<number> {
  const [row] = await observer<{ n: number }[]>`
    SELECT count(*)::int AS n FROM pg_stat_activity
    WHERE datname = current_database() AND pid <> pg_backend_pid() AND state = 'idle in transaction'`;
  return row!.n;
}

t.test('BEGIN that fills the pipeline reserves its connection: other statements wait and commit on their own', async (t) => {
  const { url, sql: observer } = await testDatabase(t);
  await observer`CREATE TABLE pipeline_probe (note text NOT NULL)`;
  const { sql, pid } = await onePool(t, url);

  // One running query plus MAX_PIPELINE waiting ones fill the pipeline: BEGIN is the last of them.
  const fillers = fillPipeline(sql, MAX_PIPELINE);
  const transaction = sql.begin(async (tx) => {
    const [row] = await tx<{ txid: string }[]>`SELECT txid_current()::text AS txid`;
    await tx`INSERT INTO pipeline_probe (note) VALUES ('in transaction')`;
    return row!.txid;
  });
  const unrelated = sql<{ txid: string }[]>`
    INSERT INTO pipeline_probe (note) VALUES ('unrelated') RETURNING txid_current()::text AS txid`.execute();

  await fillers;
  const begun = await transaction.then((txid) => ({ txid }), (err: Error) => ({ err }));
  t.notOk('err' in begun && begun.err, 'sql.begin() ran its callback on the connection it reserved');
  const [outside] = await unrelated;
  t.not(outside!.txid, 'txid' in begun ? begun.txid : undefined, 'the unrelated statement ran in a transaction of its own');

  const committed = await observer<Row[]>`SELECT note FROM pipeline_probe ORDER BY note`;
  t.same(committed.map((r) => r.note), ['in transaction', 'unrelated'], 'both writes are committed and visible to another session');
  const [backend] = await observer<{ state: string }[]>`SELECT state FROM pg_stat_activity WHERE pid = ${pid}`;
  t.equal(backend?.state, 'idle', 'the pooled backend is not left idle in transaction');
});

t.test('pool of two: BEGIN that fills the second connection neither fails nor leaves a transaction open in the pool', async (t) => {
  const { url, sql: observer } = await testDatabase(t);
  await observer`CREATE TABLE pipeline_probe (note text NOT NULL)`;
  const sql = connect(url, 2);
  t.teardown(() => sql.end({ timeout: 5 }));
  await Promise.all([sql`SELECT 1`, sql`SELECT 1`]); // both connections open and idle

  // The connections take queries in turn; the first is full after 1 + MAX_PIPELINE of them, the
  // second then takes its last one: BEGIN. Unpatched, BEGIN ran on an unreserved connection, which
  // `postgres` reports as UNSAFE_TRANSACTION only after the server has opened the transaction.
  const fillers = fillPipeline(sql, 2 * MAX_PIPELINE + 1, 2);
  const transaction = sql.begin((tx) => tx`INSERT INTO pipeline_probe (note) VALUES ('in transaction')`);
  await fillers;
  const begun = await transaction.then(() => null, (err: { code?: string }) => err.code ?? String(err));
  t.equal(begun, null, 'sql.begin() committed (no UNSAFE_TRANSACTION)');
  t.equal(await idleInTransaction(observer), 0, 'no pooled connection is left idle in transaction');

  // Sequential statements alternate between the two idle connections: each must commit on its own.
  for (const note of ['after 1', 'after 2', 'after 3']) await sql`INSERT INTO pipeline_probe (note) VALUES (${note})`;
  const committed = await observer<Row[]>`SELECT note FROM pipeline_probe ORDER BY note`;
  t.same(committed.map((r) => r.note), ['after 1', 'after 2', 'after 3', 'in transaction'], 'every write is committed and visible to another session');
});

t.test('a transaction started when the pipeline has room still keeps other statements out', async (t) => {
  const { url, sql: observer } = await testDatabase(t);
  await observer`CREATE TABLE pipeline_probe (note text NOT NULL)`;
  const { sql } = await onePool(t, url);

  // The same race one query short of the boundary: the path that always worked, kept as the control.
  const fillers = fillPipeline(sql, MAX_PIPELINE - 1);
  const transaction = sql.begin(async (tx) => {
    await tx`INSERT INTO pipeline_probe (note) VALUES ('rolled back')`;
    throw new Error('roll back');
  });
  const unrelated = sql`INSERT INTO pipeline_probe (note) VALUES ('unrelated')`.execute();

  await fillers;
  await t.rejects(transaction, { message: 'roll back' });
  await unrelated;
  const committed = await observer<Row[]>`SELECT note FROM pipeline_probe ORDER BY note`;
  t.same(committed.map((r) => r.note), ['unrelated'], 'the rollback undid only the transaction');
});
