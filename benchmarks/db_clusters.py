"""The highly available catalog databases operators run, started on loopback for tests and benchmarks: a
MariaDB Galera cluster (``GaleraCluster``), HAProxy in front of any TCP servers (``HAProxy``) and a PostgreSQL
primary with a streaming replica (``PostgreSQLPair``). Each keeps its data directories, configuration, sockets
and logs in a folder of its own (``home``), listens on free ports of 127.0.0.1 only and runs its servers as
processes of its own (``subprocess.Popen``, no systemd), each stopped or killed by its own process id. A wait
for readiness ends on a signal (the server answers, a status variable says so) and fails at once when the
server exits, with the end of its log; the ceilings are generous only against a hang.

MariaDB runs as the user ``mysql`` and PostgreSQL as ``postgres``, as they insist: the folders are theirs,
and every folder above ``home`` must let them through (``/tmp/pytest-of-root`` does not).
Root reaches the Galera nodes over TCP without a password (``skip-grant-tables``, as ``tests/faults``' private
MariaDB), PostgreSQL's superuser ``postgres`` the PostgreSQL nodes (trust authentication on loopback).

Galera's state transfers go by rsync (MariaDB's ``mariadb-backup`` is not needed), incremental ones (IST)
from the donor's write-set cache when a node comes back.

Failover of the PostgreSQL pair is by hand: ``kill_primary()`` then ``promote_replica()`` (``pg_ctl
promote``), what a failover tool or an operator does, rather than Patroni with etcd. What the tests look at is
what the metastore sees: the primary gone, another server accepting writes at another address, reached again
through the same multi-host URL. How a failover manager elects the new primary is not tested here, and
promoting by hand needs nothing beyond PostgreSQL itself and keeps the moment of the failover in the test's
hands.

``ensure_packages()`` installs what is missing from Debian's packages. On the command line:

    python benchmarks/db_clusters.py galera|postgresql [--home DIR]   (start one, print its URLs, Ctrl-C stops)
    python benchmarks/db_clusters.py check                            (install what is missing)
"""

from __future__ import annotations

import argparse
import logging
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from contextlib import closing
from pathlib import Path

import psycopg
import pymysql

if str(Path(__file__).resolve().parent) not in sys.path:  # the benchmarks import each other by bare name
    sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_base import NotReady, accepts, apt_install, free_port, wait_until  # noqa: E402

LOG = logging.getLogger("db_clusters")

GALERA_PROVIDER = Path("/usr/lib/galera/libgalera_smm.so")
POSTGRESQL_LIB = Path("/usr/lib/postgresql")
DEBIAN_PACKAGES = {
    "mariadb-server": Path("/usr/sbin/mariadbd"),
    "galera-4": GALERA_PROVIDER,
    "rsync": Path("/usr/bin/rsync"),
    "haproxy": Path("/usr/sbin/haproxy"),
}
"""The Debian packages the clusters need, each with a file that shows it is installed. PostgreSQL's server
(``postgresql``) comes on top when no version of it is installed (``postgresql_bin``)."""

STOP_SECONDS = 60.0
"""How long a server has to stop after SIGTERM before it gets SIGKILL."""


class ClusterError(RuntimeError):
    """A server of a cluster did not start, did not become ready, or a command it needs failed; the message
    ends with the end of the relevant log."""


def tail(path: Path, chars: int = 4000) -> str:
    """The end of the log ``path``, for a failure message."""
    try:
        return path.read_text(errors="replace")[-chars:]
    except OSError as error:
        return f"({path} cannot be read: {error})"


def _wait(ready: Callable[[], object], process: subprocess.Popen | None, what: str, *logs: Path) -> None:
    """``wait_until`` ``ready()`` (``READY_SECONDS`` at most); a ``ClusterError`` with the end of each of
    ``logs`` that holds anything when ``process`` exits first or the wait is in vain."""
    try:
        wait_until(ready, process=process, what=what)
    except NotReady as error:
        ends = "".join(f"\nthe end of {log}:\n{tail(log)}" for log in logs if log.exists() and log.stat().st_size)
        raise ClusterError(f"{error}{ends}") from None


