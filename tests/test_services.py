"""``tools/services.sh``, run again while MariaDB and PostgreSQL already run: no error, nothing restarted.

The suite's own run starts the servers with the script (the README's test command), so this is the second run
the issue asks about. The servers' start times are read before and after: a restart would move them.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import psycopg
import pymysql
import pytest
from sqlalchemy.engine import make_url

from tests.conftest import MYSQL_URL, POSTGRESQL_URL, skip_or_fail

SCRIPT = Path(__file__).resolve().parents[1] / "tools" / "services.sh"


def mariadb_uptime_and_pid() -> tuple[int, str]:
    """MariaDB's uptime in seconds and its process id (from its pid file): a restart resets the one, moves the
    other."""
    url = make_url(MYSQL_URL)
    try:
        conn = pymysql.connect(host=url.host, port=url.port or 3306, user=url.username, password=url.password or "")
    except pymysql.err.OperationalError as e:
        skip_or_fail(f"no MariaDB server at {url.host}:{url.port}: {e}")
    with conn, conn.cursor() as cur:
        cur.execute("SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = 'UPTIME'")
        (uptime,) = cur.fetchone()
        cur.execute("SELECT @@pid_file")
        (pid_file,) = cur.fetchone()
    return int(uptime), Path(pid_file).read_text().strip()


def postgresql_started_at() -> float:
    try:
        with psycopg.connect(POSTGRESQL_URL.replace("+psycopg", ""), connect_timeout=5) as conn:
            return conn.execute("SELECT extract(epoch FROM pg_postmaster_start_time())").fetchone()[0]
    except psycopg.OperationalError as e:
        skip_or_fail(f"no PostgreSQL server at {POSTGRESQL_URL}: {e}")
        raise


@pytest.mark.skipif(
    make_url(MYSQL_URL).host not in ("127.0.0.1", "localhost")
    or make_url(POSTGRESQL_URL).host not in ("127.0.0.1", "localhost"),
    reason="the suite is pointed at other database servers than the local ones the script manages",
)
def test_second_run_leaves_running_servers_alone():
    mariadb_uptime_before, mariadb_pid_before = mariadb_uptime_and_pid()
    postgresql_before = postgresql_started_at()

    run = subprocess.run(["bash", str(SCRIPT)], capture_output=True, text=True, timeout=120)

    assert run.returncode == 0, run.stderr
    assert "MariaDB already answers" in run.stdout
    assert "PostgreSQL already answers" in run.stdout
    assert "starting" not in run.stdout
    mariadb_uptime_after, mariadb_pid_after = mariadb_uptime_and_pid()
    assert mariadb_pid_after == mariadb_pid_before
    assert mariadb_uptime_after >= mariadb_uptime_before
    assert postgresql_started_at() == postgresql_before


def test_unknown_service_is_one_line_and_nonzero():
    run = subprocess.run(["bash", str(SCRIPT), "redis"], capture_output=True, text=True, timeout=30)

    assert run.returncode != 0
    assert run.stderr.strip().splitlines() == ["tools/services.sh: unknown service 'redis' (mariadb, postgresql)"]
