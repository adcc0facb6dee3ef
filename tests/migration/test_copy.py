"""``hudi-metastore copy`` between two of this project's servers (real Thrift sockets, real catalogs): what a
copy carries, re-runs that write only what changed, a run stopped half-way and finished, refusals, the
dry run, patterns, the event ids and a real Hudi table's timeline. The target runs on every store; copies
from and to Apache Hive Metastore 2.3.10 and 4.0.1 are ``test_copy_hive.py``."""

from __future__ import annotations

import copy
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from types import SimpleNamespace

import pytest

from hms_adapter.cli import main
from hms_adapter.client import Security, connect
from hms_adapter.migration.forms import COPY_MARKER
from hudi_catalog import Catalog
from hudi_catalog.model import InstantState
from tests.conftest import RunningServer, hive, hive_wire
from tests.hudi.tables import TABLES_DIR, unpack
from tests.support.servers import free_port, serve_command, wait_for_port, write_passwords

HUDI_TABLE = "sample_table_cow_v8_complexkeygen_hivestyle"


@contextmanager
def _sqlite_server(tmp_path, name: str) -> Iterator[RunningServer]:
    catalog = Catalog.open(f"sqlite:///{tmp_path / f'{name}.db'}", str(tmp_path / f"{name}-warehouse"), **hive_wire())
    running = RunningServer(catalog)
    try:
        yield running
    finally:
        running.stop()
        catalog.close()


@pytest.fixture
def source(tmp_path):
    with _sqlite_server(tmp_path, "source") as running:
        yield running


@pytest.fixture
def sqlite_target(tmp_path):
    """A target on SQLite alone, for what does not depend on the target's store."""
    with _sqlite_server(tmp_path, "target") as running:
        yield running


@pytest.fixture
def target(server):
    """The target: the shared ``server`` fixture, on every store."""
    return server


def run_copy(source, target, *options: str, capsys=None) -> tuple[int, str]:
    code = main(["copy", "--from", source.uri, "--to", target.uri, *options])
    out = capsys.readouterr().out if capsys else ""
    return code, out


def _columns():
    return [hive.FieldSchema(name="id", type="bigint"), hive.FieldSchema(name="name", type="string")]


def _table(database: str, name: str, location: str, keys=("day",), parameters=None, table_type="EXTERNAL_TABLE"):
    sd = hive.StorageDescriptor(
        cols=_columns(),
        location=location,
        inputFormat="org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat",
        outputFormat="org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat",
        serdeInfo=hive.SerDeInfo(
            serializationLib="org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe", parameters={"a": "b"}
        ),
        parameters={},
    )
    return hive.Table(
        tableName=name,
        dbName=database,
        owner="alice",
        sd=sd,
        partitionKeys=[hive.FieldSchema(name=k, type="string") for k in keys],
        parameters={"EXTERNAL": "TRUE", **(parameters or {})},
        tableType=table_type,
    )


def _partitions(table, days):
    parts = []
    for day in days:
        sd = copy.deepcopy(table.sd)
        sd.location = f"{table.sd.location}/day={day}"
        parts.append(
            hive.Partition(
                values=[day], dbName=table.dbName, tableName=table.tableName, sd=sd, parameters={"numRows": "7"}
            )
        )
    return parts


def _long_stats(column: str, high: int):
    return hive.ColumnStatisticsObj(
        colName=column,
        colType="bigint",
        statsData=hive.ColumnStatisticsData(
            longStats=hive.LongColumnStatsData(lowValue=0, highValue=high, numNulls=1, numDVs=3)
        ),
    )