def _run(command: list[str], log: Path, *, user: str | None = None, timeout: float = 300.0) -> None:
    """Run ``command`` to its end, its output appended to ``log``; a ``ClusterError`` when it fails."""
    with open(log, "ab") as out:
        done = subprocess.run(command, stdout=out, stderr=subprocess.STDOUT, user=user, cwd=log.parent, timeout=timeout)
    if done.returncode:
        raise ClusterError(f"{' '.join(command)} exited with {done.returncode}; the end of {log}:\n{tail(log)}")


def _spawn(command: list[str], log: Path, *, user: str | None = None) -> subprocess.Popen:
    """Start ``command`` with its output appended to ``log``."""
    LOG.info("starting %s", " ".join(command))
    with open(log, "ab") as out:
        return subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, user=user, cwd=log.parent
        )


def _kill(process: subprocess.Popen | None) -> None:
    """SIGKILL, as a crash, and reap it."""
    if process is not None and process.poll() is None:
        process.send_signal(signal.SIGKILL)
        process.wait(30)


def _stop(processes: Iterable[subprocess.Popen | None]) -> None:
    """SIGTERM to each process still running, then SIGKILL to any not gone after ``STOP_SECONDS``."""
    running = [process for process in processes if process is not None and process.poll() is None]
    for process in running:
        process.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + STOP_SECONDS
    for process in running:
        try:
            process.wait(max(deadline - time.monotonic(), 0.1))
        except subprocess.TimeoutExpired:
            _kill(process)


def _folder(path: Path, owner: str) -> Path:
    """A new folder ``path`` owned by the user ``owner`` (the server's)."""
    path.mkdir(parents=True)
    shutil.chown(path, owner, owner)
    return path


def _make_home(home: Path) -> None:
    """``home``, reachable by the servers' users (``mysql``, ``postgres``) that run in its folders."""
    home.mkdir(parents=True, exist_ok=True)
    os.chmod(home, 0o755)


# ------------------------------------------------------------------------------------------------- Galera


class GaleraNode:
    """One MariaDB server of a ``GaleraCluster``: its folder, ports and process (None when not running)."""

    def __init__(self, home: Path, index: int) -> None:
        self.index, self.name, self.home = index, f"node{index}", home
        self.port, self.group_port, self.ist_port, self.sst_port = (free_port() for _ in range(4))
        self.data, self.config, self.error_log = home / "data", home / "my.cnf", home / "error.log"
        self.output = home / "mariadbd.out"  # what the server writes before its error log is open
        self.process: subprocess.Popen | None = None

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def write_config(self, cluster_address: str) -> None:
        """The node's ``my.cnf``: its folders and ports, Galera's settings, and root without a password."""
        provider_options = ";".join(
            (
                f"gmcast.listen_addr=tcp://127.0.0.1:{self.group_port}",
                f"ist.recv_addr=127.0.0.1:{self.ist_port}",
                "gcache.size=32M",
            )
        )
        self.config.write_text(f"""[mysqld]
user = mysql
datadir = {self.data}
socket = {self.home / "mysqld.sock"}
pid-file = {self.home / "mysqld.pid"}
log-error = {self.error_log}
port = {self.port}
bind-address = 127.0.0.1
skip-grant-tables
skip-name-resolve
innodb_buffer_pool_size = 64M
innodb_log_file_size = 16M
default_storage_engine = InnoDB
binlog_format = ROW
innodb_autoinc_lock_mode = 2
wsrep_on = ON
wsrep_provider = {GALERA_PROVIDER}
wsrep_cluster_name = hms-test
wsrep_cluster_address = {cluster_address}
wsrep_node_name = {self.name}
wsrep_node_address = 127.0.0.1:{self.group_port}
wsrep_provider_options = "{provider_options}"
wsrep_sst_method = rsync
wsrep_sst_receive_address = 127.0.0.1:{self.sst_port}
""")

    def recovered_position(self) -> list[str]:
        """The option that starts the node at the last transaction its data holds (``--wsrep-start-position``),
        found by ``mariadbd --wsrep-recover`` as the MariaDB service does (``galera_recovery``): a node killed
        mid-way leaves no position in ``grastate.dat``, and without one it would ask for a full state transfer
        instead of the transactions it missed. No option when the data holds no position."""
        log = self.home / "recover.log"
        log.unlink(missing_ok=True)
        _run(["mariadbd", f"--defaults-file={self.config}", "--wsrep-recover", "--disable-log-error"], log)
        found = re.search(r"WSREP: Recovered position: (\S+)", log.read_text(errors="replace"))
        return [f"--wsrep-start-position={found.group(1)}"] if found else []

    def status(self) -> dict[str, str]:
        """The node's ``wsrep_%`` status variables; empty while it does not answer."""
        try:
            connection = pymysql.connect(
                host="127.0.0.1", port=self.port, user="root", connect_timeout=5, read_timeout=10
            )
        except pymysql.err.OperationalError:
            return {}
        with closing(connection), connection.cursor() as cursor:
            cursor.execute("SHOW GLOBAL STATUS LIKE 'wsrep\\_%'")
            return {name: value for name, value in cursor.fetchall()}


