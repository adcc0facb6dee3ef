"""Trino 476's Hive connector against the server and, side by side in the same Trino, against Apache Hive
Metastore 2.3.10: one session of DDL, DML, queries, statistics, procedures and ``sql-standard`` roles and
grants runs on both, and every answer (rows in a canonical form, error names, what is left on disk) must be
the same; all differences are listed before the test fails.

One Trino serves five catalogs: ``hive`` and ``hive_sec`` (``hive.security=sql-standard``) on this server
(on MariaDB), ``hive_ref`` and ``hive_ref_sec`` on Hive Metastore 2.3.10, and ``hive_ref4`` on Hive Metastore
4.0.1, against which the Hive connector session runs too. The catalogs keep Trino's
defaults (no metastore cache, 9 retries, 10 s read timeout) besides the file system and the procedures they
need. The server's DEBUG call log shows what Trino called for each statement: pruned SELECTs must be
answered by the pruning calls, transactional writes must take a transaction, a lock and a write id, and the
call sequences docs/engines.md gives ("What Trino 476 calls") are checked word for word. Transactional
tables run on this server only: Hive Metastore 2.3 has no write ids, which Trino's ACID writes need.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import hive, mysql_database, require_module
from tests.support.sql_engines import (
    EngineSide,
    ServedMetastore,
    engines,
    grant_admin_role,
    hive_metastore,
    hive_metastore_2_3,
    metastore_client,
    require_engine,
    served_metastore,
    sql_engines,
    starting_engine,
)

# Trino's and Hive Metastore's starts with the first test: past the default 600 s on a machine 3-4 times slower
pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]

trino = require_module("trino", extra="test")

log = logging.getLogger(__name__)

OURS, REF = "hive", "hive_ref"
SEC, SEC_REF = "hive_sec", "hive_ref_sec"
REF4 = "hive_ref4"  # the same session against Hive Metastore 4.0.1
CLASSIC_HIVE_4 = {"metastore.metadata.transformer.class": " "}
"""Hive Metastore 4 without its default transformer, which turns the managed tables of a client that states no
capabilities (Trino) into insert-only transactional or external ones: as a platform serving Trino sets it."""
OWNER, OTHER = "alice", "bob"  # alice holds the metastores' admin role (granted before the session)
PROCEDURES = {"hive.allow-register-partition-procedure": "true"}
SQL_STANDARD = {"hive.security": "sql-standard"}

# what a pruned SELECT may call to choose its partitions, and what would be a full listing
PRUNING_CALLS = {"get_partition_names_ps", "get_partitions_by_names"}
FULL_LISTINGS = {"get_partitions", "get_partition_names", "get_partitions_by_filter", "get_partitions_ps"}
BY_NAMES = re.compile(r"partitions of \S+ by \d+ names: (\d+)")  # the server's DEBUG line, partitions found

# docs/engines.md, "What Trino 476 calls": the exact sequences for three statements
CREATE_TABLE_CALLS = [
    "get_table_req",
    "get_database",
    "create_table",
    "get_table_req",
    "get_table_statistics_req",
    "alter_table_with_environment_context",
]
INSERT_NEW_PARTITION_CALLS = ["get_table_req", "get_partition", "add_partitions", "update_partition_column_statistics"]
PRUNED_SELECT_CALLS = ["get_table_req", "get_partition_names_ps", "get_partitions_by_names"]
# a transactional INSERT, in this order (the heartbeats of Trino's background thread fall in between)
TRANSACTIONAL_INSERT_CALLS = [
    "get_config_value",
    "open_txns",
    "lock",
    "allocate_table_write_ids",
    "get_valid_write_ids",
    "alter_table_req",
    "commit_txn",
]


@dataclass(frozen=True)
class Step:
    """A statement (``{c}``: the side's catalog, ``{loc}``: the side's folder for a located schema) or, with
    ``files``, a look at the side's folders. ``pruned``: how many partitions this server must hand out,
    chosen with the pruning calls (its log: ``partitions of <table> by <n> names``), never a full listing."""

    sql: str = ""
    files: bool = False
    pruned: int = 0

    @property
    def name(self) -> str:
        return "files on disk" if self.files else self.sql


@dataclass
class Outcome:
    answer: Any
    calls: list[str] = field(default_factory=list)
    log: str = ""  # this server's log of the step
    seconds: float = 0.0


@dataclass
class Trino:
    engine: Any
    ours: ServedMetastore
    sides: dict[str, EngineSide]

    def cursor(self, user: str, catalog: str) -> Any:
        return trino.dbapi.connect(host="127.0.0.1", port=self.engine.port, user=user, catalog=catalog).cursor()


def _answer(cursor: Any, sql: str, side: EngineSide) -> Any:
    """Rows sorted, in canonical form; or the error's name."""
    try:
        cursor.execute(sql)
        rows = cursor.fetchall()
    except trino.exceptions.TrinoQueryError as error:
        return ("error", error.error_name)
    return sorted((tuple(side.canonical(v) for v in row) for row in rows), key=repr)