def populate(client, root: str) -> None:
    """A database with a partitioned table (statistics, a primary key, grants), a view, a function, a role
    with a member, a transactional table."""
    client.create_database(
        hive.Database(
            name="sales", locationUri=f"{root}/sales.db", parameters={"team": "s"}, ownerName="alice", ownerType=1
        )
    )
    orders = _table("sales", "orders", f"{root}/sales.db/orders", parameters={"comment": "orders"})
    client.create_table_with_constraints(
        orders,
        [
            hive.SQLPrimaryKey(
                table_db="sales",
                table_name="orders",
                column_name="id",
                key_seq=1,
                pk_name="pk_orders",
                enable_cstr=False,
                validate_cstr=False,
                rely_cstr=True,
            )
        ],
        [],
    )
    client.add_partitions(_partitions(orders, [f"2024-01-{d:02d}" for d in range(1, 31)]))
    client.update_table_column_statistics(
        hive.ColumnStatistics(
            statsDesc=hive.ColumnStatisticsDesc(isTblLevel=True, dbName="sales", tableName="orders"),
            statsObj=[_long_stats("id", 99)],
        )
    )
    client.update_partition_column_statistics(
        hive.ColumnStatistics(
            statsDesc=hive.ColumnStatisticsDesc(
                isTblLevel=False, dbName="sales", tableName="orders", partName="day=2024-01-03"
            ),
            statsObj=[_long_stats("id", 5)],
        )
    )
    client.create_table(
        hive.Table(
            tableName="recent",
            dbName="sales",
            owner="alice",
            sd=hive.StorageDescriptor(cols=_columns(), serdeInfo=hive.SerDeInfo()),
            partitionKeys=[],
            viewOriginalText="select * from orders where day > '2024-01-20'",
            viewExpandedText="select `orders`.`id`, `orders`.`name` from `sales`.`orders` where `orders`.`day` > '2024-01-20'",
            tableType="VIRTUAL_VIEW",
            parameters={},
        )
    )
    acid = _table(
        "sales",
        "ledger",
        f"{root}/sales.db/ledger",
        keys=(),
        parameters={"transactional": "true"},
        table_type="MANAGED_TABLE",
    )
    acid.parameters.pop("EXTERNAL")
    acid.sd.inputFormat = "org.apache.hadoop.hive.ql.io.orc.OrcInputFormat"
    acid.sd.outputFormat = "org.apache.hadoop.hive.ql.io.orc.OrcOutputFormat"
    acid.sd.serdeInfo = hive.SerDeInfo(serializationLib="org.apache.hadoop.hive.ql.io.orc.OrcSerde", parameters={})
    client.create_table(acid)
    client.create_function(
        hive.Function(
            functionName="mask",
            dbName="sales",
            className="com.example.Mask",
            ownerName="alice",
            ownerType=1,
            functionType=1,
            resourceUris=[hive.ResourceUri(resourceType=1, uri=f"{root}/mask.jar")],
        )
    )
    client.create_role(hive.Role(roleName="analysts"))
    client.grant_role("analysts", "bob", hive.PrincipalType.USER, "admin", hive.PrincipalType.ROLE, False)
    table_ref = hive.HiveObjectRef(objectType=hive.HiveObjectType.TABLE, dbName="sales", objectName="orders")
    client.grant_privileges(
        hive.PrivilegeBag(
            privileges=[
                hive.HiveObjectPrivilege(
                    hiveObject=table_ref,
                    principalName="analysts",
                    principalType=hive.PrincipalType.ROLE,
                    grantInfo=hive.PrivilegeGrantInfo(
                        privilege="SELECT", grantor="alice", grantorType=1, grantOption=False
                    ),
                )
            ]
        )
    )


