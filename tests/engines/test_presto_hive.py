"""Presto 0.287's Hive connector (``hive-hadoop2``) against the server and, side by side in the same Presto,
against Apache Hive Metastore 2.3.10: one session of DDL, DML, queries, statistics, procedures and
``sql-standard`` roles and grants runs on both, and every answer (rows in a canonical form, error names,
what is left on disk) must be the same.

One Presto serves four catalogs: ``hive`` at this server on SQLite (the Trino session covers MariaDB),
``hive_sec`` (``hive.security=sql-standard``) at a second one on PostgreSQL, ``hive_ref`` and
``hive_sec_ref`` at Hive Metastore 2.3.10. Both sessions run at once, each on both sides at once, before the
tests look at what they found. Each server's DEBUG log says which calls each statement made and how the
partitions were chosen; the call sequences docs/engines.md gives for Presto are checked here.
"""

from __future__ import annotations

import logging
import re
import shutil
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import postgresql_database, require_module
from tests.support.sql_engines import (
    EngineSide,
    engines,
    grant_admin_role,
    hive_metastore_2_3,
    require_engine,
    served_metastore,
    sql_engines,
    starting_engine,
)

# Presto's and Hive Metastore's starts with the first test: past the default 600 s on a machine 3-4 times slower
pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]

prestodb = require_module("prestodb", extra="test")

log = logging.getLogger(__name__)

OURS, REF = "hive", "hive_ref"
SEC, SEC_REF = "hive_sec", "hive_sec_ref"
ADMIN = "admin"  # the Presto user holding the metastore's admin role (granted before the session)
# Presto's legacy Hive security allows none of these unless the catalog says so
LEGACY_ALLOWED = {
    f"hive.allow-{change}": "true"
    for change in ("add-column", "rename-column", "drop-column", "rename-table", "drop-table")
}
SQL_STANDARD = {"hive.security": "sql-standard"}

SCHEMAS = ("sales", "located", "secure")  # the schemas the sessions make (qualified names get <catalog>.)
PRUNED_NAMES = re.compile(r"partition names of (\S+) matching (\[.*?\]|None): (\d+)")
BY_NAMES = re.compile(r"partitions of (\S+) by (\d+) names: (\d+)")


@dataclass
class Presto:
    engine: Any
    sides: dict[str, EngineSide]


@dataclass(frozen=True)
class Step:
    """A statement (``{c}``: the side's catalog, ``{loc}``: its folder for a located schema), run as
    ``user`` with ``role`` selected in the catalog, or a look at the side's files (``check``)."""

    name: str
    sql: str = ""
    user: str = "alice"
    role: str | None = None  # Presto's selected role for the catalog: ``ROLE{admin}``, ``NONE``
    check: Callable[[EngineSide], Any] | None = None
    keep: Callable[[tuple], bool] | None = None  # the rows compared (default: all)


@dataclass
class Outcome:
    answer: Any
    seconds: float
    calls: list[str] = field(default_factory=list)
    log: str = ""


def _query(presto: Presto, side: EngineSide, step: Step) -> Any:
    headers = {"X-Presto-Role": f"{side.catalog}={step.role}"} if step.role else None
    connection = prestodb.dbapi.connect(
        host="127.0.0.1", port=presto.engine.port, user=step.user, catalog=side.catalog, http_headers=headers
    )
    cursor = connection.cursor()
    try:
        cursor.execute(step.sql.format(c=side.catalog, loc=f"file:{side.located}"))
        rows = [tuple(side.canonical(v) for v in row) for row in cursor.fetchall()]
        rows = [row for row in rows if step.keep is None or step.keep(row)]
    except Exception as error:  # the error's name is the answer
        name = getattr(error, "error_name", None)
        if name is None:
            raise
        return ("error", name)
    return sorted(rows, key=repr)


def _run(presto: Presto, side: EngineSide, steps: Sequence[Step]) -> dict[str, Outcome]:
    outcomes = {}
    for step in steps:
        mark = side.served.log_mark() if side.served else 0
        started = time.monotonic()
        answer = step.check(side) if step.check else _query(presto, side, step)
        outcome = Outcome(answer, time.monotonic() - started)
        if side.served:
            outcome.log = side.served.log_text()[mark:]
            outcome.calls = side.served.calls(mark)
        outcomes[step.name] = outcome
    return outcomes