def _run(
    trino_: Trino, side: EngineSide, steps: Sequence[Step], user: str = OWNER, cursor: Any = None
) -> list[Outcome]:
    """``steps`` in order on ``side``, on one connection of ``user`` (SET ROLE holds for the rest)."""
    cursor = cursor or trino_.cursor(user, side.catalog)
    outcomes = []
    for step in steps:
        mark = side.served.log_mark() if side.served else 0
        started = time.monotonic()
        if step.files:
            answer: Any = side.files()
        else:
            answer = _answer(cursor, step.sql.format(c=side.catalog, loc=f"file://{side.located}"), side)
        calls, text = (side.served.calls(mark), side.served.log_text()[mark:]) if side.served else ([], "")
        outcomes.append(Outcome(answer, calls, text, time.monotonic() - started))
    return outcomes


def _differences(trino_: Trino, ours: str, ref: str, sessions: Sequence[tuple[str, Sequence[Step]]]) -> list[str]:
    """Each ``(user, steps)`` session on both sides at once (each side in order); every difference in the
    answers, and every pruned step this server answered by listing all partitions."""
    started = time.monotonic()
    differences = []
    for user, steps in sessions:
        with ThreadPoolExecutor(1) as pool:
            on_ref = pool.submit(_run, trino_, trino_.sides[ref], steps, user)
            found = _run(trino_, trino_.sides[ours], steps, user)
            expected = on_ref.result()
        for step, mine, theirs in zip(steps, found, expected, strict=True):
            if mine.answer != theirs.answer:
                differences.append(
                    f"[{user}] {step.name}:\n  this server:    {mine.answer!r}\n  Hive Metastore: {theirs.answer!r}"
                )
            handed_out = [int(n) for n in BY_NAMES.findall(mine.log)]
            if step.pruned and (
                not PRUNING_CALLS <= set(mine.calls) or FULL_LISTINGS & set(mine.calls) or handed_out != [step.pruned]
            ):
                differences.append(
                    f"[{user}] {step.name}: not pruned to {step.pruned} partitions by the metastore, calls "
                    f"{mine.calls}, partitions by names {handed_out}"
                )
        slowest = max(zip(steps, found, expected), key=lambda s: max(s[1].seconds, s[2].seconds))
        log.info("slowest step %r: %.1f s, %.1f s", slowest[0].name, slowest[1].seconds, slowest[2].seconds)
    log.info("%s and %s compared in %.1f s", ours, ref, time.monotonic() - started)
    return differences