def test_a_copy_holds_what_the_source_does(source, target, tmp_path, capsys):
    root = f"file:{tmp_path}/lake"
    with_source = source.client()
    populate(with_source, root)
    source_event = with_source.get_current_notificationEventId().eventId
    target_before = target.client().get_current_notificationEventId().eventId

    code, out = run_copy(source, target, "--verify", capsys=capsys)

    assert code == 3, out  # everything copied but the transactional table, which is refused with its reason
    assert "refused: table sales.ledger: a transactional table" in out
    assert "different:" not in out
    check = target.client()
    orders = check.get_table("sales", "orders")
    assert orders.sd.location == f"{root}/sales.db/orders"
    assert orders.parameters["comment"] == "orders" and COPY_MARKER not in orders.parameters
    assert len(check.get_partition_names("sales", "orders", -1)) == 30
    assert (
        check.get_partition("sales", "orders", ["2024-01-07"]).sd.location == f"{root}/sales.db/orders/day=2024-01-07"
    )
    assert check.get_table("sales", "recent").viewExpandedText.startswith("select `orders`.`id`")
    assert [
        k.column_name
        for k in check.get_primary_keys(hive.PrimaryKeysRequest(db_name="sales", tbl_name="orders")).primaryKeys
    ] == ["id"]
    stats = check.get_partitions_statistics_req(
        hive.PartitionsStatsRequest(dbName="sales", tblName="orders", colNames=["id"], partNames=["day=2024-01-03"])
    )
    assert stats.partStats["day=2024-01-03"][0].statsData.longStats.highValue == 5
    assert check.get_function("sales", "mask").className == "com.example.Mask"
    members = check.get_principals_in_role(hive.GetPrincipalsInRoleRequest(roleName="analysts")).principalGrants
    assert [m.principalName for m in members] == ["bob"]
    grants = check.list_privileges(
        None, None, hive.HiveObjectRef(objectType=hive.HiveObjectType.TABLE, dbName="sales", objectName="orders")
    )
    assert ("analysts", "SELECT") in {(g.principalName, g.grantInfo.privilege) for g in grants}
    with pytest.raises(hive.NoSuchObjectException):
        check.get_table("sales", "ledger")
    # the copy's writes logged no events, and the ids continue after the source's
    assert check.get_current_notificationEventId().eventId == max(source_event, target_before)
    events = check.get_next_notification(hive.NotificationEventRequest(lastEvent=target_before, maxEvents=1000)).events
    assert events == []


def test_a_rerun_writes_only_what_changed(source, target, tmp_path, capsys):
    root = f"file:{tmp_path}/lake"
    with_source = source.client()
    populate(with_source, root)
    run_copy(source, target, capsys=capsys)

    code, out = run_copy(source, target, capsys=capsys)
    assert code == 3, out
    assert (
        "partitions" not in out and "created" not in out and "updated" not in out.replace("events       1 updated", "")
    )

    orders = with_source.get_table("sales", "orders")
    with_source.add_partitions(_partitions(orders, ["2024-02-01"]))
    with_source.drop_partition("sales", "orders", ["2024-01-01"], False)
    changed = with_source.get_partition("sales", "orders", ["2024-01-02"])
    changed.parameters["numRows"] = "70"
    with_source.alter_partition("sales", "orders", changed)
    orders.parameters["comment"] = "all orders"
    with_source.alter_table("sales", "orders", orders)
    with_source.update_table_column_statistics(
        hive.ColumnStatistics(
            statsDesc=hive.ColumnStatisticsDesc(isTblLevel=True, dbName="sales", tableName="orders"),
            statsObj=[_long_stats("id", 500)],
        )
    )

    code, out = run_copy(source, target, "--verify", capsys=capsys)
    assert code == 3, out
    assert "partitions   1 added, 1 altered, 1 dropped" in out
    assert "different:" not in out
    check = target.client()
    assert check.get_table("sales", "orders").parameters["comment"] == "all orders"
    assert check.get_partition("sales", "orders", ["2024-01-02"]).parameters["numRows"] == "70"
    # a dropped partition's files are not the copy's to delete
    assert "day=2024-01-01" not in check.get_partition_names("sales", "orders", -1)
    stats = check.get_table_statistics_req(hive.TableStatsRequest(dbName="sales", tblName="orders", colNames=["id"]))
    assert stats.tableStats[0].statsData.longStats.highValue == 500


def test_a_table_left_half_copied_is_marked_and_finished(source, target, tmp_path, capsys):
    """A run stopped after a table was created and some of its partitions added: the table keeps the marker
    (and answers as incomplete), and the next run adds the rest and removes it."""
    root = f"file:{tmp_path}/lake"
    with_source = source.client()
    populate(with_source, root)
    orders = with_source.get_table("sales", "orders")
    half = target.client()
    half.create_database(with_source.get_database("sales"))
    marked = copy.deepcopy(orders)
    marked.parameters[COPY_MARKER] = "true"
    half.create_table(marked)
    half.add_partitions(with_source.get_partitions_by_names("sales", "orders", ["day=2024-01-01", "day=2024-01-02"]))

    code, out = run_copy(source, target, "--verify", capsys=capsys)

    assert code == 3, out
    assert "table sales.orders" not in out.split("refused:")[0] or "different:" not in out
    check = target.client()
    assert COPY_MARKER not in check.get_table("sales", "orders").parameters
    assert len(check.get_partition_names("sales", "orders", -1)) == 30


