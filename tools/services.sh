#!/usr/bin/env bash
# The local database servers the test suite needs, made to exist and run on a bare Debian machine:
#   MariaDB    at 127.0.0.1:3306, user root without password, database `test`;
#   PostgreSQL at 127.0.0.1:5432, trust authentication on loopback and the local socket, roles `root` and
#              `postgres`, database `test`.
# With MariaDB comes MariaDB Connector/C's headers, a C compiler and pkg-config, which the MySQL driver mysqlclient
# (the `mysql` extra, part of the `test` extra) is built with.
# Installs mariadb-server / postgresql from Debian's packages only when missing, initialises their data
# directories, starts them without systemd and waits until both answer. Idempotent: a server that already
# answers is left running as it is (not restarted); settings already in place are not written again.
# Exits non-zero with a one-line reason when a server cannot be made to answer.
# Usage: bash tools/services.sh [mariadb] [postgresql]   (both when none is named)
set -euo pipefail

readonly MARIADB_PORT=3306
readonly MARIADB_TMPDIR=/var/lib/mysql-tmp
readonly POSTGRESQL_PORT=5432
readonly WAIT_SECONDS=60
readonly LOG_DIR=/var/log/hudi-metastore-services

fail() {
  echo "tools/services.sh: $*" >&2
  exit 1
}
note() { echo "services: $*"; }
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo -n "$@"; fi; }

apt_updated=false
install_packages() {
  # apt-get install, refreshing the package lists once (only when the first attempt fails).
  if ! as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" \
    >/dev/null 2>&1; then
    if [ "$apt_updated" = false ]; then
      as_root apt-get update -qq >/dev/null 2>&1 || fail "apt-get update failed"
      apt_updated=true
    fi
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" \
      >/dev/null 2>&1 || fail "could not install $* from Debian's packages"
  fi
}

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

wait_until() {
  # wait_until WHAT COMMAND...: run COMMAND every half second until it succeeds or WAIT_SECONDS pass.
  local what=$1
  shift
  local tries=$((WAIT_SECONDS * 2))
  while ! "$@" >/dev/null 2>&1; do
    tries=$((tries - 1))
    [ "$tries" -gt 0 ] || return 1
    sleep 0.5
  done
  note "$what answers"
}

# ----------------------------------------------------------------------------------------------- MariaDB

mariadb_answers() { mariadb --protocol=TCP -h 127.0.0.1 -P "$MARIADB_PORT" -u root -e 'SELECT 1'; }

mariadb_admin() {
  # SQL as the database superuser over the local socket (root@localhost authenticates by unix_socket).
  as_root mariadb --protocol=SOCKET -S /run/mysqld/mysqld.sock -u root "$@"
}

mariadb_server_binary() {
  local candidate
  for candidate in mariadbd mysqld; do
    if command -v "$candidate" >/dev/null 2>&1; then command -v "$candidate"; return; fi
    if [ -x "/usr/sbin/$candidate" ]; then echo "/usr/sbin/$candidate"; return; fi
  done
  return 1
}