@dataclass
class Compared:
    """What a session found on this server, and every step whose answer differed from Hive Metastore's."""

    found: dict[str, Outcome]
    differences: list[str]


def _differential(presto: Presto, ours: str, ref: str, steps: Sequence[Step]) -> Compared:
    """``steps`` on both sides at once (each side in order), compared step by step."""
    started = time.monotonic()
    with ThreadPoolExecutor(1) as pool:
        on_ref = pool.submit(_run, presto, presto.sides[ref], steps)
        found = _run(presto, presto.sides[ours], steps)
        expected = on_ref.result()
    log.info("%d steps on %s and %s in %.1f s", len(steps), ours, ref, time.monotonic() - started)
    for name, outcomes in ((ours, found), (ref, expected)):
        slowest = sorted(outcomes.items(), key=lambda item: -item[1].seconds)[:5]
        log.info(
            "%s: %.1f s in all; slowest %s",
            name,
            sum(o.seconds for o in outcomes.values()),
            ", ".join(f"{step} {o.seconds:.1f} s" for step, o in slowest),
        )
    differences = [
        f"{step.name}: this server {found[step.name].answer!r}, Hive Metastore {expected[step.name].answer!r}"
        for step in steps
        if found[step.name].answer != expected[step.name].answer
    ]
    return Compared(found, differences)


# -- the engine ---------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def presto(tmp_path_factory, mysql_server_url, postgresql_server_url) -> Iterator[Presto]:
    """Presto with the four catalogs, started while the metastores start (it reaches them only when
    queried)."""
    require_engine(engines.PRESTO)
    work = tmp_path_factory.mktemp("presto-hive")
    ours_port, sec_port, ref_port = (sql_engines.free_port() for _ in range(3))
    ours_uri, sec_uri, ref_uri = (f"thrift://127.0.0.1:{port}" for port in (ours_port, sec_port, ref_port))
    catalogs = {
        OURS: sql_engines.presto_hive_catalog(ours_uri, **LEGACY_ALLOWED),
        REF: sql_engines.presto_hive_catalog(ref_uri, **LEGACY_ALLOWED),
        SEC: sql_engines.presto_hive_catalog(sec_uri, **SQL_STANDARD),
        SEC_REF: sql_engines.presto_hive_catalog(ref_uri, **SQL_STANDARD),
    }
    started = time.monotonic()
    with ExitStack() as stack:
        starting = stack.enter_context(starting_engine(engines.PRESTO, catalogs, work / "presto"))
        ours = stack.enter_context(served_metastore(work / "ours", f"sqlite:///{work}/catalog.db", port=ours_port))
        sec_db = stack.enter_context(postgresql_database(postgresql_server_url))
        sec = stack.enter_context(served_metastore(work / "sec", sec_db, port=sec_port))
        ref = stack.enter_context(hive_metastore_2_3(mysql_server_url, port=ref_port))
        for uri in (sec_uri, ref_uri):
            grant_admin_role(uri, ADMIN, grant_option=True)
        engine = starting.result()
        log.info("Presto and the metastores up in %.1f s", time.monotonic() - started)
        ref_warehouse = Path(ref.log_dir).parent / "warehouse"
        sides = {
            OURS: EngineSide(OURS, ours.warehouse, work / "located-ours", ours, schemas=SCHEMAS),
            SEC: EngineSide(SEC, sec.warehouse, work / "located-sec", sec, schemas=SCHEMAS),
            REF: EngineSide(REF, ref_warehouse, work / "located-ref", schemas=SCHEMAS),
            SEC_REF: EngineSide(SEC_REF, ref_warehouse, work / "located-ref", schemas=SCHEMAS),
        }
        yield Presto(engine, sides)