def test_a_dry_run_writes_nothing_and_says_what_it_would(source, target, tmp_path, capsys):
    populate(source.client(), f"file:{tmp_path}/lake")
    before = target.client().get_all_databases()

    code, out = run_copy(source, target, "--dry-run", capsys=capsys)

    assert code == 3, out
    assert "would copy (dry run):" in out
    assert "partitions   30 added" in out
    assert "refused: table sales.ledger" in out
    assert target.client().get_all_databases() == before


def test_patterns_choose_databases_and_tables(source, sqlite_target, tmp_path, capsys):
    populate(source.client(), f"file:{tmp_path}/lake")
    code, out = run_copy(
        source, sqlite_target, "--databases", "sales", "--tables", "sales.ord*", "--no-grants", capsys=capsys
    )
    assert code == 0, out
    check = sqlite_target.client()
    assert check.get_all_tables("sales") == ["orders"]
    assert "analysts" not in check.get_role_names()  # --no-grants


def test_an_unreachable_metastore_stops_the_run(source, capsys):
    code, out = run_copy(source, SimpleNamespace(uri="thrift://127.0.0.1:1"), capsys=capsys)
    assert code == 1
    assert "stopped: the target thrift://127.0.0.1:1 cannot be reached" in out


def test_the_source_held_to_a_call_rate(source, sqlite_target, tmp_path, capsys):
    populate(source.client(), f"file:{tmp_path}/lake")
    started = time.monotonic()
    code, out = run_copy(source, sqlite_target, "--max-calls-per-second", "10", "--no-grants", capsys=capsys)
    elapsed = time.monotonic() - started
    assert code == 3, out
    calls = int(out.rsplit("calls: ", 1)[1].split(" ")[0])
    assert calls > 10
    assert elapsed >= (calls - 1) / 10  # spaced out: never faster than the limit, however idle the machine


@pytest.mark.skipif(not (TABLES_DIR / f"{HUDI_TABLE}.zip").exists(), reason=f"no Hudi tables in {TABLES_DIR}")
def test_a_hudi_table_arrives_with_its_timeline(source, target, db_url, tmp_path, capsys):
    """A Hudi table registered on the source is followed on the target once copied: its timeline and file
    snapshot are read from storage, equal to the source's."""
    base = str(unpack(HUDI_TABLE, tmp_path / "tables"))
    source.catalog.import_table(base, "lake", "trips")

    code, out = run_copy(source, target, "--verify", capsys=capsys)

    assert code == 0, out
    assert "hudi tables  1: timeline and file snapshot read from storage by the target" in out
    completed = [
        i.requested_time for i in source.catalog.timeline.instants("lake", "trips") if i.state is InstantState.COMPLETED
    ]
    assert completed
    assert [
        i.requested_time for i in target.catalog.timeline.instants("lake", "trips") if i.state is InstantState.COMPLETED
    ] == completed
    for partition in source.catalog.snapshot.partition_paths("lake", "trips"):
        assert target.catalog.snapshot.live_files("lake", "trips", partition) == source.catalog.snapshot.live_files(
            "lake", "trips", partition
        )


