#!/usr/bin/env bash
# Make this machine able to run the whole test suite: Debian packages (build tools for the native
# addons, network tools used as test peers and for the namespace test network, Postgres,
# shellcheck for the installer) and a Postgres server on 127.0.0.1:5432 with a database `test`.
# Idempotent and quick when everything is present. Needs root for anything missing; without root it
# only reports what is missing. Used by .ci/run and by `pnpm test` (test/run-suite.mjs).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
export DEBIAN_FRONTEND=noninteractive

APT_PACKAGES=(g++ make python3 iproute2 iputils-ping traceroute mtr-tiny ntpsec-ntpdate bind9-dnsutils pebble bind9 bind9-utils curl shellcheck postgresql postgresql-client ca-certificates chromium prometheus poppler-utils)
missing=()
for p in "${APT_PACKAGES[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "test environment: missing Debian packages (run as root, or: sudo apt-get install ${missing[*]}): ${missing[*]}" >&2
    exit 1
  fi
  echo "test environment: installing ${missing[*]}"
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
bash "$here/postgres.sh"