@pytest.fixture(scope="module")
def sessions(presto) -> dict[str, Compared]:
    """The Hive connector session and the ``sql-standard`` one, at once (each against both metastores)."""
    started = time.monotonic()
    with ThreadPoolExecutor(1) as pool:
        security = pool.submit(_differential, presto, SEC, SEC_REF, SECURITY)
        session = _differential(presto, OURS, REF, SESSION)
        compared = {OURS: session, SEC: security.result()}
    log.info("both sessions in %.1f s", time.monotonic() - started)
    return compared


# -- the Hive connector session -------------------------------------------------------------------------


def _exists(*parts: str) -> Callable[[EngineSide], bool]:
    return lambda side: side.table_dir(*parts[:2]).joinpath(*parts[2:]).exists()


def _copy_partition(side: EngineSide) -> bool:
    """A partition folder made beside the metastore's back, for ``sync_partition_metadata`` to add."""
    table = side.table_dir("sales", "orders")
    shutil.copytree(table / "ds=2024-01-02" / "hr=1", table / "ds=2024-01-04" / "hr=4")
    return True


def _remove_partition(side: EngineSide) -> bool:
    """A partition folder deleted beside the metastore's back, for ``sync_partition_metadata`` to drop."""
    shutil.rmtree(side.table_dir("sales", "orders") / "ds=2024-01-02")
    return True


ORDERS = "{c}.sales.orders"
SECURE = SCHEMAS[2]  # the sql-standard session's schema: listed too at the Hive Metastore both sessions share


def _not_secure(row: tuple) -> bool:
    return row[0] != SECURE