class GaleraCluster:
    """A MariaDB Galera cluster of ``nodes`` servers on 127.0.0.1, in ``home``: ``start()``, then kill and
    restart single nodes (``kill_node``, ``start_node``), ``stop()`` at the end."""

    def __init__(self, home: Path, nodes: int = 3) -> None:
        self.home = home
        self.nodes = [GaleraNode(home / f"node{i}", i) for i in range(nodes)]
        addresses = ",".join(f"127.0.0.1:{node.group_port}" for node in self.nodes)
        self.cluster_address = f"gcomm://{addresses}"

    @property
    def error_logs(self) -> list[Path]:
        """Each node's error log (MariaDB's and the state transfers' messages)."""
        return [node.error_log for node in self.nodes]

    @property
    def backends(self) -> list[tuple[str, int]]:
        """Each node's SQL address, for ``HAProxy``."""
        return [("127.0.0.1", node.port) for node in self.nodes]

    def node_url(self, index: int, database: str = "") -> str:
        return f"mysql+pymysql://root@127.0.0.1:{self.nodes[index].port}/{database}"

    def start(self) -> None:
        """Make the first node's data directory, bootstrap the cluster on it, then join the others one by one
        (each gets the data by a state transfer); return once every node is synced in a cluster of all."""
        _make_home(self.home)
        first = self.nodes[0]
        for node in self.nodes:
            _folder(node.home, "mysql")  # its socket, process id file and error log
            _folder(node.data, "mysql")
            node.write_config(self.cluster_address)
        _run(
            [
                "mariadb-install-db",
                "--no-defaults",
                "--user=mysql",
                f"--datadir={first.data}",
                "--auth-root-authentication-method=normal",
                "--skip-test-db",
            ],
            first.home / "install.log",
            timeout=600,
        )
        self._launch(first, "--wsrep-new-cluster")
        for node in self.nodes[1:]:
            self._launch(node)
        LOG.info("Galera cluster of %d nodes synced", len(self.nodes))

    def kill_node(self, index: int) -> None:
        """SIGKILL the node, as a crash. The others notice within seconds (Galera's suspect timeout, 5 s):
        until then writes on them wait."""
        _kill(self.nodes[index].process)

    def start_node(self, index: int) -> None:
        """Start a node that was killed or stopped; return once it has rejoined (an incremental state transfer
        from a donor's cache, or a full one) and is synced in a cluster of every running node."""
        node = self.nodes[index]
        if node.running:
            raise ClusterError(f"{node.name} is running already")
        self._launch(node, *node.recovered_position())

    def stop(self) -> None:
        """Stop every node still running (SIGTERM, SIGKILL after a minute). Idempotent."""
        _stop(node.process for node in self.nodes)

    def cluster_size(self) -> int:
        """The number of nodes in the cluster as the first running node that answers sees it; 0 when none
        answers."""
        for node in self.nodes:
            if node.running and (status := node.status()):
                return int(status["wsrep_cluster_size"])
        return 0

    def create_database(self, name: str) -> None:
        """A database with the catalog's character set and binary collation, made on the first running node
        (Galera replicates the DDL to the others)."""
        node = next(node for node in self.nodes if node.running)
        connection = pymysql.connect(host="127.0.0.1", port=node.port, user="root", autocommit=True)
        with closing(connection), connection.cursor() as cursor:
            cursor.execute(f"CREATE DATABASE `{name}` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin")

    def _launch(self, node: GaleraNode, *options: str) -> None:
        """Start ``node``'s server and wait until it is synced in a cluster of every running node."""
        node.process = _spawn(["mariadbd", f"--defaults-file={node.config}", *options], node.output)
        members = sum(other.running for other in self.nodes)

        def synced() -> bool:
            status = node.status()
            return (
                status.get("wsrep_ready") == "ON"
                and status.get("wsrep_local_state_comment") == "Synced"
                and status.get("wsrep_cluster_size") == str(members)
            )

        what = f"Galera {node.name} (synced in a cluster of {members})"
        _wait(synced, node.process, what, node.error_log, node.output)