ensure_mariadb() {
  if port_open "$MARIADB_PORT"; then
    if command -v mariadb >/dev/null 2>&1 && mariadb_answers >/dev/null 2>&1; then
      mariadb --protocol=TCP -h 127.0.0.1 -P "$MARIADB_PORT" -u root -e 'CREATE DATABASE IF NOT EXISTS test' \
        || fail "MariaDB at 127.0.0.1:$MARIADB_PORT answers but root cannot create the database test"
      note "MariaDB already answers at 127.0.0.1:$MARIADB_PORT"
      return
    fi
    if ! [ -S /run/mysqld/mysqld.sock ]; then
      fail "port $MARIADB_PORT is taken by something that does not let root in without a password"
    fi
  fi
  local server
  if ! server=$(mariadb_server_binary) || ! command -v mariadb >/dev/null 2>&1; then
    note "installing mariadb-server"
    install_packages mariadb-server mariadb-client
    server=$(mariadb_server_binary) || fail "mariadb-server installed but no mariadbd found"
  fi
  as_root install -d -o mysql -g mysql -m 0755 /run/mysqld
  # A temporary directory of MariaDB's own: its on-disk temporary tables must not share /tmp with the
  # tests, their engines and their clean-ups (a CI run once lost one mid-query).
  as_root install -d -o mysql -g mysql -m 0750 "$MARIADB_TMPDIR"
  as_root install -d -m 0755 "$LOG_DIR"
  if ! [ -d /var/lib/mysql/mysql ]; then
    note "initialising MariaDB's data directory /var/lib/mysql"
    as_root install -d -o mysql -g mysql -m 0750 /var/lib/mysql
    as_root mariadb-install-db --user=mysql --datadir=/var/lib/mysql --skip-test-db >"$LOG_DIR/mariadb-install-db.log" \
      2>&1 || fail "mariadb-install-db failed (see $LOG_DIR/mariadb-install-db.log)"
  fi
  if ! [ -S /run/mysqld/mysqld.sock ] || ! mariadb_admin -e 'SELECT 1' >/dev/null 2>&1; then
    note "starting MariaDB"
    # setsid: the server outlives this script and the shell that ran it.
    as_root setsid "$server" --user=mysql --datadir=/var/lib/mysql --socket=/run/mysqld/mysqld.sock \
      --pid-file=/run/mysqld/mysqld.pid --port="$MARIADB_PORT" --bind-address=127.0.0.1 \
      --tmpdir="$MARIADB_TMPDIR" --max-connections=1000 --log-error="$LOG_DIR/mariadb.log" </dev/null >/dev/null 2>&1 9>&- &
    wait_until "MariaDB's socket" mariadb_admin -e 'SELECT 1' \
      || fail "MariaDB did not start within ${WAIT_SECONDS}s (see $LOG_DIR/mariadb.log)"
  fi
  # root from loopback TCP without a password (Debian's root@localhost uses unix_socket only).
  mariadb_admin <<'SQL' || fail "could not give root password-less access over TCP"
ALTER USER 'root'@'localhost' IDENTIFIED VIA unix_socket OR mysql_native_password USING PASSWORD('');
CREATE USER IF NOT EXISTS 'root'@'127.0.0.1' IDENTIFIED BY '';
GRANT ALL PRIVILEGES ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION;
FLUSH PRIVILEGES;
CREATE DATABASE IF NOT EXISTS test;
SQL
  wait_until "MariaDB at 127.0.0.1:$MARIADB_PORT" mariadb_answers \
    || fail "MariaDB runs but does not answer root at 127.0.0.1:$MARIADB_PORT"
}

# -------------------------------------------------------------------------------------------- PostgreSQL

postgresql_answers() {
  psql -h 127.0.0.1 -p "$POSTGRESQL_PORT" -U root -d test -Atc 'SELECT 1' | grep -qx 1
}

as_postgres() { as_root runuser -u postgres -- "$@"; }

postgresql_cluster() {
  # The newest cluster on port POSTGRESQL_PORT, as "VERSION NAME" (pg_lsclusters' first two columns).
  pg_lsclusters --no-header 2>/dev/null | awk -v port="$POSTGRESQL_PORT" '$3 == port {print $1, $2}' | sort -V \
    | tail -1
}

trust_loopback() {
  # Prepend trust rules to pg_hba.conf (the first matching rule wins); reload when they were added.
  local hba=$1
  local marker="# hudi-metastore tests: trust on loopback and the local socket"
  if as_root grep -qxF "$marker" "$hba"; then return 1; fi
  local rules
  rules=$(printf '%s\n%s\n%s\n%s\n' "$marker" "local all all trust" "host all all 127.0.0.1/32 trust" \
    "host all all ::1/128 trust")
  as_root sh -c 'tmp=$(mktemp) && { printf "%s\n" "$1"; cat "$2"; } >"$tmp" && cat "$tmp" >"$2" && rm -f "$tmp"' \
    sh "$rules" "$hba"
}

