#!/usr/bin/env bash
# PostgreSQL for the `postgres` backend tests (docs/store.md, "Testing"). Idempotent: installs
# Debian's `postgresql` when it is missing, starts the cluster when it is down, and makes the
# role and database the tests use. The tests read FLOW_TEST_POSTGRES_URL, whose default is the
# URL made here: postgres://flow:flow@127.0.0.1:5432/flow_test
#
# Every test store is a fresh schema in that database (node/testing/backends.ts), so the
# database is made once and never dropped. Commits there skip the WAL flush
# (synchronous_commit = off, set on this database only): the tests do not need durability
# across an OS crash, and a flush per transaction would dominate their run time.
set -euo pipefail

ROLE="${FLOW_TEST_POSTGRES_ROLE:-flow}"
PASSWORD="${FLOW_TEST_POSTGRES_PASSWORD:-flow}"
DATABASE="${FLOW_TEST_POSTGRES_DB:-flow_test}"

as_postgres() {
  if [ "$(id -un)" = postgres ]; then "$@"; else runuser -u postgres -- "$@"; fi
}

if ! command -v pg_ctlcluster >/dev/null 2>&1 || ! ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1; then
  echo "[postgres] installing Debian's postgresql"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq postgresql >/dev/null
fi

# The newest installed major version and its first cluster (Debian makes `main` on install).
VERSION="$(ls /usr/lib/postgresql | sort -n | tail -1)"
if ! pg_lsclusters -h | awk -v v="$VERSION" '$1 == v { found = 1 } END { exit !found }'; then
  echo "[postgres] creating cluster $VERSION/main"
  pg_createcluster "$VERSION" main >/dev/null
fi
CLUSTER="$(pg_lsclusters -h | awk -v v="$VERSION" '$1 == v { print $2; exit }')"
PORT="$(pg_lsclusters -h | awk -v v="$VERSION" -v c="$CLUSTER" '$1 == v && $2 == c { print $3; exit }')"

if ! pg_lsclusters -h | awk -v v="$VERSION" -v c="$CLUSTER" '$1 == v && $2 == c && $4 ~ /online/ { ok = 1 } END { exit !ok }'; then
  echo "[postgres] starting cluster $VERSION/$CLUSTER on port $PORT"
  pg_ctlcluster "$VERSION" "$CLUSTER" start
fi

# Wait until the server accepts connections (start returns once the postmaster runs).
for _ in $(seq 1 50); do
  if as_postgres psql -p "$PORT" -qtAc "SELECT 1" >/dev/null 2>&1; then break; fi
  sleep 0.2
done

psql_admin() { as_postgres psql -p "$PORT" -v ON_ERROR_STOP=1 -qtA "$@"; }

# The Electric stand-in (e2e/electric/standin.ts, docs/multiplayer.md) reads changes through
# logical decoding with wal2json, which needs wal_level=logical. Changing it needs a restart,
# so it happens only when the setting is not there yet (once per machine).
if [ ! -e "/usr/lib/postgresql/$VERSION/lib/wal2json.so" ]; then
  echo "[postgres] installing postgresql-$VERSION-wal2json"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "postgresql-$VERSION-wal2json" >/dev/null
fi
if [ "$(psql_admin -c "SHOW wal_level")" != logical ]; then
  echo "[postgres] setting wal_level=logical (restart)"
  psql_admin -c "ALTER SYSTEM SET wal_level = logical"
  pg_ctlcluster "$VERSION" "$CLUSTER" restart
  for _ in $(seq 1 50); do
    if as_postgres psql -p "$PORT" -qtAc "SELECT 1" >/dev/null 2>&1; then break; fi
    sleep 0.2
  done
fi

if [ "$(psql_admin -c "SELECT 1 FROM pg_roles WHERE rolname = '$ROLE'")" != 1 ]; then
  echo "[postgres] creating role $ROLE"
  psql_admin -c "CREATE ROLE \"$ROLE\" LOGIN CREATEDB PASSWORD '$PASSWORD'"
fi
if [ "$(psql_admin -c "SELECT 1 FROM pg_database WHERE datname = '$DATABASE'")" != 1 ]; then
  echo "[postgres] creating database $DATABASE"
  psql_admin -c "CREATE DATABASE \"$DATABASE\" OWNER \"$ROLE\""
  psql_admin -c "ALTER DATABASE \"$DATABASE\" SET synchronous_commit = off"
fi
# The stand-in's logical replication slots are made by the test role.
if [ "$(psql_admin -c "SELECT rolreplication FROM pg_roles WHERE rolname = '$ROLE'")" != t ]; then
  psql_admin -c "ALTER ROLE \"$ROLE\" REPLICATION"
fi
echo "[postgres] ready: postgres://$ROLE:***@127.0.0.1:$PORT/$DATABASE"