# -- the engine ---------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def trino_hive(tmp_path_factory, mysql_server_url) -> Iterator[Trino]:
    """Trino with the four catalogs, started while the metastores start (it reaches them only when queried).
    This server runs with the located schema's parent folder as a ``--data-root``, so that it deletes what
    is dropped there as Hive Metastore does (by default it deletes only inside its warehouse)."""
    require_engine(engines.TRINO)
    work = tmp_path_factory.mktemp("trino-hive")
    # the located schema's folder (made by the metastore, deleted with the schema) and its parent
    located_ours, located_ref = work / "located-ours" / "s2", work / "located-ref" / "s2"
    located_ref4 = work / "located-ref4" / "s2"
    ours_port, ref_port, ref4_port = sql_engines.free_port(), sql_engines.free_port(), sql_engines.free_port()
    ours_uri, ref_uri = f"thrift://127.0.0.1:{ours_port}", f"thrift://127.0.0.1:{ref_port}"
    ref4_uri = f"thrift://127.0.0.1:{ref4_port}"
    catalogs = {
        OURS: sql_engines.trino_hive_catalog(ours_uri, **PROCEDURES),
        REF: sql_engines.trino_hive_catalog(ref_uri, **PROCEDURES),
        REF4: sql_engines.trino_hive_catalog(ref4_uri, **PROCEDURES),
        SEC: sql_engines.trino_hive_catalog(ours_uri, **SQL_STANDARD),
        SEC_REF: sql_engines.trino_hive_catalog(ref_uri, **SQL_STANDARD),
    }
    started = time.monotonic()
    with ExitStack() as stack:
        starting = stack.enter_context(starting_engine(engines.TRINO, catalogs, work / "trino"))
        db_url = stack.enter_context(mysql_database(mysql_server_url))
        ours = stack.enter_context(
            served_metastore(work / "ours", db_url, "--data-root", f"file://{located_ours.parent}", port=ours_port)
        )
        ref: Any = stack.enter_context(hive_metastore_2_3(mysql_server_url, port=ref_port))
        ref4: Any = stack.enter_context(
            hive_metastore(mysql_server_url, "4.0.1", port=ref4_port, settings=CLASSIC_HIVE_4)
        )
        for uri in (ours_uri, ref_uri, ref4_uri):
            grant_admin_role(uri, OWNER)
        engine = starting.result()
        log.info("Trino and both metastores up in %.1f s", time.monotonic() - started)
        ref_warehouse = Path(ref.log_dir).parent / "warehouse"  # peer.py keeps its warehouse beside its logs
        sides = {
            OURS: EngineSide(OURS, ours.warehouse, located_ours, ours),
            SEC: EngineSide(SEC, ours.warehouse, located_ours, ours),
            REF: EngineSide(REF, ref_warehouse, located_ref),
            SEC_REF: EngineSide(SEC_REF, ref_warehouse, located_ref),
            REF4: EngineSide(REF4, Path(ref4.log_dir).parent / "warehouse", located_ref4),
        }
        yield Trino(engine, ours, sides)


# -- the Hive connector session -------------------------------------------------------------------------