# ------------------------------------------------------------------------------------------------ HAProxy


class HAProxy:
    """HAProxy on a free port of 127.0.0.1 in front of ``backends`` (``(host, port)`` pairs), in ``mode``
    ``tcp`` (a database's) or ``http``. Each backend is checked by a TCP connection every half second: two
    failures mark it down and cut the sessions through it, two successes bring it back. (MySQL's own check,
    ``option mysql-check`` without a user, would leave an aborted connection and a warning in the server's
    error log twice a second.) ``balance`` is ``first`` (every new connection to the first backend up, the
    active-passive setup of Galera writes) or ``roundrobin``. A connection that cannot reach its backend is
    tried on another (``option redispatch``): a client does not see a dead backend the checks have not marked
    down yet. Client and server may be idle for 5 minutes (a pooled connection)."""

    def __init__(
        self,
        home: Path,
        backends: list[tuple[str, int]],
        mode: str = "tcp",
        balance: str = "first",
        bind: str = "127.0.0.1",
    ) -> None:
        """``bind``: the address it listens on (``0.0.0.0`` for clients in other network namespaces)."""
        if balance not in ("first", "roundrobin"):
            raise ValueError(f"balance is first or roundrobin, not {balance}")
        self.home, self.backends, self.mode, self.balance, self.bind = home, backends, mode, balance, bind
        self.port = free_port()
        self.config, self.log = home / "haproxy.cfg", home / "haproxy.log"
        self.process: subprocess.Popen | None = None

    def url(self, scheme: str, database: str = "", user: str = "root") -> str:
        """A URL of ``scheme`` (``mysql+pymysql``) through the proxy."""
        return f"{scheme}://{user}@127.0.0.1:{self.port}/{database}"

    def write_config(self) -> None:
        servers = "".join(f"    server backend{i} {host}:{port}\n" for i, (host, port) in enumerate(self.backends))
        self.config.write_text(f"""global
    log stdout format raw local0 info
    maxconn 1000

defaults
    mode {self.mode}
    log global
    option {self.mode}log
    option redispatch
    retries 3
    timeout connect 5s
    timeout client 5m
    timeout server 5m
    timeout check 2s

frontend database
    bind {self.bind}:{self.port}
    default_backend servers

backend servers
    balance {self.balance}
    default-server check inter 500ms fall 2 rise 2 on-marked-down shutdown-sessions
{servers}""")

    def start(self) -> None:
        """Start HAProxy in the foreground (``-db``) and wait until it listens."""
        _make_home(self.home)
        self.write_config()
        self.process = _spawn(["haproxy", "-db", "-f", str(self.config)], self.log)
        what = f"HAProxy (to listen on 127.0.0.1:{self.port})"
        _wait(lambda: accepts(self.port), self.process, what, self.log)

    def stop(self) -> None:
        """Stop HAProxy (SIGTERM, SIGKILL after a minute). Idempotent."""
        _stop([self.process])


# --------------------------------------------------------------------------------------------- PostgreSQL


def postgresql_bin() -> Path | None:
    """The folder of the newest PostgreSQL server installed (``/usr/lib/postgresql/15/bin``), or None."""
    found = [path.parent for path in POSTGRESQL_LIB.glob("*/bin/postgres") if path.parent.parent.name.isdigit()]
    return max(found, key=lambda path: int(path.parent.name), default=None)


