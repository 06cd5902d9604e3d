/**
 * Where a database URL points, as `postgres` (porsager/postgres) options.
 *
 * libpq, and so psql and most Postgres documentation, accepts two ways of naming a Unix-domain
 * socket directory in a connection URI (PostgreSQL manual, "Connection Strings", 34.1.1.2): a
 * `host` query parameter (`postgresql:///vantage?host=/var/run/postgresql`) or a percent-encoded
 * host (`postgresql://%2Fvar%2Frun%2Fpostgresql/vantage`). `postgres` takes neither: it sends every
 * query parameter it does not know to the server as a setting (`FATAL 42704 unrecognized
 * configuration parameter "host"`) and keeps the encoded host as a host name. It does connect to a
 * socket when its `host` option contains a '/' (path `<host>/.s.PGSQL.<port>`), so this reads the
 * libpq forms into that option.
 */
export interface DatabaseTarget {
  /** The URL for `postgres`, without the `host` and `port` query parameters taken from it. */
  url: string;
  /** A socket directory (starts with '/') or a host name, when the URL named one the libpq way. */
  host?: string;
  /** The port from a `port` query parameter (libpq), when given. */
  port?: number;
}

/** scheme://, authority (user info and hosts), path, query, fragment (RFC 3986 section 3). */
const URI = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)([^?#]*)(\?[^#]*)?(#.*)?$/i;

/**
 * Read `url`'s libpq-style host and port ({@link DatabaseTarget}).
 * - `?host=` and `?port=` are removed from the URL and returned (libpq: they override the URI's
 *   host and port);
 * - a percent-encoded host that decodes to a path starting with '/' is returned decoded;
 * - when a host is returned, the URL's own host becomes `localhost` (kept for `postgres`, which
 *   cannot read `user@/db`, and which the option overrides);
 * - anything else (a plain host name, several hosts, a string that is not a URI) is returned as it is.
 * @throws Error when `?port=` is not a port number (1-65535)
 */
export function databaseTarget(url: string): DatabaseTarget {
  const m = URI.exec(url);
  if (m === null) return { url };
  const [, scheme, authority, path, query = '', fragment = ''] = m as unknown as [string, string, string, string, string | undefined, string | undefined];
  const at = authority.lastIndexOf('@');
  const userinfo = authority.slice(0, at + 1);
  const hostport = authority.slice(at + 1);
  if (hostport.includes(',')) return { url };
  // A host (an IPv6 literal in brackets, or anything without ':') and its optional `:port`.
  const hp = /^(\[[^\]]*\]|[^:]*)(:\d*)?$/.exec(hostport);
  if (hp === null) return { url };
  const hostname = hp[1]!;
  const portpart = hp[2] ?? '';
  const target: DatabaseTarget = { url };
  const decoded = decodeHost(hostname);
  if (decoded?.startsWith('/')) target.host = decoded;
  const params = new URLSearchParams(query.slice(1));
  const host = params.get('host');
  const port = params.get('port');
  if (host !== null && host !== '') target.host = host;
  if (port !== null) {
    const n = Number(port);
    if (!/^\d+$/.test(port) || n < 1 || n > 65_535) throw new Error(`database URL: port=${port} is not a port number (1-65535)`);
    target.port = n;
  }
  if (target.host === undefined && target.port === undefined) return target;
  params.delete('host');
  params.delete('port');
  const rest = params.toString();
  const authorityHost = target.host === undefined ? hostname : 'localhost';
  target.url = `${scheme}${userinfo}${authorityHost}${portpart}${path}${rest === '' ? '' : `?${rest}`}${fragment}`;
  return target;
}

function decodeHost(hostname: string): string | undefined {
  try {
    return decodeURIComponent(hostname);
  } catch {
    return undefined;
  }
}
