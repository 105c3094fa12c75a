#!/usr/bin/env bash
# Installs what the PostgreSQL half of CI needs on a fresh Debian machine: PostgreSQL 15,
# pgvector 0.8 built from Debian's source package (Debian ships no pgvector for 15), and PgBouncer,
# which e2e/pooler.api.spec.ts starts itself, on a port of its own, in front of the test cluster
# (the service the package may start is not used). Chromium
# and openssl come from scripts/ensure-test-tools.mjs, the first step of `npm test` and .ci/run.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"

need_pkgs=()
for p in postgresql-15 postgresql-server-dev-15 build-essential pgbouncer; do
  dpkg -s "$p" >/dev/null 2>&1 || need_pkgs+=("$p")
done
if [ ${#need_pkgs[@]} -gt 0 ]; then
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq "${need_pkgs[@]}" >/dev/null
fi

PGBIN=/usr/lib/postgresql/15/bin
if [ ! -f "$($PGBIN/pg_config --sharedir)/extension/vector.control" ]; then
  work=$(mktemp -d)
  mkdir -p "$work/lists/partial"
  echo "deb-src http://deb.debian.org/debian trixie main" > "$work/sources.list"
  apt_opts=(-oDir::Etc::SourceList="$work/sources.list" -oDir::Etc::SourceParts=/dev/null -oDir::State::Lists="$work/lists")
  $SUDO apt-get "${apt_opts[@]}" update -qq
  (cd "$work" && apt-get "${apt_opts[@]}" source -qq --download-only pgvector >/dev/null && dpkg-source -x --no-check pgvector_*.dsc src >/dev/null)
  make -s -C "$work/src" PG_CONFIG=$PGBIN/pg_config >/dev/null
  $SUDO make -s -C "$work/src" PG_CONFIG=$PGBIN/pg_config install >/dev/null
  rm -rf "$work"
fi
echo "deps: postgresql $($PGBIN/postgres --version | awk '{print $3}'), pgvector $(grep default_version "$($PGBIN/pg_config --sharedir)/extension/vector.control" | cut -d"'" -f2), $(/usr/sbin/pgbouncer --version | head -1)"
