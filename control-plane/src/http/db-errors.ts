/**
 * How a database failure is answered: `unavailable` when the server cannot be reached or is
 * going away (503 UNAVAILABLE with Retry-After), `bad_input` when it refused a value a client sent
 * (400 VALIDATION_FAILED; a backstop, since input is validated before any query), else null (a
 * bug: 500).
 */
export type DbErrorClass = 'unavailable' | 'bad_input';

/** Connection-level failures: Node socket errors and the `postgres` package's own codes. */
const UNREACHABLE = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN',
  'CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED', 'CONNECT_TIMEOUT',
]);

/**
 * SQLSTATEs (Postgres appendix A) of a server that is away or overloaded: class 08 connection
 * exception, class 53 insufficient resources (53300 too_many_connections), 57P01 admin_shutdown,
 * 57P02 crash_shutdown, 57P03 cannot_connect_now (starting up or shutting down) and 57014
 * query_canceled (a statement timeout under load).
 */
const AWAY_STATES = /^(08|53)|^57P0[123]$|^57014$/;

/**
 * SQLSTATEs of class 22 (data exception) that only a client's value can cause: 22P02 invalid text
 * representation (a malformed uuid or number), 22021 character not in repertoire (NUL), 22P05
 * untranslatable character (NUL in jsonb), 22001 string too long, 22003 numeric out of range,
 * 22007/22008 bad or overflowing date-time, 22025/22019 bad LIKE escape, 2201B bad regular
 * expression, 54000 program limit exceeded (a value too large for an index).
 */
const BAD_INPUT_STATES = new Set(['22P02', '22021', '22P05', '22001', '22003', '22007', '22008', '22025', '22019', '2201B', '54000']);

/** The error and its causes (`cause`, AggregateError's `errors`), at most a few levels deep. */
function* chain(err: unknown, depth = 0): Generator<{ code?: unknown }> {
  if (depth > 4 || err === null || typeof err !== 'object') return;
  yield err as { code?: unknown };
  if (err instanceof AggregateError) for (const e of err.errors) yield* chain(e, depth + 1);
  yield* chain((err as { cause?: unknown }).cause, depth + 1);
}

/**
 * Classify an error thrown by a query of the `postgres` package (PostgresError carries the
 * SQLSTATE in `code`; connection failures carry a Node or package code in `code`).
 * @returns the class and the code that decided it, or null for anything else
 */
export function classifyDbError(err: unknown): { kind: DbErrorClass; code: string } | null {
  for (const e of chain(err)) {
    const code = typeof e.code === 'string' ? e.code : undefined;
    if (!code) continue;
    if (UNREACHABLE.has(code) || (/^[0-9A-Z]{5}$/.test(code) && AWAY_STATES.test(code))) return { kind: 'unavailable', code };
    if (BAD_INPUT_STATES.has(code)) return { kind: 'bad_input', code };
  }
  return null;
}
