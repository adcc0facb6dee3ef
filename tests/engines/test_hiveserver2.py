"""Apache HiveServer2 4.0.1 (``benchmarks/hiveserver2.py``, assembled from Maven Central) on this server (on
SQLite) and, in a HiveServer2 of its own, on Apache Hive Metastore 4.0.1 (on MariaDB, with ``hive-exec`` 4.0.1
on its classpath as a Hive distribution's metastore has it): the beeline admin session of
``tests/support/hiveserver2_session.sql`` runs on both through JDBC, and every statement's outcome (its rows
once warehouse paths, times, ids and file sizes are taken out, or its update count, or its error's class,
SQLState and Hive error code) and what is left on disk under each warehouse must be the same, but for the
statements ``DIFFERENT`` lists with the reason; and every one listed must still differ, so the list cannot go
stale (docs/engines.md, "Hive CLI and HiveServer2").

Both HiveServer2s run SQL-standard authorization and ``DbTxnManager`` (transactional tables, locks); the session's
administrator is the operating system's user (who owns the warehouse's files, which SQL-standard authorization
asks of ``ALTER TABLE ... SET LOCATION``), made a member of each metastore's ``admin`` role before it starts.
Statements run in local MapReduce inside HiveServer2's JVM.
"""

from __future__ import annotations

import getpass
import importlib
import json
import logging
import re
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import skip_or_fail
from tests.support.sql_engines import (
    ServedMetastore,
    engines,
    grant_admin_role,
    hive_metastore,
    served_metastore,
)

# two metastores and two HiveServer2 JVMs start with the first test: past the default 600 s on a slow machine
pytestmark = [pytest.mark.slow, pytest.mark.mysql, pytest.mark.timeout(1800)]

log = logging.getLogger(__name__)

hiveserver2 = importlib.import_module("hiveserver2")  # benchmarks/, on the path through tests.support.sql_engines
hive4 = importlib.import_module("hive4")
maven_artifacts = importlib.import_module("maven_artifacts")

SESSION = Path(__file__).parents[1] / "support" / "hiveserver2_session.sql"
ADMIN = "ADMIN"
"""In the session file, ``-- user: ADMIN`` is the operating system's user: HiveServer2's files are its own."""
FILES = "files on disk"
"""A ``-- files on disk`` line of the session file: the folders under each warehouse, compared as a step."""
SETTINGS = {
    # transactional tables, SHOW LOCKS, SHOW TRANSACTIONS
    "hive.support.concurrency": "true",
    "hive.txn.manager": "org.apache.hadoop.hive.ql.lockmgr.DbTxnManager",
    "hive.exec.dynamic.partition.mode": "nonstrict",
    # SQL-standard authorization; the user is the JDBC connection's
    "hive.security.authorization.enabled": "true",
    "hive.security.authorization.manager": (
        "org.apache.hadoop.hive.ql.security.authorization.plugin.sqlstd.SQLStdHiveAuthorizerFactory"
    ),
    "hive.security.authenticator.manager": "org.apache.hadoop.hive.ql.security.SessionStateUserAuthenticator",
}
"""What each HiveServer2 adds to ``hiveserver2.hive_site``."""