SESSION = [
    Step("show schemas (new catalog)", "SHOW SCHEMAS FROM {c}", keep=_not_secure),
    Step("create schema", "CREATE SCHEMA {c}.sales"),
    Step("create schema with location", "CREATE SCHEMA {c}.located WITH (location = '{loc}')"),
    Step("show schemas", "SHOW SCHEMAS FROM {c}", keep=_not_secure),
    Step(
        "create Parquet table partitioned on varchar and integer",
        f"CREATE TABLE {ORDERS} (id bigint, item varchar, price double, qty integer, ds varchar, hr integer) "
        "WITH (format = 'PARQUET', partitioned_by = ARRAY['ds', 'hr'])",
    ),
    Step(
        "insert into new partitions",
        f"INSERT INTO {ORDERS} VALUES (1, 'apple', 1.5, 3, '2024-01-01', 1), (2, 'pear', 2.25, 1, '2024-01-01', 2), "
        "(3, 'fig', 4.0, 2, '2024-01-02', 1)",
    ),
    Step(
        "insert into an existing and a new partition",
        f"INSERT INTO {ORDERS} VALUES (4, 'kiwi', 0.5, 10, '2024-01-01', 1), (5, 'plum', 3.0, 1, '2024-01-03', 3)",
    ),
    Step("select pruned on the first key", f"SELECT id, item FROM {ORDERS} WHERE ds = '2024-01-02'"),
    Step("select pruned on the second key", f"SELECT id FROM {ORDERS} WHERE hr = 1"),
    Step("select pruned on both keys", f"SELECT id FROM {ORDERS} WHERE ds = '2024-01-01' AND hr = 2"),
    Step("select pruned on a range", f"SELECT id FROM {ORDERS} WHERE ds >= '2024-01-02'"),
    Step(
        "create ORC table partitioned on date and boolean",
        "CREATE TABLE {c}.sales.events (id bigint, at timestamp, amount decimal(10, 2), day date, ok boolean) "
        "WITH (format = 'ORC', partitioned_by = ARRAY['day', 'ok'])",
    ),
    Step(
        "insert into ORC table",
        "INSERT INTO {c}.sales.events VALUES (1, TIMESTAMP '2024-01-01 10:00:00', 12.50, DATE '2024-01-01', true), "
        "(2, TIMESTAMP '2024-01-02 11:30:00', 7.25, DATE '2024-01-02', false)",
    ),
    Step("select ORC pruned on a date", "SELECT id, amount FROM {c}.sales.events WHERE day = DATE '2024-01-02'"),
    Step(
        "create bucketed table as select",
        "CREATE TABLE {c}.sales.bucketed WITH (format = 'ORC', bucketed_by = ARRAY['id'], bucket_count = 4, "
        f"partitioned_by = ARRAY['ds']) AS SELECT id, item, ds FROM {ORDERS}",
    ),
    Step("insert into bucketed table", "INSERT INTO {c}.sales.bucketed VALUES (9, 'lime', '2024-02-01')"),
    Step("select bucketed table", "SELECT * FROM {c}.sales.bucketed"),
    Step("show create bucketed table", "SHOW CREATE TABLE {c}.sales.bucketed"),
    Step(
        "create table as select",
        f"CREATE TABLE {{c}}.sales.summary AS SELECT ds, count(*) AS n, sum(price) AS total FROM {ORDERS} GROUP BY ds",
    ),
    Step("analyze partitioned table", f"ANALYZE {ORDERS}"),
    Step("show stats", f"SHOW STATS FOR {ORDERS}"),
    Step("show stats of pruned partitions", f"SHOW STATS FOR (SELECT * FROM {ORDERS} WHERE ds = '2024-01-01')"),
    Step("analyze table", "ANALYZE {c}.sales.summary"),
    Step("show stats of table", "SHOW STATS FOR {c}.sales.summary"),
    Step("add column", "ALTER TABLE {c}.sales.summary ADD COLUMN note varchar"),
    Step("rename column", "ALTER TABLE {c}.sales.summary RENAME COLUMN note TO remark"),
    Step("show columns after add and rename", "SHOW COLUMNS FROM {c}.sales.summary"),
    Step("drop column", "ALTER TABLE {c}.sales.summary DROP COLUMN remark"),
    Step("show columns after drop", "SHOW COLUMNS FROM {c}.sales.summary"),
    Step("rename table", "ALTER TABLE {c}.sales.summary RENAME TO {c}.sales.totals"),
    Step("show tables", "SHOW TABLES FROM {c}.sales"),
    Step("select renamed table", "SELECT * FROM {c}.sales.totals"),
    Step(
        "renamed table's data moved",
        check=lambda side: (_exists("sales", "summary")(side), _exists("sales", "totals")(side)),
    ),
    Step("delete a whole partition", f"DELETE FROM {ORDERS} WHERE ds = '2024-01-03'"),
    Step("select after delete", f"SELECT id FROM {ORDERS}"),
    Step("deleted partition's data gone", check=_exists("sales", "orders", "ds=2024-01-03")),
    Step("create view", f"CREATE VIEW {{c}}.sales.recent AS SELECT id, item FROM {ORDERS} WHERE ds >= '2024-01-02'"),
    Step("select view", "SELECT * FROM {c}.sales.recent"),
    Step(
        "information_schema.tables",
        "SELECT table_name, table_type FROM {c}.information_schema.tables WHERE table_schema = 'sales'",
    ),
    Step(
        "information_schema.columns",
        "SELECT table_name, column_name, ordinal_position, data_type, is_nullable "
        "FROM {c}.information_schema.columns WHERE table_schema = 'sales'",
    ),
    Step(
        "information_schema.views",
        "SELECT table_name, view_definition FROM {c}.information_schema.views WHERE table_schema = 'sales'",
    ),
    Step(
        "system.metadata.table_properties",
        "SELECT property_name, default_value FROM system.metadata.table_properties WHERE catalog_name = '{c}'",
    ),
    Step("partition folder added on disk", check=_copy_partition),
    Step("partition folder removed on disk", check=_remove_partition),
    Step("sync_partition_metadata", "CALL {c}.system.sync_partition_metadata('sales', 'orders', 'FULL')"),
    Step("select synced partition", f"SELECT id, ds, hr FROM {ORDERS} WHERE ds = '2024-01-04'"),
    Step(
        "create_empty_partition",
        "CALL {c}.system.create_empty_partition('sales', 'orders', ARRAY['ds', 'hr'], ARRAY['2024-05-05', '5'])",
    ),
    Step("partitions after sync and create_empty_partition", 'SELECT * FROM {c}.sales."orders$partitions"'),
    Step("register_partition", "CALL {c}.system.register_partition('sales', 'orders', ARRAY['ds'], ARRAY['x'])"),
    Step("drop view", "DROP VIEW {c}.sales.recent"),
    Step("drop tables", f"DROP TABLE {ORDERS}"),
    Step("drop more tables", "DROP TABLE {c}.sales.events"),
    Step("drop bucketed table", "DROP TABLE {c}.sales.bucketed"),
    Step("drop renamed table", "DROP TABLE {c}.sales.totals"),
    Step(
        "dropped tables' data gone",
        check=lambda side: [_exists("sales", t)(side) for t in ("orders", "events", "bucketed", "totals")],
    ),
    Step("drop schema", "DROP SCHEMA {c}.sales"),
    Step("drop located schema", "DROP SCHEMA {c}.located"),
    Step("show schemas after drop", "SHOW SCHEMAS FROM {c}", keep=_not_secure),
    Step(
        "dropped schemas' folders", check=lambda side: [(side.warehouse / "sales.db").exists(), side.located.exists()]
    ),
]

