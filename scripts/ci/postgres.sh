# Sourced by .ci/run: provides a PostgreSQL server for the second test pass and exports
# TEST_PG_URL pointing at a fresh database. A server already answering on 127.0.0.1:5432 with
# trust auth (the development machines) is used as it is; otherwise PostgreSQL is installed
# from Debian's packages and a throw-away cluster is started on 127.0.0.1. pg_cleanup undoes
# whatever this started.

pg_answers() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# The first port from 54329 on that can be listened on, for a cluster of our own beside a server on
# 5432 that cannot be used. Binding tells more than connecting: a port can be taken without a
# listener that answers.
pg_free_port() {
  "$ANVIL_NODE" -e '
    const net = require("node:net");
    const attempt = (port) => {
      if (port > 54399) process.exit(1);
      const server = net.createServer();
      server.once("error", () => attempt(port + 1));
      server.listen(port, "127.0.0.1", () => server.close(() => console.log(port)));
    };
    attempt(54329);'
}

PG_STARTED_DIR=""
PG_DATABASE=""
PG_ADMIN_URL=""

pg_cleanup() {
  if [ -n "$PG_DATABASE" ] && [ -n "$PG_ADMIN_URL" ]; then
    "$ANVIL_NODE" scripts/ci/pg-admin.ts drop "$PG_ADMIN_URL" "$PG_DATABASE" || true
  fi
  if [ -n "$PG_STARTED_DIR" ]; then
    su postgres -s /bin/sh -c "'$PG_BIN/pg_ctl' -D '$PG_STARTED_DIR/data' -m fast -w stop" >/dev/null || true
    rm -rf "$PG_STARTED_DIR"
  fi
}

pg_start_own_cluster() {
  if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
    echo "ci: installing PostgreSQL from Debian's packages"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
  fi
  PG_BIN=$(dirname "$(ls -d /usr/lib/postgresql/*/bin/initdb | sort -V | tail -n 1)")
  local port=5432
  if pg_answers 5432; then
    port=$(pg_free_port) || {
      echo "ci: no free port for PostgreSQL in 54329-54399" >&2
      exit 1
    }
  fi
  PG_STARTED_DIR=$(mktemp -d /tmp/anvil-ci-pg.XXXXXX)
  chown postgres "$PG_STARTED_DIR"
  su postgres -s /bin/sh -c "'$PG_BIN/initdb' -D '$PG_STARTED_DIR/data' -A trust -U postgres >/dev/null"
  su postgres -s /bin/sh -c "'$PG_BIN/pg_ctl' -D '$PG_STARTED_DIR/data' -w -l '$PG_STARTED_DIR/log' -o \"-c listen_addresses=127.0.0.1 -p $port -k '$PG_STARTED_DIR'\" start >/dev/null"
  PG_ADMIN_URL="postgres://postgres@127.0.0.1:$port/postgres"
  echo "ci: started a PostgreSQL cluster on 127.0.0.1:$port"
}

pg_prepare() {
  if pg_answers 5432 && "$ANVIL_NODE" -e '
      const pg = require("pg");
      const c = new pg.Client("postgres://postgres@127.0.0.1:5432/postgres");
      c.connect().then(() => c.end()).catch(() => process.exit(1));' 2>/dev/null; then
    PG_ADMIN_URL="postgres://postgres@127.0.0.1:5432/postgres"
    echo "ci: using the PostgreSQL server on 127.0.0.1:5432"
  else
    pg_start_own_cluster
  fi
  PG_DATABASE="anvil_ci_$(date +%s)_$$"
  "$ANVIL_NODE" scripts/ci/pg-admin.ts create "$PG_ADMIN_URL" "$PG_DATABASE"
  export TEST_PG_URL="${PG_ADMIN_URL%/*}/$PG_DATABASE"
}
