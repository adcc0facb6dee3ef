"""The failover scenarios of ``benchmarks/failover.py`` under the mixed load of engines' clients (hive sync's
commits, lock and transaction cycles, Iceberg compare-and-set commits, partition adds and drops, reads), each
client given every server's address: a PostgreSQL primary killed and its synchronous replica promoted; a
Galera node killed under writes spread over the nodes, then rejoining; a server killed, then a rolling restart
of all three onto this build with a schema upgrade in between; one server cut off from its database by a
network partition. Every scenario must end with no acknowledged write lost, none applied twice, no lock or
transaction of the load left past its timeout, and every server serving again; each prints its figures
(``pytest -s``), which docs/operations.md gives.

Outside CI a machine without the packages (that cannot install them) or without network namespaces skips;
in CI it fails."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import make_url

from benchmarks import failover
from benchmarks.db_clusters import ensure_packages
from tests.conftest import skip_or_fail

# a scenario on a CI machine under the suite's load takes minutes: past the default 600 s only on a hung one
pytestmark = [pytest.mark.mysql, pytest.mark.timeout(1800)]


@pytest.fixture(scope="module")
def packages() -> None:
    problem = ensure_packages()
    if problem:
        skip_or_fail(problem)


@pytest.fixture
def home() -> Iterator[Path]:
    """A folder outside pytest's own temporary folder, which only root may enter (the database servers run as
    users of their own)."""
    path = Path(tempfile.mkdtemp(prefix="hms-failover-"))
    os.chmod(path, 0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


def _checked(report: failover.Report) -> failover.Report:
    print(report.line())
    assert report.lost == 0, report.line()
    assert report.duplicated == 0, report.line()
    assert (report.locks_left, report.txns_left) == (0, 0), report.line()
    assert (report.exclusive_overlaps, report.stale_reads) == (0, 0), report.line()
    assert report.serving_again_s is not None, report.line()
    return report


def test_a_postgresql_primary_killed_and_its_replica_promoted(packages, home):
    report = _checked(failover.postgresql_failover(home))
    assert report.steps > 0


def test_a_galera_node_killed_then_rejoining_under_writes_on_every_node(packages, home):
    report = _checked(failover.galera_node_loss(home))
    assert sum(1 for commits in report.notes["commits by node"] if commits) >= 2, report.line()


def test_a_server_killed_then_all_restarted_with_a_schema_upgrade(packages, home, mysql_db_url):
    try:
        failover.previous_build(home)
    except (OSError, subprocess.CalledProcessError) as error:
        skip_or_fail(f"the previous layout's build is not in this checkout's git history: {error}")
    report = _checked(failover.rolling_upgrade(home, mysql_db_url))
    assert report.cut_off > 0, "the killed server cut no call off: the scenario tested nothing"


def test_a_server_cut_off_from_its_database(packages, home, mysql_db_url):
    if shutil.which("ip") is None:
        skip_or_fail("the partition scenario needs iproute2 (ip netns)")
    url = make_url(mysql_db_url)
    report = _checked(failover.database_cut_off(home, url.database, url.port or 3306))
    assert report.failed_calls > 0, "no client noticed the cut: the scenario tested nothing"