# what this server's log shows for three statements of the session (docs/engines.md, "Presto 0.287")
CREATE_TABLE_CALLS = [
    "get_table",
    "get_database",
    "create_table",
    "get_table",
    "get_table_statistics_req",
    "get_table",
    "get_table",
    "alter_table",
]
INSERT_NEW_PARTITIONS_CALLS = [
    "get_table",
    "get_primary_keys",
    "get_unique_constraints",
    *["get_partition"] * 3,  # one per partition written: none exists yet
    "get_partitions_by_names",
    "add_partitions",
]
PRUNED_SELECT_CALLS = [
    "get_table",
    "get_primary_keys",
    "get_unique_constraints",
    "get_partition_names_ps",
    "get_partitions_by_names",
]
FULL_LISTINGS = {"get_partitions", "get_partition_names", "get_partitions_by_filter", "get_partitions_ps"}


def _pruning(outcome: Outcome) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """``(values sent to get_partition_names_ps, names found)`` and ``(names asked for, partitions found)``."""
    names = [(values, found) for _, values, found in PRUNED_NAMES.findall(outcome.log)]
    by_names = [(asked, found) for _, asked, found in BY_NAMES.findall(outcome.log)]
    return names, by_names


def test_hive_connector_session_equals_hive_metastore(sessions):
    assert not sessions[OURS].differences, "\n".join(sessions[OURS].differences)
    found = sessions[OURS].found

    assert found["select pruned on the first key"].answer == [(3, "fig")]
    assert found["deleted partition's data gone"].answer is False
    assert found["dropped tables' data gone"].answer == [False] * 4
    assert found["renamed table's data moved"].answer == (False, True)
    assert found["partitions after sync and create_empty_partition"].answer == [
        ("2024-01-01", 1),
        ("2024-01-01", 2),
        ("2024-01-04", 4),
        ("2024-05-05", 5),
    ]
    assert found["select synced partition"].answer == [(3, "2024-01-04", 4)]
    assert found["register_partition"].answer == ("error", "PROCEDURE_NOT_FOUND")  # not in Presto 0.287

    assert found["create Parquet table partitioned on varchar and integer"].calls == CREATE_TABLE_CALLS
    assert found["insert into new partitions"].calls == INSERT_NEW_PARTITIONS_CALLS
    # pruning: get_partition_names_ps with the value of an equality on a varchar key ("" for any other key:
    # Presto 0.287 sent none for its integer and date keys, nor for a range), then only the partitions
    # that Presto's own filter of those names kept, by name
    pruned = {
        "select pruned on the first key": ([("['2024-01-02', '']", "1")], [("1", "1")]),
        "select pruned on the second key": ([("['', '']", "4")], [("2", "2")]),
        "select pruned on both keys": ([("['2024-01-01', '']", "2")], [("1", "1")]),
        "select pruned on a range": ([("['', '']", "4")], [("2", "2")]),
        "select ORC pruned on a date": ([("['', '']", "2")], [("1", "1")]),
    }
    for step, expected in pruned.items():
        assert found[step].calls == PRUNED_SELECT_CALLS, step
        assert _pruning(found[step]) == expected, step
        assert not FULL_LISTINGS & set(found[step].calls), step