DIFFERENT = {
    "DESCRIBE DATABASE EXTENDED hs2s": "Hive Metastore 4 fills a database's managedLocationUri with its location "
    "when HiveServer2 sends a location only; this server leaves managedLocationUri empty",
    "SHOW CREATE TABLE managed_t": "Hive Metastore 4's default transformer turns a managed table that is not "
    "transactional into an EXTERNAL one with external.table.purge=TRUE and TRANSLATED_TO_EXTERNAL=TRUE; this "
    "server keeps it MANAGED_TABLE, as Hive 2 and 3 and every other client expect",
    "DESCRIBE FORMATTED managed_t": "the same: EXTERNAL_TABLE with external.table.purge and TRANSLATED_TO_EXTERNAL "
    "on Hive Metastore 4, MANAGED_TABLE here; and the statistics of a new table (see DESCRIBE FORMATTED bucketed_t)",
    "SHOW CREATE TABLE acid_t": "Hive Metastore 4's TransactionalValidationListener adds "
    "transactional_properties=default to a full-ACID table; this server stores the parameters as sent",
    "DESCRIBE FORMATTED acid_t": "the same: transactional_properties=default on Hive Metastore 4 only; and the "
    "statistics of a new table (see DESCRIBE FORMATTED bucketed_t)",
    "DESCRIBE FORMATTED pt PARTITION (s='k', n=11, d='2024-07-01') id": "bit_vector: this server hands out "
    "the column's HyperLogLog sketch (HL), Hive Metastore 4 drops bit vectors from its answers "
    "(metastore.stats.fetch.bitvector=false)",
    "DESCRIBE FORMATTED acid_t v": "bit_vector as above",
    "DESCRIBE FORMATTED bucketed_t": "HiveServer2 4 sends a new unpartitioned table without statistics but with a "
    "stats-setup entry in Table.dictionary (CreateTableDesc: 'let the HMS determine if there is need to add column "
    "stats'); Hive Metastore 4 then stores numFiles, numRows, rawDataSize, totalSize 0 and COLUMN_STATS_ACCURATE "
    "with basic and all column statistics accurate; this server ignores the dictionary and stores none",
    "DESCRIBE EXTENDED ext_t": "the statistics of a new table, as for bucketed_t",
    "ALTER TABLE ext_t SET LOCATION": "Hive Metastore 4 refuses to move an external table into the managed "
    "warehouse's root ('An external table's location should not be located within managed warehouse root "
    "directory'); this server moves it",
    "SHOW CREATE TABLE ext_t": "its location: ext_t was moved on this server only (above)",
}
"""Statements (or their beginnings) whose outcomes differ between the two metastores, and why."""


@dataclass
class Side:
    """One metastore with its own HiveServer2."""

    name: str
    server: Any  # hiveserver2.HiveServer2
    warehouse: Path
    served: ServedMetastore | None = None  # this server (its DEBUG log); None for Hive Metastore 4

    def canonical_path(self, text: str) -> str:
        for prefix in (f"file://{self.warehouse}", f"file:{self.warehouse}", str(self.warehouse)):
            text = text.replace(prefix, "<warehouse>")
        return text

    def files(self) -> list[tuple[str, int]]:
        """Every folder under the warehouse (Hive's hidden staging folders left out) with its number of files
        (checksums and markers left out)."""
        found = []
        for folder in sorted(p for p in [self.warehouse, *self.warehouse.rglob("*")] if p.is_dir()):
            relative = folder.relative_to(self.warehouse)
            if any(part.startswith((".", "_tmp")) for part in relative.parts):
                continue
            data = [f for f in folder.iterdir() if f.is_file() and not f.name.startswith((".", "_"))]
            found.append((f"<warehouse>/{relative}", len(data)))
        return found


# -- reading the session -----------------------------------------------------------------------------------

USER_LINE = re.compile(r"--\s*user:\s*(\S+)\s*$")
FILES_LINE = re.compile(rf"--\s*{FILES}\s*$")


def session_parts(text: str) -> list[tuple[str, str] | None]:
    """The session file as ``(user, script)`` parts, each run on a connection of its own, and ``None`` where a
    ``-- files on disk`` line looks at the warehouses (the next part keeps the user)."""
    parts: list[tuple[str, str] | None] = []
    user, lines = ADMIN, []

    def close() -> None:
        if any(line.strip() and not line.strip().startswith("--") for line in lines):
            parts.append((user, "\n".join(lines) + "\n"))
        lines.clear()

    for line in text.splitlines():
        if match := USER_LINE.match(line.strip()):
            close()
            user = match.group(1)
        elif FILES_LINE.match(line.strip()):
            close()
            parts.append(None)
        else:
            lines.append(line)
    close()
    return parts


# -- outcomes in canonical form ------------------------------------------------------------------------------

