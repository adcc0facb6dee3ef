"""``hudi-metastore schema status | upgrade | sql`` and the servers' refusal of a layout that is not theirs,
run as real processes on real databases."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
from pathlib import Path

import pymysql
import pytest
from sqlalchemy import create_engine, inspect, select, text
from sqlalchemy.engine import make_url

from hudi_catalog import Catalog
from hudi_catalog.store import schema
from tests.conftest import another_database, libpq_url, skip_or_fail
from tests.support.previous_layouts import LAYOUT_13_COMMIT, make_previous_layout_store
from tests.support.servers import CLI, serve_command

SINCE_12 = "add_authorization, add_location_provenance, add_database_revision"
"""The migrations a layout 12 store takes."""
pytestmark = pytest.mark.empty_database  # the schema tool's cases start from a database without the schema


def run(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=180, env={**os.environ, **(env or {})})


def status(db_url: str) -> subprocess.CompletedProcess:
    return run("schema", "status", "--db-url", db_url)


def make_layout_12(db_url: str, warehouse: Path) -> None:
    """A store of layout 12: this layout without the authorization tables (what migration 13 adds) and the
    databases' revisions (migration 15; migration 14's columns are left, which it finds made)."""
    Catalog.open(db_url, str(warehouse)).close()
    engine = create_engine(db_url)
    with engine.begin() as conn:
        for table in ("privilege_grant", "role_member", "role"):
            conn.execute(text(f"DROP TABLE {table}"))
        conn.execute(text("ALTER TABLE db DROP COLUMN revision"))
        conn.execute(schema.schema_version.update().values(version=12))
    engine.dispose()


def set_layout(db_url: str, version: int) -> None:
    engine = create_engine(db_url)
    with engine.begin() as conn:
        conn.execute(schema.schema_version.update().values(version=version))
    engine.dispose()


def reflect(db_url: str) -> dict:
    """Every table's columns, primary key, indexes, unique constraints and foreign keys, as the database
    reports them."""
    engine = create_engine(db_url)
    found = {}
    with engine.connect() as conn:
        inspector = inspect(conn)
        for table in sorted(inspector.get_table_names()):
            found[table] = {
                "columns": [
                    (c["name"], str(c["type"]), c["nullable"], c.get("default")) for c in inspector.get_columns(table)
                ],
                "primary_key": inspector.get_pk_constraint(table)["constrained_columns"],
                "indexes": sorted(
                    (i["name"], tuple(i["column_names"]), bool(i["unique"])) for i in inspector.get_indexes(table)
                ),
                "unique": sorted(
                    (u["name"], tuple(u["column_names"])) for u in inspector.get_unique_constraints(table)
                ),
                "foreign_keys": sorted(
                    (
                        tuple(f["constrained_columns"]),
                        f["referred_table"],
                        tuple(f["referred_columns"]),
                        str(f.get("options")),
                    )
                    for f in inspector.get_foreign_keys(table)
                ),
            }
        found["rows"] = {
            "schema_version": conn.execute(select(schema.schema_version.c.version)).scalars().all(),
            "id_sequence": sorted(conn.execute(select(schema.id_sequence.c.name)).scalars()),
            "role": sorted(conn.execute(select(schema.role.c.name)).scalars()),
        }
    engine.dispose()
    return found


def apply_by_hand(db_url: str, script: str) -> None:
    """Run a SQL script as a DBA would: the database's own client where installed, else a plain DB-API
    connection (no SQLAlchemy, no hudi-metastore code)."""
    url = make_url(db_url)
    if url.get_backend_name() == "sqlite":
        conn = sqlite3.connect(url.database, isolation_level=None)
        conn.executescript(script)
        conn.close()
        return
    if url.get_backend_name() == "postgresql":
        client = shutil.which("psql")
        if client is None:
            skip_or_fail("PostgreSQL's client psql is not installed")
        done = subprocess.run(
            [client, "-v", "ON_ERROR_STOP=1", "-q", libpq_url(db_url)],
            input=script,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        return
    client = shutil.which("mariadb") or shutil.which("mysql")
    if client:
        done = subprocess.run(
            [
                client,
                "-h",
                url.host,
                "-P",
                str(url.port or 3306),
                "-u",
                url.username,
                *([f"-p{url.password}"] if url.password else []),
                url.database,
            ],
            input=script,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        return
    conn = pymysql.connect(
        host=url.host,
        port=url.port or 3306,
        user=url.username,
        password=url.password or "",
        database=url.database,
        autocommit=True,
    )
    with conn.cursor() as cur:
        for statement in script.split(";\n"):
            if statement.strip() and not all(line.startswith("--") for line in statement.strip().splitlines()):
                cur.execute(statement)
    conn.close()


def test_status_tells_an_empty_an_older_a_current_and_a_newer_database(db_url, warehouse):
    empty = status(db_url)
    assert empty.returncode == 3, empty.stderr
    assert "empty (no catalog schema)" in empty.stdout and "pending:    create" in empty.stdout

    make_layout_12(db_url, warehouse)
    older = status(db_url)
    assert older.returncode == 3, older.stderr
    assert "database:   layout 12" in older.stdout and f"pending:    {SINCE_12}" in older.stdout
    assert "hudi-metastore schema upgrade" in older.stdout

    upgraded = run("schema", "upgrade", "--db-url", db_url)
    assert upgraded.returncode == 0, upgraded.stderr
    assert upgraded.stdout.strip() == (
        f"upgraded the catalog schema from layout 12 to layout {schema.SCHEMA_VERSION}: {SINCE_12}"
    )
    current = status(db_url)
    assert current.returncode == 0, current.stderr
    assert "state:      current" in current.stdout and "pending" not in current.stdout
    nothing = run("schema", "sql", "--db-url", db_url).stdout
    assert nothing.endswith("-- nothing to apply: the database has this layout\n")

    set_layout(db_url, schema.SCHEMA_VERSION + 1)
    newer = status(db_url)
    assert newer.returncode == 4, newer.stderr
    assert f"layout {schema.SCHEMA_VERSION + 1}" in newer.stdout and "upgrade hudi-metastore" in newer.stdout
    refused = run("schema", "upgrade", "--db-url", db_url)
    assert refused.returncode == 1 and "newer than this build's" in refused.stderr


def test_status_of_a_missing_sqlite_file_creates_nothing(tmp_path):
    path = tmp_path / "none.db"
    found = status(f"sqlite:///{path}")
    assert found.returncode == 3 and "empty" in found.stdout
    assert not path.exists()


def test_sql_applied_by_hand_makes_the_schema_upgrade_makes(db_url, warehouse, tmp_path):
    """Two stores of layout 7 made by that layout's code: one upgraded by ``schema upgrade``, the other by the
    script of ``schema sql`` run with the database's client; both end with the same tables, columns, keys,
    indexes and seed rows, and the catalog reads the old data from either."""
    with another_database(db_url, tmp_path) as by_hand_url:
        make_previous_layout_store(db_url, warehouse, tmp_path)
        make_previous_layout_store(by_hand_url, warehouse, tmp_path)
        upgraded = run("schema", "upgrade", "--db-url", db_url)
        assert upgraded.returncode == 0, upgraded.stderr
        script = run("schema", "sql", "--db-url", by_hand_url)
        assert script.returncode == 0, script.stderr
        assert "-- layout 8: add_column_statistics" in script.stdout
        last = [
            line
            for line in script.stdout.splitlines()
            if line.strip() and not line.startswith(("--", "PRAGMA", "COMMIT"))
        ][-1]
        assert last == f"UPDATE schema_version SET version={schema.SCHEMA_VERSION} WHERE schema_version.id = 1;"
        assert "database:   layout 7" in status(by_hand_url).stdout  # `sql` changed nothing
        apply_by_hand(by_hand_url, script.stdout)

        assert reflect(by_hand_url) == reflect(db_url)
        assert status(by_hand_url).returncode == 0
        for url in (db_url, by_hand_url):
            catalog = Catalog.open(url, str(warehouse))
            try:
                assert catalog.partitions.names("old", "t") == ["ds=a", "ds=b"]
                assert catalog.authorization.role_names() == ["admin", "public"]
            finally:
                catalog.close()


@pytest.mark.parametrize("offline", [False, True], ids=["from-database", "dialect-only"])
def test_sql_of_an_empty_database_makes_the_schema_upgrade_makes(db_url, tmp_path, offline):
    with another_database(db_url, tmp_path) as by_hand_url:
        assert run("schema", "upgrade", "--db-url", db_url).returncode == 0
        dialect = make_url(db_url).get_backend_name()
        args = ["--dialect", dialect, "--from", "0"] if offline else ["--db-url", by_hand_url]
        script = run("schema", "sql", *args)
        assert script.returncode == 0, script.stderr
        assert f"-- layout {schema.SCHEMA_VERSION}: create" in script.stdout
        apply_by_hand(by_hand_url, script.stdout)
        assert reflect(by_hand_url) == reflect(db_url)


def test_sql_refuses_a_migration_computed_in_python():
    done = run("schema", "sql", "--dialect", "postgresql", "--from", "1")
    assert done.returncode == 1
    assert "layout 2 (add_typed_partition_values)" in done.stderr and "schema upgrade" in done.stderr
    assert "CREATE TABLE role" in run("schema", "sql", "--dialect", "postgresql", "--from", "12").stdout


def test_the_store_of_main_before_the_schema_tool_upgrades(db_url, warehouse, tmp_path):
    """A store made by main before the schema tool (layout 13, its own runner) takes the later migrations."""
    make_previous_layout_store(db_url, warehouse, tmp_path, LAYOUT_13_COMMIT, 13)
    assert "pending:    add_location_provenance" in status(db_url).stdout
    upgraded = run("schema", "upgrade", "--db-url", db_url)
    assert upgraded.returncode == 0, upgraded.stderr
    assert status(db_url).returncode == 0
    catalog = Catalog.open(db_url, str(warehouse))
    try:
        assert catalog.partitions.names("old", "t") == ["ds=a", "ds=b"]
    finally:
        catalog.close()


def _serve(db_url: str, warehouse: Path, *extra: str, env: dict | None = None) -> subprocess.Popen:
    return subprocess.Popen(
        serve_command(0, db_url=db_url, warehouse=warehouse, extra=extra),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **(env or {})},
    )


def _refused(server: subprocess.Popen) -> str:
    _, stderr = server.communicate(timeout=120)
    assert server.returncode == 1, stderr
    return stderr


def _listening(server: subprocess.Popen) -> None:
    try:
        line = server.stdout.readline()
        assert "listening on thrift://127.0.0.1:" in line, server.stderr.read() if server.poll() is not None else line
    finally:
        server.terminate()
        server.wait(60)


def test_serve_refuses_an_older_or_newer_schema_unless_told_to_upgrade(db_url, warehouse):
    make_layout_12(db_url, warehouse)
    assert "run `hudi-metastore schema upgrade`" in _refused(_serve(db_url, warehouse))
    assert status(db_url).returncode == 3  # nothing changed

    _listening(_serve(db_url, warehouse, env={"HUDI_METASTORE_UPGRADE_SCHEMA": "true"}))
    assert status(db_url).returncode == 0

    set_layout(db_url, schema.SCHEMA_VERSION + 1)
    assert "newer than this build's" in _refused(_serve(db_url, warehouse, "--upgrade-schema"))


def test_serve_creates_an_empty_database(tmp_path, warehouse):
    db_url = f"sqlite:///{tmp_path / 'fresh.db'}"
    _listening(_serve(db_url, warehouse))
    assert status(db_url).returncode == 0


def test_two_processes_upgrading_at_once_take_turns(db_url, warehouse):
    make_layout_12(db_url, warehouse)
    upgrades = [
        subprocess.Popen(
            [*CLI, "schema", "upgrade", "--db-url", db_url], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        for _ in range(2)
    ]
    outputs = [u.communicate(timeout=180) for u in upgrades]
    assert [u.returncode for u in upgrades] == [0, 0], [err for _, err in outputs]
    said = sorted(out.strip() for out, _ in outputs)
    assert said == [
        f"the catalog schema is at layout {schema.SCHEMA_VERSION} already",
        f"upgraded the catalog schema from layout 12 to layout {schema.SCHEMA_VERSION}: {SINCE_12}",
    ]
    assert reflect(db_url)["rows"]["role"] == ["admin", "public"]