ensure_postgresql() {
  if port_open "$POSTGRESQL_PORT" && command -v psql >/dev/null 2>&1 && postgresql_answers >/dev/null 2>&1; then
    note "PostgreSQL already answers at 127.0.0.1:$POSTGRESQL_PORT"
    return
  fi
  if ! command -v pg_lsclusters >/dev/null 2>&1 || ! command -v psql >/dev/null 2>&1 \
    || [ -z "$(ls /usr/lib/postgresql 2>/dev/null)" ]; then
    note "installing postgresql"
    install_packages postgresql postgresql-client
  fi
  local cluster version name
  cluster=$(postgresql_cluster)
  if [ -z "$cluster" ]; then
    version=$(ls /usr/lib/postgresql | sort -V | tail -1)
    note "creating PostgreSQL cluster $version/main"
    as_root pg_createcluster --port="$POSTGRESQL_PORT" "$version" main >/dev/null \
      || fail "pg_createcluster $version main failed"
    cluster=$(postgresql_cluster)
  fi
  read -r version name <<<"$cluster"
  local reload=false
  if trust_loopback "/etc/postgresql/$version/$name/pg_hba.conf"; then reload=true; fi
  if pg_lsclusters --no-header | awk -v v="$version" -v n="$name" '$1 == v && $2 == n {print $4}' | grep -qx online
  then
    if [ "$reload" = true ]; then as_root pg_ctlcluster "$version" "$name" reload; fi
  else
    note "starting PostgreSQL $version/$name"
    as_root pg_ctlcluster --skip-systemctl-redirect "$version" "$name" start 9>&- \
      || fail "pg_ctlcluster $version $name start failed (see /var/log/postgresql/postgresql-$version-$name.log)"
  fi
  wait_until "PostgreSQL's socket" as_postgres psql -p "$POSTGRESQL_PORT" -Atc 'SELECT 1' \
    || fail "PostgreSQL $version/$name did not start within ${WAIT_SECONDS}s"
  if ! as_postgres psql -p "$POSTGRESQL_PORT" -Atc "SELECT 1 FROM pg_roles WHERE rolname = 'root'" | grep -qx 1; then
    as_postgres psql -p "$POSTGRESQL_PORT" -qc 'CREATE ROLE root SUPERUSER LOGIN' \
      || fail "could not create the PostgreSQL role root"
  fi
  if ! as_postgres psql -p "$POSTGRESQL_PORT" -Atc "SELECT 1 FROM pg_database WHERE datname = 'test'" | grep -qx 1
  then
    as_postgres psql -p "$POSTGRESQL_PORT" -qc 'CREATE DATABASE test OWNER root' \
      || fail "could not create the PostgreSQL database test"
  fi
  wait_until "PostgreSQL at 127.0.0.1:$POSTGRESQL_PORT" postgresql_answers \
    || fail "PostgreSQL runs but does not answer root at 127.0.0.1:$POSTGRESQL_PORT"
}

ensure_mysqlclient_build() {
  # What `pip install mysqlclient` compiles against (it finds the library with pkg-config).
  if ! pkg-config --exists libmariadb 2>/dev/null || ! command -v gcc >/dev/null 2>&1; then
    note "installing MariaDB Connector/C's headers and a C compiler (to build mysqlclient)"
    install_packages libmariadb-dev pkg-config gcc libc6-dev
  fi
}

main() {
  # One run at a time: two concurrent runs would both try to start a stopped server. The servers started
  # below must not inherit descriptor 9, or they would hold the lock for as long as they run.
  exec 9>"${TMPDIR:-/tmp}/hudi-metastore-services.lock"
  flock -w "$((WAIT_SECONDS * 3))" 9 || fail "another run of this script holds its lock"
  local wanted=("$@")
  [ "${#wanted[@]}" -gt 0 ] || wanted=(mariadb postgresql)
  local service
  for service in "${wanted[@]}"; do
    case "$service" in
      mariadb) ensure_mariadb && ensure_mysqlclient_build ;;
      postgresql) ensure_postgresql ;;
      *) fail "unknown service '$service' (mariadb, postgresql)" ;;
    esac
  done
}

main "$@"