DATE = re.compile(r"\b(Mon|Tue|Wed|Thu|Fri|Sat|Sun) \w{3} +\d+ \d\d:\d\d:\d\d \w+ \d{4}\b")
LONG_NUMBER = re.compile(r"\b\d{9,}\b")  # times in seconds or milliseconds, transaction and lock ids
SIZES = ("numFiles", "totalSize", "rawDataSize")
SIZE_PARAMETER = re.compile(rf"\b({'|'.join(SIZES)})=\d+")
QUEUES = ("SHOW TRANSACTIONS", "SHOW LOCKS", "SHOW COMPACTIONS")
"""Listings of the metastore's transactions, locks and compactions: their ids, times and how many aborted
transactions there are follow from each metastore's history, not from the session; compared as the set of
their rows with every number taken out."""


def canonical(answer: dict, side: Side) -> Any:
    """A statement's outcome without what legitimately varies between two metastores."""
    if "error" in answer:
        error = answer["error"]
        return ("error", error["class"], error.get("sql_state"), error.get("error_code"))
    if "rows" not in answer:
        return ("update_count", answer.get("update_count"))

    def cell(value: str | None) -> str | None:
        if value is None:
            return None
        value = LONG_NUMBER.sub("<n>", DATE.sub("<date>", side.canonical_path(value)))
        return SIZE_PARAMETER.sub(r"\1=<n>", value)

    rows = []
    for row in answer["rows"]:
        row = [cell(value) for value in row]
        if len(row) == 3 and row[1] is not None and row[1].strip() in SIZES:  # DESCRIBE FORMATTED's parameters
            row[2] = "<n>"
        rows.append(tuple(row))
    if answer["statement"].upper().startswith(QUEUES):
        rows = sorted({tuple(re.sub(r"^\d+$", "<n>", v or "") for v in row) for row in rows})
    return ("rows", tuple(answer["columns"]), tuple(rows))


@dataclass
class Step:
    name: str
    outcome: Any
    raw: Any


def run_session(side: Side, parts: list[tuple[str, str] | None]) -> list[Step]:
    """The session's parts in order on ``side``: each part on a connection of its own user."""
    steps = []
    for part in parts:
        if part is None:
            files = side.files()
            steps.append(Step(FILES, files, files))
            continue
        user, script = part
        answers = hiveserver2.run_session(
            side.server.jdbc_url, script, engine=side.server.engine, user=getpass.getuser() if user == ADMIN else user
        )
        assert answers and "connect" not in answers[0], f"{side.name}: {user} could not connect: {answers}"
        steps += [Step(answer["statement"], canonical(answer, side), answer) for answer in answers]
    return steps


def listed(name: str) -> str | None:
    """The ``DIFFERENT`` entry naming the statement ``name`` (the longest that begins it), if any."""
    return max((key for key in DIFFERENT if name.startswith(key)), key=len, default=None)


# -- the servers ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sides(tmp_path_factory, mysql_server_url) -> Iterator[dict[str, Side]]:
    """This server on SQLite and Hive Metastore 4.0.1 on MariaDB, each with a HiveServer2 4.0.1 whose
    warehouse is the metastore's; both metastores, then both HiveServer2s, start side by side."""
    try:
        hiveserver2.install()
        hive4.install()
        hive_exec = maven_artifacts.fetch(hive4.HIVE_EXEC)
        hiveserver2.compile_session()
    except engines.EngineUnavailable as error:
        skip_or_fail(f"HiveServer2 4.0.1 or Hive Metastore 4.0.1 cannot be assembled here: {error}")
    work = tmp_path_factory.mktemp("hiveserver2")
    started = time.monotonic()
    with ExitStack() as stack, ThreadPoolExecutor(2) as pool:
        peer_started = pool.submit(
            stack.enter_context,
            hive_metastore(
                mysql_server_url,
                "4.0.1",
                extra_classpath=(str(hive_exec),),
                jvm_options=hive4.HIVE_EXEC_JVM_OPTIONS,
            ),
        )
        ours = stack.enter_context(served_metastore(work / "ours", f"sqlite:///{work}/catalog.db"))
        peer = peer_started.result()
        peer_warehouse = Path(peer.log_dir).parent / "warehouse"  # peer.py keeps its warehouse beside its logs
        for uri in (ours.uri, peer.uri):
            grant_admin_role(uri, getpass.getuser())

        def start(uri: str, warehouse: Path, name: str) -> Any:
            return stack.enter_context(
                hiveserver2.running_hiveserver2(uri, warehouse, work_dir=work / f"hs2-{name}", settings=SETTINGS)
            )

        peer_server = pool.submit(start, peer.uri, peer_warehouse, "peer")
        our_server = start(ours.uri, ours.warehouse, "ours")
        log.info("both metastores and HiveServer2s up in %.1f s", time.monotonic() - started)
        yield {
            "ours": Side("this server", our_server, ours.warehouse, ours),
            "peer": Side("Hive Metastore 4.0.1", peer_server.result(), peer_warehouse),
        }