SECURED = f"{{c}}.{SECURE}.ledger"
AS_ADMIN = {"user": ADMIN, "role": "ROLE{admin}"}
SECURITY = [
    Step("create schema as admin", f"CREATE SCHEMA {{c}}.{SECURE}", **AS_ADMIN),
    Step("create table as admin", f"CREATE TABLE {SECURED} (id bigint, amount double)", **AS_ADMIN),
    Step("insert as owner", f"INSERT INTO {SECURED} VALUES (1, 10.0), (2, 20.0)", **AS_ADMIN),
    Step("owner's grants", f"SHOW GRANTS ON TABLE {SECURED}", **AS_ADMIN),
    Step("select without a grant", f"SELECT count(*) FROM {SECURED}"),
    Step("create role", "CREATE ROLE analyst", **AS_ADMIN),
    Step("create role as a non-admin", "CREATE ROLE intruder"),
    Step("show roles", "SHOW ROLES", **AS_ADMIN),
    Step("grant role", "GRANT analyst TO USER alice", **AS_ADMIN),
    Step("role grants of the grantee", "SHOW ROLE GRANTS"),
    Step("current roles of the grantee", "SHOW CURRENT ROLES"),
    Step("grant select to the role", f"GRANT SELECT ON {SECURED} TO ROLE analyst", **AS_ADMIN),
    Step("select through the role", f"SELECT count(*) FROM {SECURED}"),
    Step("select with no role set", f"SELECT count(*) FROM {SECURED}", role="NONE"),
    Step("insert without a grant", f"INSERT INTO {SECURED} VALUES (3, 30.0)"),
    Step("grant insert with grant option", f"GRANT INSERT ON {SECURED} TO USER alice WITH GRANT OPTION", **AS_ADMIN),
    Step("insert with the grant", f"INSERT INTO {SECURED} VALUES (3, 30.0)"),
    Step("grant on by the grantee", f"GRANT INSERT ON {SECURED} TO USER bob"),
    Step("insert by the second grantee", f"INSERT INTO {SECURED} VALUES (4, 40.0)", user="bob"),
    Step("grants on the table", f"SHOW GRANTS ON TABLE {SECURED}", **AS_ADMIN),
    Step("grants the grantee sees", f"SHOW GRANTS ON TABLE {SECURED}"),
    Step("revoke select from the role", f"REVOKE SELECT ON {SECURED} FROM ROLE analyst", **AS_ADMIN),
    Step("select after the revoke", f"SELECT count(*) FROM {SECURED}"),
    Step("revoke role", "REVOKE analyst FROM USER alice", **AS_ADMIN),
    Step("role grants after the revoke", "SHOW ROLE GRANTS"),
    Step("drop role", "DROP ROLE analyst", **AS_ADMIN),
    Step("roles after the drop", "SHOW ROLES", **AS_ADMIN),
    Step("rows written", f"SELECT id, amount FROM {SECURED}", **AS_ADMIN),
    Step("drop table as admin", f"DROP TABLE {SECURED}", **AS_ADMIN),
    Step("drop schema as admin", f"DROP SCHEMA {{c}}.{SECURE}", **AS_ADMIN),
]


def test_sql_standard_roles_and_grants_as_two_users_equal_hive_metastore(sessions):
    assert not sessions[SEC].differences, "\n".join(sessions[SEC].differences)
    found = sessions[SEC].found

    denied = ("error", "PERMISSION_DENIED")
    for step in ("select without a grant", "create role as a non-admin", "select with no role set"):
        assert found[step].answer == denied, step
    assert found["insert without a grant"].answer == denied
    assert found["select after the revoke"].answer == denied
    assert found["select through the role"].answer == [(2,)]
    # the owner's privileges Presto sends with CREATE TABLE, stored with the table as Hive stores them
    assert found["owner's grants"].answer == sorted(
        [
            (ADMIN, "USER", ADMIN, "USER", "<catalog>", "secure", "ledger", p, "YES", None)
            for p in ("SELECT", "INSERT", "UPDATE", "DELETE")
        ],
        key=repr,
    )
    assert found["rows written"].answer == [(1, 10.0), (2, 20.0), (3, 30.0), (4, 40.0)]
    assert found["roles after the drop"].answer == [("admin",), ("public",)]
