# Sourced: start_cluster starts a throwaway PostgreSQL 15 cluster on a free port and sets
# CLUSTER_URL; stop_cluster removes it. PostgreSQL refuses to run as root, so as root the
# cluster belongs to the postgres user.
PGBIN=/usr/lib/postgresql/15/bin

as_pg() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

start_cluster() {
  CLUSTER_DIR=$(mktemp -d /tmp/mn-pg.XXXXXX)
  chmod 755 "$CLUSTER_DIR"
  [ "$(id -u)" = 0 ] && chown postgres:postgres "$CLUSTER_DIR"
  CLUSTER_PORT=$(node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
  as_pg "$PGBIN/initdb" -D "$CLUSTER_DIR/data" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >/dev/null
  as_pg "$PGBIN/pg_ctl" -D "$CLUSTER_DIR/data" -l "$CLUSTER_DIR/log" -w -o "-p $CLUSTER_PORT -k $CLUSTER_DIR -c listen_addresses=127.0.0.1 -c max_connections=200 -c fsync=off" start >/dev/null
  CLUSTER_URL="postgres://postgres@127.0.0.1:$CLUSTER_PORT/postgres"
  echo "PostgreSQL $("$PGBIN/postgres" --version | awk '{print $3}') on port $CLUSTER_PORT"
  export CLUSTER_URL CLUSTER_DIR
}

stop_cluster() {
  [ -n "${CLUSTER_DIR:-}" ] || return 0
  as_pg "$PGBIN/pg_ctl" -D "$CLUSTER_DIR/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$CLUSTER_DIR"
}