class PostgreSQLNode:
    """One PostgreSQL server of a ``PostgreSQLPair``: its data directory, port, log and postmaster process."""

    def __init__(self, home: Path, name: str, socket_dir: Path) -> None:
        self.name, self.home, self.socket_dir = name, home, socket_dir
        self.data, self.log, self.port = home / name, home / f"{name}.log", free_port()
        self.process: subprocess.Popen | None = None

    def url(self, database: str) -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{database}"

    def query(self, sql: str) -> object:
        """The first column of the first row of ``sql``, run on this node's ``postgres`` database."""
        with psycopg.connect(
            host="127.0.0.1", port=self.port, user="postgres", dbname="postgres", connect_timeout=5, autocommit=True
        ) as connection:
            row = connection.execute(sql).fetchone()
            return row[0] if row else None

    def answers(self, sql: str) -> object:
        """``query(sql)``, or None while the node does not answer."""
        try:
            return self.query(sql)
        except psycopg.OperationalError:
            return None

    def start(self, bin_dir: Path, settings: dict[str, str]) -> None:
        """Start the postmaster (as ``postgres``) with its own port and socket folder and ``settings``, and
        wait until it answers."""
        options = {
            "port": str(self.port),
            "listen_addresses": "127.0.0.1",
            "unix_socket_directories": str(self.socket_dir),
            **settings,
        }
        command = [str(bin_dir / "postgres"), "-D", str(self.data)]
        for name, value in options.items():
            command += ["-c", f"{name}={value}"]
        self.process = _spawn(command, self.log, user="postgres")
        _wait(lambda: self.answers("SELECT 1"), self.process, f"PostgreSQL {self.name} to answer", self.log)


class PostgreSQLPair:
    """A PostgreSQL primary and a streaming replica of it on 127.0.0.1, in ``home``: ``start()``,
    ``kill_primary()`` and ``promote_replica()`` for a failover, ``stop()``. Replication is asynchronous (as by
    default: a commit the replica has not received yet is lost with the primary) unless ``synchronous``: then
    the primary acknowledges a commit once the replica has it (``synchronous_standby_names``), which is what a
    failover that loses no acknowledged write needs; the promoted replica runs alone, without waiting for a
    standby."""

    SETTINGS = {"wal_level": "replica", "max_wal_senders": "5", "hot_standby": "on", "shared_buffers": "32MB"}
    """Both servers': a primary that streams its WAL, a replica that answers reads while it replays it."""
    SYNCHRONOUS = {"synchronous_standby_names": "*", "synchronous_commit": "on"}
    """The primary's, when ``synchronous``."""

    def __init__(self, home: Path, synchronous: bool = False) -> None:
        self.home, self.synchronous = home, synchronous
        bin_dir = postgresql_bin()
        if bin_dir is None:
            raise ClusterError(f"no PostgreSQL server under {POSTGRESQL_LIB} (ensure_packages() installs it)")
        self.bin_dir, socket_dir = bin_dir, home / "run"
        self.primary = PostgreSQLNode(home, "primary", socket_dir)
        self.replica = PostgreSQLNode(home, "replica", socket_dir)

    def url(self, database: str) -> str:
        """A URL naming both servers: libpq tries them in turn and keeps the first that accepts writes
        (``target_session_attrs=read-write``), the primary before a failover and the promoted replica after
        it; every new connection looks again."""
        hosts = "&".join(f"host=127.0.0.1:{node.port}" for node in (self.primary, self.replica))
        return f"postgresql+psycopg://postgres@/{database}?{hosts}&target_session_attrs=read-write"

    def start(self) -> None:
        """Make the primary (``initdb``, trust authentication on loopback), start it, copy it into the
        replica (``pg_basebackup -R``), start that, and return once the replica streams from the primary."""
        _make_home(self.home)
        _folder(self.home / "run", "postgres")
        _folder(self.primary.data, "postgres")
        _run(
            [str(self.bin_dir / "initdb"), "-D", str(self.primary.data), "-U", "postgres", "--auth=trust"]
            + ["-E", "UTF8", "--locale=C.UTF-8"],
            self.primary.log,
            user="postgres",
        )
        self.primary.start(self.bin_dir, {**self.SETTINGS, **(self.SYNCHRONOUS if self.synchronous else {})})
        _folder(self.replica.data, "postgres")
        os.chmod(self.replica.data, 0o700)
        _run(
            [str(self.bin_dir / "pg_basebackup"), "-h", "127.0.0.1", "-p", str(self.primary.port), "-U", "postgres"]
            + ["-D", str(self.replica.data), "-R", "-X", "stream", "-c", "fast"],
            self.replica.log,
            user="postgres",
        )
        self.replica.start(self.bin_dir, self.SETTINGS)
        _wait(
            lambda: self.primary.answers("SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'"),
            self.replica.process,
            "the PostgreSQL replica to stream from the primary",
            self.replica.log,
        )
        LOG.info("PostgreSQL primary on %d, replica streaming on %d", self.primary.port, self.replica.port)

    def wait_for_replica(self) -> None:
        """Return once the replica has replayed everything the primary wrote so far (replication is
        asynchronous: a primary killed right after a commit may take it along)."""
        written = self.primary.query("SELECT pg_current_wal_lsn()::text")
        _wait(
            lambda: self.replica.answers(f"SELECT pg_last_wal_replay_lsn() >= '{written}'::pg_lsn"),
            self.replica.process,
            f"the PostgreSQL replica to replay the primary's WAL up to {written}",
            self.replica.log,
        )

    def kill_primary(self) -> None:
        """SIGKILL the primary's postmaster, as a crash (its other processes follow it on their own)."""
        _kill(self.primary.process)

    def promote_replica(self) -> None:
        """Promote the replica (``pg_ctl promote``) and return once it accepts writes."""
        _run(
            [str(self.bin_dir / "pg_ctl"), "promote", "-D", str(self.replica.data), "-w", "-t", "300"],
            self.home / "promote.log",
            user="postgres",
        )
        _wait(
            lambda: self.replica.answers("SELECT NOT pg_is_in_recovery()"),
            self.replica.process,
            "the promoted PostgreSQL replica to leave recovery",
            self.replica.log,
        )

    def create_database(self, name: str) -> None:
        """A database made on the primary; returns once the replica has it too."""
        with psycopg.connect(
            host="127.0.0.1", port=self.primary.port, user="postgres", dbname="postgres", autocommit=True
        ) as connection:
            connection.execute(f'CREATE DATABASE "{name}"')
        self.wait_for_replica()

    def stop(self) -> None:
        """Stop both servers still running (SIGTERM, SIGKILL after a minute). Idempotent."""
        _stop([self.replica.process, self.primary.process])