SALES = "{c}.s1.sales"
SESSION = [
    Step("SHOW SCHEMAS FROM {c}"),
    Step("CREATE SCHEMA {c}.s1"),
    Step("CREATE SCHEMA {c}.s2 WITH (location = '{loc}')"),
    Step("SHOW SCHEMAS FROM {c}"),
    Step("SHOW CREATE SCHEMA {c}.s1"),
    Step("SHOW CREATE SCHEMA {c}.s2"),
    Step(
        f"CREATE TABLE {SALES} (id bigint, amount double, note varchar, region varchar, yr integer, day date) "
        "WITH (format = 'PARQUET', partitioned_by = ARRAY['region', 'yr', 'day'])"
    ),
    Step(
        f"INSERT INTO {SALES} VALUES (1, 1.5, 'a', 'eu', 2024, DATE '2024-01-01'), "
        "(2, 2.5, 'b', 'us', 2024, DATE '2024-01-02'), (3, 3.5, NULL, 'eu', 2025, DATE '2025-03-01')"
    ),
    Step(
        f"INSERT INTO {SALES} VALUES (4, 4.5, 'd', 'eu', 2024, DATE '2024-01-01'), "
        "(5, 5.5, 'e', 'us', 2025, DATE '2025-06-30')"
    ),
    Step(files=True),
    Step(f"SELECT id, note FROM {SALES} WHERE region = 'eu' AND yr = 2024", pruned=1),
    Step(f"SELECT id FROM {SALES} WHERE day = DATE '2025-03-01'", pruned=1),
    Step(f"SELECT count(*), sum(amount) FROM {SALES} WHERE yr = 2025", pruned=2),
    Step('SELECT * FROM {c}.s1."sales$partitions"'),
    Step("SHOW TABLES FROM {c}.s1"),
    Step(f"SHOW COLUMNS FROM {SALES}"),
    Step(f"SHOW CREATE TABLE {SALES}"),
    Step(
        "CREATE TABLE {c}.s2.events (id integer, name varchar, kind varchar) "
        "WITH (format = 'ORC', bucketed_by = ARRAY['id'], bucket_count = 4)"
    ),
    Step("INSERT INTO {c}.s2.events VALUES (1, 'x', 'a'), (2, 'y', 'b'), (3, 'z', 'a')"),
    Step("SELECT * FROM {c}.s2.events"),
    Step("SHOW CREATE TABLE {c}.s2.events"),
    Step(f"CREATE TABLE {{c}}.s1.eu AS SELECT id, amount, day FROM {SALES} WHERE region = 'eu'"),
    Step("SELECT * FROM {c}.s1.eu"),
    # column statistics written by ANALYZE and read back by SHOW STATS: equal on both metastores
    Step(f"ANALYZE {SALES}"),
    Step(f"SHOW STATS FOR {SALES}"),
    Step(f"SHOW STATS FOR (SELECT * FROM {SALES} WHERE region = 'eu')"),
    Step("ANALYZE {c}.s2.events"),
    Step("SHOW STATS FOR {c}.s2.events"),
    Step("SHOW STATS FOR {c}.s1.eu"),
    Step("ALTER TABLE {c}.s2.events ADD COLUMN score double"),
    Step("ALTER TABLE {c}.s2.events RENAME COLUMN name TO label"),
    Step("ALTER TABLE {c}.s2.events DROP COLUMN kind"),
    Step("SHOW COLUMNS FROM {c}.s2.events"),
    Step("SELECT * FROM {c}.s2.events"),
    Step("ALTER TABLE {c}.s1.eu RENAME TO {c}.s1.eu2"),
    Step("SHOW TABLES FROM {c}.s1"),
    Step("SELECT count(*) FROM {c}.s1.eu2"),
    Step(f"DELETE FROM {SALES} WHERE region = 'us' AND yr = 2024"),
    Step(f"DELETE FROM {SALES} WHERE day = DATE '2025-03-01'"),
    Step(f"DELETE FROM {SALES} WHERE note = 'a'"),  # not whole partitions: refused by Trino
    Step(f"SELECT * FROM {SALES}"),
    Step('SELECT * FROM {c}.s1."sales$partitions"'),
    Step(files=True),
    Step(f"CREATE VIEW {{c}}.s1.totals AS SELECT region, sum(amount) AS total FROM {SALES} GROUP BY region"),
    Step("SELECT * FROM {c}.s1.totals"),
    Step("SHOW CREATE VIEW {c}.s1.totals"),
    Step(
        "SELECT table_schema, table_name, table_type FROM {c}.information_schema.tables WHERE table_schema <> 'information_schema'"
    ),
    Step("SELECT table_name, column_name, data_type FROM {c}.information_schema.columns WHERE table_schema = 's1'"),
    Step("SELECT table_name, view_definition FROM {c}.information_schema.views WHERE table_schema = 's1'"),
    Step(
        "SELECT schema_name, table_name, comment FROM system.metadata.table_comments "
        "WHERE catalog_name = '{c}' AND schema_name IN ('s1', 's2')"
    ),
    # the procedures: partitions unregistered, found again on disk, registered by hand
    Step("CREATE TABLE {c}.s1.parts (id integer, p varchar) WITH (format = 'PARQUET', partitioned_by = ARRAY['p'])"),
    Step("INSERT INTO {c}.s1.parts VALUES (1, 'a'), (2, 'b'), (3, 'c')"),
    Step("CALL {c}.system.unregister_partition('s1', 'parts', ARRAY['p'], ARRAY['a'])"),
    Step("CALL {c}.system.unregister_partition('s1', 'parts', ARRAY['p'], ARRAY['b'])"),
    Step('SELECT * FROM {c}.s1."parts$partitions"'),
    Step("CALL {c}.system.sync_partition_metadata('s1', 'parts', 'ADD')"),
    Step('SELECT * FROM {c}.s1."parts$partitions"'),
    Step("CALL {c}.system.unregister_partition('s1', 'parts', ARRAY['p'], ARRAY['b'])"),
    Step("CALL {c}.system.register_partition('s1', 'parts', ARRAY['p'], ARRAY['b'])"),
    Step("SELECT * FROM {c}.s1.parts"),
    Step("SELECT * FROM {c}.s1.parts WHERE p = 'b'", pruned=1),
    Step("DROP TABLE {c}.s1.parts"),
    Step("DROP VIEW {c}.s1.totals"),
    Step("DROP TABLE {c}.s1.eu2"),
    Step(f"DROP TABLE {SALES}"),
    Step("DROP SCHEMA {c}.s2"),  # not empty: refused
    Step("DROP TABLE {c}.s2.events"),
    Step("DROP SCHEMA {c}.s1"),
    Step("DROP SCHEMA {c}.s2"),
    Step("SHOW SCHEMAS FROM {c}"),
    Step(files=True),
]