def test_a_source_behind_password_authentication(sqlite_target, tmp_path, capsys, monkeypatch):
    """The copy logs in to a source started with ``--auth password`` (SASL PLAIN), the password taken from
    ``HUDI_METASTORE_FROM_PASSWORD``; a wrong password stops the run before anything is written."""
    passwords = tmp_path / "passwords"
    write_passwords(passwords, {"etl": "s3cret"})
    port, log = free_port(), tmp_path / "source.log"
    options = ["--auth", "password", "--password-file", str(passwords), "--allow-plaintext-passwords"]
    command = serve_command(port, db_url=f"sqlite:///{tmp_path / 'auth.db'}", warehouse=tmp_path / "wh", extra=options)
    with open(log, "w") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
    try:
        wait_for_port(port, process, log=log)
        uri = f"thrift://127.0.0.1:{port}"
        with connect(uri, Security(auth="password", user="etl", password="s3cret")) as client:
            client.create_database(
                hive.Database(name="secured", locationUri=f"file:{tmp_path}/secured.db", parameters={})
            )
        login = ["--from-auth", "password", "--from-user", "etl"]

        monkeypatch.setenv("HUDI_METASTORE_FROM_PASSWORD", "wrong")
        code, out = run_copy(SimpleNamespace(uri=uri), sqlite_target, *login, capsys=capsys)
        assert code == 1 and "cannot be reached" in out and "wrong" not in out
        assert "secured" not in sqlite_target.client().get_all_databases()

        monkeypatch.setenv("HUDI_METASTORE_FROM_PASSWORD", "s3cret")
        code, out = run_copy(SimpleNamespace(uri=uri), sqlite_target, *login, capsys=capsys)
        assert code == 0, out
        assert sqlite_target.client().get_database("secured").locationUri == f"file:{tmp_path}/secured.db"
    finally:
        process.terminate()
        process.wait(30)


def test_a_catalog_besides_hive_is_copied_with_its_databases(source, sqlite_target, tmp_path, capsys):
    with_source = source.client()
    with_source.create_catalog(
        hive.CreateCatalogRequest(catalog=hive.Catalog(name="sandbox", locationUri=f"file:{tmp_path}/sandbox"))
    )
    with_source.create_database(
        hive.Database(name="scratch", catalogName="sandbox", locationUri=f"file:{tmp_path}/sandbox/scratch.db")
    )
    table = _table("@sandbox#scratch", "notes", f"file:{tmp_path}/sandbox/scratch.db/notes")
    table.dbName, table.hive3CatName = "scratch", "sandbox"
    with_source.create_table(table)
    with_source.add_partitions(
        [hive.Partition(**{**vars(p), "catName": "sandbox"}) for p in _partitions(table, ["2024-05-01"])]
    )

    code, out = run_copy(source, sqlite_target, "--verify", capsys=capsys)

    assert code == 0, out
    check = sqlite_target.client()
    assert "sandbox" in check.get_catalogs().names
    assert check.get_databases("@sandbox#*") == ["default", "scratch"]  # create_catalog makes its default
    assert check.get_partition_names("@sandbox#scratch", "notes", -1) == ["day=2024-05-01"]
    assert "scratch" not in check.get_all_databases()  # not in the default catalog


def _has_tables(server, database: str) -> bool:
    client = server.client()
    return database in client.get_all_databases() and bool(client.get_all_tables(database))


def test_a_source_gone_mid_copy_stops_the_run_and_a_rerun_finishes(sqlite_target, tmp_path, capsys):
    """The source is killed while the copy runs (its calls held to 20 a second): the run stops with exit 1
    and says to run again; once the source is back, the same command completes every table."""
    db_url = f"sqlite:///{tmp_path / 'killed.db'}"

    def start():
        port = free_port()
        command = serve_command(port, db_url=db_url, warehouse=tmp_path / "wh")
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        wait_for_port(port, process)
        return process, f"thrift://127.0.0.1:{port}"

    process, uri = start()
    try:
        with connect(uri) as client:
            client.create_database(hive.Database(name="many", locationUri=f"file:{tmp_path}/many.db", parameters={}))
            for n in range(12):
                table = _table("many", f"t{n}", f"file:{tmp_path}/many.db/t{n}")
                client.create_table(table)
                client.add_partitions(_partitions(table, [f"2024-01-{d:02d}" for d in range(1, 11)]))
        result: dict = {}
        copying = threading.Thread(
            target=lambda: result.update(
                code=main(["copy", "--from", uri, "--to", sqlite_target.uri, "--max-calls-per-second", "20"])
            )
        )
        copying.start()
        deadline = time.monotonic() + 300
        while not _has_tables(sqlite_target, "many"):  # the copy is under way
            assert time.monotonic() < deadline
            time.sleep(0.2)
        process.kill()
        process.wait(30)
        copying.join(600)
        out = capsys.readouterr().out
        assert result["code"] == 1, out
        assert "stopped: the source" in out and "run the same command again to finish" in out
        check = sqlite_target.client()
        copied = set(check.get_all_tables("many"))
        complete = [
            n for n in range(12) if f"t{n}" in copied and COPY_MARKER not in check.get_table("many", f"t{n}").parameters
        ]
        assert len(complete) < 12  # tables not created yet, or created and marked incomplete

        process, uri = start()
        code, out = run_copy(SimpleNamespace(uri=uri), sqlite_target, "--verify", capsys=capsys)
        assert code == 0, out
        assert len(check.get_all_tables("many")) == 12
        for n in range(12):
            assert COPY_MARKER not in check.get_table("many", f"t{n}").parameters
            assert len(check.get_partition_names("many", f"t{n}", -1)) == 10
    finally:
        process.kill()
        process.wait(30)