# ----------------------------------------------------------------------------------------------- packages


def ensure_packages() -> str | None:
    """Install the Debian packages the clusters need that are missing (``DEBIAN_PACKAGES``, and
    ``postgresql`` when no PostgreSQL server is there), refreshing the package lists once only when the
    install fails; returns why they cannot be had, or None when everything is there."""
    missing = [package for package, installed in DEBIAN_PACKAGES.items() if not installed.exists()]
    if postgresql_bin() is None:
        missing.append("postgresql")
    if not missing:
        return None
    LOG.info("installing %s", " ".join(missing))
    return apt_install(missing)


# ------------------------------------------------------------------------------------------ command line


def _serve(kind: str, home: Path) -> None:
    """Start a Galera cluster with HAProxy in front, or a PostgreSQL pair, in ``home``; print the URLs; stop it
    all at Ctrl-C (or SIGTERM)."""
    if kind == "galera":
        cluster = GaleraCluster(home / "galera")
        proxy = HAProxy(home / "haproxy", cluster.backends)
        stoppables: list[GaleraCluster | HAProxy | PostgreSQLPair] = [proxy, cluster]
        urls = {node.name: cluster.node_url(node.index) for node in cluster.nodes}
        urls["HAProxy (balance first)"] = proxy.url("mysql+pymysql")
        starts = [cluster.start, proxy.start]
    else:
        pair = PostgreSQLPair(home / "postgresql")
        stoppables = [pair]
        urls = {
            "primary": pair.primary.url("postgres"),
            "replica": pair.replica.url("postgres"),
            "the writable one of both": pair.url("postgres"),
        }
        starts = [pair.start]
    signal.signal(signal.SIGINT, signal.default_int_handler)  # even where started with SIGINT ignored (``&``)
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        for start in starts:
            start()
        print("".join(f"{name}: {url}\n" for name, url in urls.items()), flush=True)
        print("Ctrl-C stops it", flush=True)
        signal.pause()
    except KeyboardInterrupt:
        pass
    finally:
        for stoppable in stoppables:
            stoppable.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("what", choices=("galera", "postgresql", "check"))
    parser.add_argument("--home", type=Path, help="the folder of the data and logs (a temporary one if not given)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    problem = ensure_packages()
    if problem:
        print(problem, file=sys.stderr)
        return 1
    if args.what == "check":
        print("everything the clusters need is installed")
        return 0
    home = args.home or Path(tempfile.mkdtemp(prefix=f"hms-{args.what}-"))
    _make_home(home)
    print(f"data and logs in {home}", flush=True)
    try:
        _serve(args.what, home)
    except ClusterError as error:
        print(error, file=sys.stderr)
        return 1
    finally:
        if args.home is None:
            shutil.rmtree(home, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