def test_hive_session_matches_hive_metastore(trino_hive):
    """The session on this server and on Hive Metastore 2.3.10 gives the same answers, pruned SELECTs are
    answered by the pruning calls, and dropped managed tables and schemas leave nothing on disk."""
    differences = _differences(trino_hive, OURS, REF, [(OWNER, SESSION)])
    assert not differences, "\n".join(differences)
    assert trino_hive.sides[OURS].files() == [("<warehouse>/.", 0)]


HIVE_4_DIFFERENT = {
    "ALTER TABLE {c}.s2.events DROP COLUMN kind": "Hive 4 refuses it (HIVE_METASTORE_ERROR): dropping a column "
    "before others moves their types, which hive.metastore.disallow.incompatible.col.type.changes refuses on "
    "4.0.1 for every table; 2.3.10 and this server take it",
    "SHOW COLUMNS FROM {c}.s2.events": "the column is still there on Hive 4",
    "SELECT * FROM {c}.s2.events": "the same",
}


def test_hive_session_matches_hive_metastore_4(trino_hive):
    """The same session against Hive Metastore 4.0.1, without its default transformer (``CLASSIC_HIVE_4``):
    Trino's calls exist in both, and the answers are the same but for ``HIVE_4_DIFFERENT``."""
    differences = _differences(trino_hive, OURS, REF4, [(OWNER, SESSION)])
    expected = {f"[{OWNER}] {step}:" for step in HIVE_4_DIFFERENT}
    assert {d.split("\n")[0] for d in differences} == expected, "\n".join(differences)
    assert trino_hive.sides[OURS].files() == [("<warehouse>/.", 0)]


# -- sql-standard: roles and grants as two users ----------------------------------------------------------

