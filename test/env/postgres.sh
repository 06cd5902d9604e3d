#!/usr/bin/env bash
# Make sure a Postgres server answers on 127.0.0.1:5432 with trust auth for user postgres and a
# database `test` (what the tests expect). Starts Debian's cluster when none answers; idempotent.
set -euo pipefail
[ "$(id -u)" = 0 ] || pg_isready -q -h 127.0.0.1 -p 5432 || { echo "no Postgres on 127.0.0.1:5432 and not root: cannot start one" >&2; exit 1; }
ready() { pg_isready -q -h 127.0.0.1 -p 5432; }
if ! ready; then
  ver=$(ls /etc/postgresql 2>/dev/null | sort -V | tail -n 1)
  if [ -z "$ver" ]; then
    ver=$(ls /usr/lib/postgresql | sort -V | tail -n 1)
    pg_createcluster "$ver" main >/dev/null
  fi
  hba="/etc/postgresql/$ver/main/pg_hba.conf"
  if ! grep -q '^host all all 127.0.0.1/32 trust' "$hba"; then
    # Local test server only: trust loopback connections, as the development machines do.
    sed -i '/^host/d' "$hba"
    printf 'host all all 127.0.0.1/32 trust\nhost all all ::1/128 trust\n' >> "$hba"
  fi
  pg_ctlcluster --skip-systemctl-redirect "$ver" main start
  for _ in $(seq 1 30); do ready && break; sleep 1; done
fi
ready || { echo "postgres did not start"; exit 1; }
psql -h 127.0.0.1 -U postgres -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname='test'" | grep -q 1 \
  || psql -h 127.0.0.1 -U postgres -d postgres -c 'CREATE DATABASE test' >/dev/null
echo "postgres ready on 127.0.0.1:5432"