def test_drop_missing_drops_only_tables_gone_from_the_source_and_keeps_their_files(
    source, sqlite_target, tmp_path, capsys
):
    root = tmp_path / "lake"
    with_source = source.client()
    with_source.create_database(hive.Database(name="ops", locationUri=f"file:{root}/ops.db", parameters={}))
    for name in ("kept", "gone"):
        with_source.create_table(_table("ops", name, f"file:{root}/ops.db/{name}", keys=()))
    (root / "ops.db" / "gone").mkdir(parents=True, exist_ok=True)
    (root / "ops.db" / "gone" / "part-0.parquet").write_bytes(b"data")
    run_copy(source, sqlite_target, capsys=capsys)
    with_source.drop_table("ops", "gone", False)

    code, out = run_copy(source, sqlite_target, capsys=capsys)
    assert code == 0, out
    assert sorted(sqlite_target.client().get_all_tables("ops")) == ["gone", "kept"]  # not without --drop-missing

    code, out = run_copy(source, sqlite_target, "--drop-missing", capsys=capsys)
    assert code == 0, out
    assert "1 dropped" in out
    assert sqlite_target.client().get_all_tables("ops") == ["kept"]
    assert (root / "ops.db" / "gone" / "part-0.parquet").read_bytes() == b"data"


def test_a_target_that_authorizes_needs_an_admin(source, tmp_path, capsys, monkeypatch):
    """Writing without notification events is an admin's call: a copy into a server with ``--authorization``
    as one of its other users stops before writing anything, and says so; as an admin it copies."""
    passwords = tmp_path / "passwords"
    write_passwords(passwords, {"etl": "e", "ops": "o"})
    port, log = free_port(), tmp_path / "target.log"
    options = ["--auth", "password", "--password-file", str(passwords), "--allow-plaintext-passwords"]
    options += ["--authorization", "owner", "--admin", "ops"]
    command = serve_command(port, db_url=f"sqlite:///{tmp_path / 'authz.db'}", warehouse=tmp_path / "wh", extra=options)
    source.client().create_database(hive.Database(name="fin", locationUri=f"file:{tmp_path}/fin.db", parameters={}))
    with open(log, "w") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
    try:
        wait_for_port(port, process, log=log)
        target = SimpleNamespace(uri=f"thrift://127.0.0.1:{port}")

        monkeypatch.setenv("HUDI_METASTORE_TO_PASSWORD", "e")
        code, out = run_copy(source, target, "--to-auth", "password", "--to-user", "etl", capsys=capsys)
        assert code == 1, out
        assert "copy as one of its admins" in out

        monkeypatch.setenv("HUDI_METASTORE_TO_PASSWORD", "o")
        code, out = run_copy(source, target, "--to-auth", "password", "--to-user", "ops", capsys=capsys)
        assert code == 0, out
        assert "databases    1 created" in out
    finally:
        process.terminate()
        process.wait(30)