T = "{c}.sec.t"
SECURITY = [
    (
        OWNER,
        [
            Step("SHOW CURRENT ROLES FROM {c}"),
            Step("SHOW ROLES FROM {c}"),  # refused without the admin role
            Step("CREATE SCHEMA {c}.sec"),  # refused without the admin role
            Step("SET ROLE admin IN {c}"),
            Step("SHOW CURRENT ROLES FROM {c}"),
            Step("CREATE SCHEMA {c}.sec"),
            Step(f"CREATE TABLE {T} (id integer, v varchar)"),
            Step(f"INSERT INTO {T} VALUES (1, 'a')"),
            Step("CREATE ROLE analyst IN {c}"),
            Step("SHOW ROLES FROM {c}"),
            Step(f"GRANT analyst TO USER {OTHER} IN {{c}}"),
            Step(f"GRANT SELECT ON {T} TO ROLE analyst"),
            Step(f"GRANT INSERT ON {T} TO USER {OTHER} WITH GRANT OPTION"),
            Step(f"SHOW GRANTS ON {T}"),
            Step("SHOW ROLE GRANTS FROM {c}"),
        ],
    ),
    (
        OTHER,
        [
            Step("SHOW CURRENT ROLES FROM {c}"),
            Step("SHOW ROLE GRANTS FROM {c}"),
            Step("SET ROLE analyst IN {c}"),
            Step("SHOW CURRENT ROLES FROM {c}"),
            Step(f"SELECT * FROM {T}"),
            Step(f"INSERT INTO {T} VALUES (2, 'b')"),
            Step(f"SHOW GRANTS ON {T}"),
            Step(f"DELETE FROM {T}"),  # refused
            Step(f"DROP TABLE {T}"),  # refused
            Step("CREATE ROLE intruder IN {c}"),  # refused
            Step("SET ROLE admin IN {c}"),  # refused: not a member
            Step("SET ROLE NONE IN {c}"),
            Step(f"SELECT count(*) FROM {T}"),  # the role's SELECT is gone with the role
        ],
    ),
    (
        OWNER,
        [
            Step("SET ROLE admin IN {c}"),
            Step(f"REVOKE SELECT ON {T} FROM ROLE analyst"),
            Step(f"REVOKE GRANT OPTION FOR INSERT ON {T} FROM USER {OTHER}"),
            Step(f"SHOW GRANTS ON {T}"),
            Step(f"REVOKE analyst FROM USER {OTHER} IN {{c}}"),
            Step("DROP ROLE analyst IN {c}"),
            Step("SHOW ROLES FROM {c}"),
        ],
    ),
    (
        OTHER,
        [
            Step("SHOW ROLE GRANTS FROM {c}"),
            Step(f"SELECT * FROM {T}"),  # refused
            Step(f"SHOW GRANTS ON {T}"),
        ],
    ),
    (
        OWNER,
        [
            Step("SET ROLE admin IN {c}"),
            Step(f"DROP TABLE {T}"),
            Step("DROP SCHEMA {c}.sec"),
        ],
    ),
]


def test_sql_standard_roles_and_grants_match_hive_metastore(trino_hive):
    """``hive.security=sql-standard``: the owner and another user see the same roles, grants and refusals
    on both metastores, which store what Trino decides with."""
    mark = trino_hive.ours.log_mark()
    differences = _differences(trino_hive, SEC, SEC_REF, SECURITY)
    assert not differences, "\n".join(differences)
    calls = set(trino_hive.ours.calls(mark))
    assert {"create_role", "drop_role", "grant_revoke_role", "grant_revoke_privileges", "list_privileges"} <= calls
    assert "get_role_grants_for_principal" in calls


# -- this server only -----------------------------------------------------------------------------------


def _calls_of(trino_: Trino, cursor: Any, sql: str) -> tuple[Any, list[str]]:
    mark = trino_.ours.log_mark()
    return _answer(cursor, sql, trino_.sides[OURS]), trino_.ours.calls(mark)


def _in_order(calls: list[str], expected: list[str]) -> bool:
    """``expected`` is a subsequence of ``calls``."""
    remaining = iter(calls)
    return all(name in remaining for name in expected)