@pytest.fixture(scope="module")
def sessions(sides) -> dict[str, list[Step]]:
    """The session on both sides at once (each side in order)."""
    parts = session_parts(SESSION.read_text())
    started = time.monotonic()
    with ThreadPoolExecutor(1) as pool:
        on_peer = pool.submit(run_session, sides["peer"], parts)
        ours = run_session(sides["ours"], parts)
        peer = on_peer.result()
    log.info("the session ran on both in %.1f s", time.monotonic() - started)
    for name, steps in (("ours", ours), ("peer", peer)):  # each answer as JdbcSession printed it, for a look
        raw = sides[name].server.log_dir.parent / "session.json"
        raw.write_text("".join(json.dumps(step.raw) + "\n" for step in steps))
        log.info("%s: the session's answers are in %s", sides[name].name, raw)
    assert [step.name for step in ours] == [step.name for step in peer]
    return {"ours": ours, "peer": peer}


def _show(ours: Step, peer: Step) -> str:
    return (
        f"{ours.name}:\n  this server:          {json.dumps(ours.raw)[:1500]}\n"
        f"  Hive Metastore 4.0.1: {json.dumps(peer.raw)[:1500]}"
    )


def test_session_answers_as_on_hive_metastore_4(sessions):
    """Every statement not in ``DIFFERENT`` has the same outcome on both metastores, and the warehouses hold
    the same folders with as many files."""
    differences = [
        _show(ours, peer)
        for ours, peer in zip(sessions["ours"], sessions["peer"], strict=True)
        if ours.outcome != peer.outcome and listed(ours.name) is None
    ]
    assert not differences, "\n".join(differences)


def test_every_listed_difference_still_differs(sessions):
    """Every ``DIFFERENT`` entry names statements of the session, and at least one of them still differs."""
    named = {key: [] for key in DIFFERENT}
    for ours, peer in zip(sessions["ours"], sessions["peer"], strict=True):
        if (key := listed(ours.name)) is not None:
            named[key].append(ours.outcome != peer.outcome)
    assert not [key for key, found in named.items() if not found], "DIFFERENT names no statement of the session"
    same = [key for key, found in named.items() if not any(found)]
    assert not same, f"these statements now answer the same on both metastores; take them out of DIFFERENT: {same}"


def test_session_did_its_work(sessions):
    """The session is not vacuous: on Hive Metastore 4 the pruned SELECT found its row and SHOW PARTITIONS
    answered rows, and both sides refused bob the SELECT that SQL-standard authorization does not grant him."""
    by_name = {step.name: step for step in sessions["peer"]}
    assert by_name["SELECT * FROM pt WHERE n = 4"].outcome[2] == (("1", "one", "c", "4", "2024-02-01"),)
    assert by_name["SHOW PARTITIONS pt"].outcome[0] == "rows"
    for side in ("ours", "peer"):
        bob = [step for step in sessions[side] if step.name == "SELECT * FROM hs2s.managed_t"]
        assert bob and bob[0].outcome[0] == "error" and bob[0].outcome[2] == "42000", bob