def test_transactional_tables(trino_hive):
    """Trino writes ``transactional=true`` ORC tables through this server: each INSERT, UPDATE and SELECT
    runs in a metastore transaction with its lock (and, writing, a write id); none is left open after. An
    INSERT into a partitioned one also names the partitions it wrote with ``add_dynamic_partitions`` (Hive 3's
    request layout) before it commits, and its rows read back."""
    cursor = trino_hive.cursor(OWNER, OURS)
    assert _answer(cursor, "CREATE SCHEMA hive.acid", trino_hive.sides[OURS]) == []
    _answer(
        cursor,
        "CREATE TABLE hive.acid.t (id integer, name varchar) WITH (format = 'ORC', transactional = true)",
        trino_hive.sides[OURS],
    )
    rows, calls = _calls_of(trino_hive, cursor, "INSERT INTO hive.acid.t VALUES (1, 'a'), (2, 'b')")
    assert rows == [(2,)]
    assert _in_order(calls, TRANSACTIONAL_INSERT_CALLS), calls
    _, calls = _calls_of(trino_hive, cursor, "INSERT INTO hive.acid.t VALUES (3, 'c')")
    assert _in_order(calls, TRANSACTIONAL_INSERT_CALLS), calls
    rows, calls = _calls_of(trino_hive, cursor, "UPDATE hive.acid.t SET name = 'z' WHERE id = 1")
    assert rows == [(1,)] and _in_order(calls, ["open_txns", "lock", "allocate_table_write_ids", "commit_txn"]), calls
    rows, calls = _calls_of(trino_hive, cursor, "SELECT * FROM hive.acid.t")
    assert rows == [(1, "z"), (2, "b"), (3, "c")]
    assert _in_order(calls, ["open_txns", "lock", "get_valid_write_ids", "commit_txn"]), calls
    assert "allocate_table_write_ids" not in calls

    _answer(
        cursor,
        "CREATE TABLE hive.acid.tp (id integer, p varchar) "
        "WITH (format = 'ORC', transactional = true, partitioned_by = ARRAY['p'])",
        trino_hive.sides[OURS],
    )
    partitioned_insert = ["open_txns", "lock", "allocate_table_write_ids", "add_dynamic_partitions", "commit_txn"]
    rows, calls = _calls_of(trino_hive, cursor, "INSERT INTO hive.acid.tp VALUES (1, 'a'), (2, 'b'), (3, 'a')")
    assert rows == [(3,)] and _in_order(calls, partitioned_insert) and "abort_txn" not in calls, (rows, calls)
    rows, calls = _calls_of(trino_hive, cursor, "INSERT INTO hive.acid.tp VALUES (4, 'b'), (5, 'c')")
    assert rows == [(2,)] and _in_order(calls, partitioned_insert) and "abort_txn" not in calls, (rows, calls)
    assert _answer(cursor, "SELECT * FROM hive.acid.tp", trino_hive.sides[OURS]) == [
        (1, "a"),
        (2, "b"),
        (3, "a"),
        (4, "b"),
        (5, "c"),
    ]
    assert _answer(cursor, 'SELECT * FROM hive.acid."tp$partitions"', trino_hive.sides[OURS]) == [
        ("a",),
        ("b",),
        ("c",),
    ]
    assert _answer(cursor, "SELECT id FROM hive.acid.tp WHERE p = 'b'", trino_hive.sides[OURS]) == [(2,), (4,)]
    client = metastore_client(trino_hive.ours.uri)
    try:
        assert client.show_locks(hive.ShowLocksRequest()).locks == []
        assert hive.TxnState.OPEN not in [t.state for t in client.get_open_txns_info().open_txns]
    finally:
        client.close()
    for sql in ("DROP TABLE hive.acid.t", "DROP TABLE hive.acid.tp", "DROP SCHEMA hive.acid"):
        assert _answer(cursor, sql, trino_hive.sides[OURS]) == []
    assert not (trino_hive.ours.warehouse / "acid.db").exists()


def test_call_sequences(trino_hive):
    """The calls docs/engines.md lists for CREATE TABLE, an INSERT into a new partition and a pruned
    SELECT, exactly."""
    cursor = trino_hive.cursor(OWNER, OURS)
    side = trino_hive.sides[OURS]
    _answer(cursor, "CREATE SCHEMA hive.seq", side)
    _, calls = _calls_of(
        trino_hive,
        cursor,
        "CREATE TABLE hive.seq.t (id bigint, p varchar) WITH (format = 'PARQUET', partitioned_by = ARRAY['p'])",
    )
    assert calls == CREATE_TABLE_CALLS
    _, calls = _calls_of(trino_hive, cursor, "INSERT INTO hive.seq.t VALUES (1, 'a')")
    assert calls == INSERT_NEW_PARTITION_CALLS
    _answer(cursor, "INSERT INTO hive.seq.t VALUES (2, 'b')", side)
    rows, calls = _calls_of(trino_hive, cursor, "SELECT id FROM hive.seq.t WHERE p = 'b'")
    assert rows == [(2,)] and calls == PRUNED_SELECT_CALLS
    log.info("DEBUG lines of the pruned SELECT: %s", calls)
    for sql in ("DROP TABLE hive.seq.t", "DROP SCHEMA hive.seq"):
        _answer(cursor, sql, side)
