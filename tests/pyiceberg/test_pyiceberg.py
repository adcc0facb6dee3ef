"""PyIceberg's ``HiveCatalog`` end to end: one writer on the in-process server, then six concurrent writer
processes on one table through two ``hudi-metastore serve`` processes sharing one MariaDB database, with Hive locks
and lock-free (``engine.hive.lock-enabled=false``, Iceberg Java's expected-parameter commit).

PyIceberg's commit (0.12): ``lock`` (one EXCLUSIVE TABLE component, ``isTransactional``, no transaction),
``check_lock`` while WAITING, ``get_table``, its requirements checked against that table, the new metadata JSON
written, ``alter_table_with_environment_context`` (only ``DO_NOT_UPDATE_STATS``), ``unlock``. It has no lock-free
mode; ``writer.NoLockHiveCatalog`` adds Iceberg Java's. A commit that fails (``CommitFailedException``: a
requirement, or the lock not acquired) is retried by the transaction on refreshed metadata
(``commit.retry.num-retries``, default 4); the writers here retry what still fails with a fresh append.
"""

from __future__ import annotations

import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pyarrow as pa
import pytest
from pyiceberg.catalog.hive import HiveCatalog
from pyiceberg.exceptions import CommitFailedException, NoSuchTableError
from pyiceberg.partitioning import PartitionField, PartitionSpec
from pyiceberg.schema import Schema
from pyiceberg.table.snapshots import Operation
from pyiceberg.transforms import IdentityTransform
from pyiceberg.types import DoubleType, LongType, NestedField, StringType
from thriftpy2.rpc import make_client

from tests.conftest import hive
from tests.hms_adapter.helpers import table_lock_request
from tests.pyiceberg.writer import MODIFIED, NoLockHiveCatalog
from tests.support.iceberg_writers import check_every_commit_once, run_writers
from tests.support.servers import READY_SECONDS, free_port, serve_command, stop_servers, wait_for_port

SCHEMA = Schema(
    NestedField(1, "id", LongType(), required=False),
    NestedField(2, "category", StringType(), required=False),
    NestedField(3, "amount", DoubleType(), required=False),
)
BY_CATEGORY = PartitionSpec(PartitionField(source_id=2, field_id=1000, transform=IdentityTransform(), name="category"))


def rows(ids, category, **extra) -> pa.Table:
    columns = {
        "id": pa.array(ids, pa.int64()),
        "category": pa.array([category] * len(ids), pa.string()),
        "amount": pa.array([i * 1.5 for i in ids], pa.float64()),
    }
    columns.update({name: pa.array(values, pa.string()) for name, values in extra.items()})
    return pa.table(columns)


def ids_of(table, **scan) -> list[int]:
    return sorted(table.scan(**scan).to_arrow().column("id").to_pylist())


LOCK_FREE = {"engine.hive.lock-enabled": "false"}


@pytest.mark.parametrize("hive_lock", [True, False], ids=["hive-lock", "lock-free"])
def test_one_writer_creates_appends_overwrites_evolves_renames_and_drops(server, warehouse, client, hive_lock):
    iceberg = (HiveCatalog if hive_lock else NoLockHiveCatalog)("hms", uri=server.uri, warehouse=f"file://{warehouse}")
    iceberg.create_namespace("shop", {"comment": "PyIceberg's"})
    assert ("shop",) in iceberg.list_namespaces()
    assert iceberg.load_namespace_properties("shop")["comment"] == "PyIceberg's"

    table = iceberg.create_table(
        "shop.events", SCHEMA, partition_spec=BY_CATEGORY, properties={} if hive_lock else LOCK_FREE
    )
    assert iceberg.list_tables("shop") == [("shop", "events")]
    assert table.scan().to_arrow().num_rows == 0 and table.snapshots() == []
    stored = client.get_table("shop", "events")
    assert stored.tableType == "EXTERNAL_TABLE"
    assert stored.parameters["table_type"] == "ICEBERG"
    assert stored.parameters["metadata_location"] == table.metadata_location
    assert [c.name for c in stored.sd.cols] == ["id", "category", "amount"]

    # appends, each a snapshot whose parent is the one before
    table.append(rows([1, 2, 3], "a"))
    table.append(rows([4, 5], "b"))
    table.append(rows([6], "a"))
    assert ids_of(table) == [1, 2, 3, 4, 5, 6]
    snapshots = table.snapshots()
    assert [s.summary.operation for s in snapshots] == [Operation.APPEND] * 3
    assert [s.parent_snapshot_id for s in snapshots] == [None, snapshots[0].snapshot_id, snapshots[1].snapshot_id]
    assert [entry.snapshot_id for entry in table.history()] == [s.snapshot_id for s in snapshots]
    assert ids_of(table, snapshot_id=snapshots[0].snapshot_id) == [1, 2, 3]
    assert ids_of(table, row_filter="category == 'a'") == [1, 2, 3, 6]

    # what the metastore holds is the last commit; a fresh load sees all of it
    previous = table.metadata_location
    stored = client.get_table("shop", "events")
    assert stored.parameters["metadata_location"] == table.metadata_location
    loaded = iceberg.load_table("shop.events")
    assert loaded.metadata_location == table.metadata_location
    assert [s.snapshot_id for s in loaded.snapshots()] == [s.snapshot_id for s in snapshots]

    # a writer holding stale metadata: its first commit attempt fails, PyIceberg refreshes and commits again
    stale = iceberg.load_table("shop.events")
    table.append(rows([7], "b"))
    stale.append(rows([8], "b"))
    assert ids_of(iceberg.load_table("shop.events")) == [1, 2, 3, 4, 5, 6, 7, 8]
    stored = client.get_table("shop", "events")
    assert stored.parameters["metadata_location"] == stale.metadata_location
    assert stored.parameters["previous_metadata_location"] == table.metadata_location != previous

    # an overwrite: a delete snapshot, then an append
    table = iceberg.load_table("shop.events")
    table.overwrite(rows([10, 11], "c"))
    assert ids_of(table) == [10, 11]
    assert [s.summary.operation for s in table.snapshots()] == [Operation.APPEND] * 5 + [
        Operation.DELETE,
        Operation.APPEND,
    ]

    # schema evolution: the new column in the metastore's columns too; old rows read it as null
    with table.update_schema() as update:
        update.add_column("note", StringType())
    assert [c.name for c in client.get_table("shop", "events").sd.cols] == ["id", "category", "amount", "note"]
    table.append(rows([12, 13], "c", note=["x", "y"]))
    data = iceberg.load_table("shop.events").scan().to_arrow().sort_by("id")
    assert data.column("note").to_pylist() == [None, None, "x", "y"]
    assert iceberg.load_table("shop.events").schema().find_field("note").field_id == 4

    # rename: same metadata and data under the new name, none under the old
    location, hms_location = table.location(), client.get_table("shop", "events").sd.location
    renamed = iceberg.rename_table("shop.events", "shop.orders")
    assert renamed.metadata_location == table.metadata_location
    assert renamed.location() == location
    assert client.get_table("shop", "orders").sd.location == hms_location
    assert ids_of(renamed) == [10, 11, 12, 13]
    with pytest.raises(NoSuchTableError):
        iceberg.load_table("shop.events")
    assert iceberg.list_tables("shop") == [("shop", "orders")]
    renamed.append(rows([14], "d", note=["z"]))
    assert ids_of(iceberg.load_table("shop.orders")) == [10, 11, 12, 13, 14]

    # drop: an external table, its files stay
    iceberg.drop_table("shop.orders")
    assert not iceberg.table_exists("shop.orders")
    assert iceberg.list_tables("shop") == []
    assert Path(renamed.metadata_location.removeprefix("file:").removeprefix("//")).exists()
    iceberg.drop_namespace("shop")
    assert ("shop",) not in iceberg.list_namespaces()


def test_a_lock_free_commit_from_stale_metadata_is_refused(server, warehouse, client):
    """``engine.hive.lock-enabled=false``: the metastore compares ``metadata_location`` with the commit's base."""
    iceberg = NoLockHiveCatalog("hms", uri=server.uri, warehouse=f"file://{warehouse}")
    iceberg.create_namespace("shop")
    table = iceberg.create_table("shop.events", SCHEMA, properties=LOCK_FREE)
    stale = iceberg.load_table("shop.events")
    table.append(rows([1], "a"))
    stale.append(rows([2], "b"))  # requirement fails on the first attempt, retried on fresh metadata
    assert ids_of(iceberg.load_table("shop.events")) == [1, 2]

    # the race the expected parameter closes: another commit between this writer's get_table and alter
    hms_table = client.get_table("shop", "events")
    base = hms_table.parameters["previous_metadata_location"]  # not the current location any more
    with pytest.raises(hive.MetaException) as refused:
        client.alter_table_with_environment_context(
            "shop",
            "events",
            hms_table,
            hive.EnvironmentContext(
                properties={"expected_parameter_key": "metadata_location", "expected_parameter_value": base}
            ),
        )
    assert refused.value.message.startswith(MODIFIED)
    assert client.get_table("shop", "events").parameters["metadata_location"] == stale.metadata_location
    assert ids_of(iceberg.load_table("shop.events")) == [1, 2]
    # from the current location the same alter goes through
    hms_table.parameters["comment"] = "checked"
    current = {"expected_parameter_key": "metadata_location", "expected_parameter_value": stale.metadata_location}
    client.alter_table_with_environment_context(
        "shop", "events", hms_table, hive.EnvironmentContext(properties=current)
    )
    assert client.get_table("shop", "events").parameters["comment"] == "checked"


def test_a_commit_waits_for_a_held_table_lock_and_gives_up_after_its_checks(server, warehouse, client, caplog):
    """PyIceberg's lock: WAITING behind another holder, ``check_lock`` until ACQUIRED or its checks run out."""
    props = {"warehouse": f"file://{warehouse}", "lock-check-max-wait-time": "0.2"}
    impatient = HiveCatalog("hms", uri=server.uri, **props, **{"lock-check-retries": "2"})
    impatient.create_namespace("shop")
    impatient.create_table("shop.events", SCHEMA, properties={"commit.retry.num-retries": "0"})
    held = client.lock(table_lock_request("shop", "events"))
    assert held.state == hive.LockState.ACQUIRED

    with pytest.raises(CommitFailedException, match="Failed to acquire lock for"):
        impatient.load_table("shop.events").append(rows([1], "a"))
    assert impatient.load_table("shop.events").snapshots() == []
    # its waiting lock went with it
    shown = client.show_locks(hive.ShowLocksRequest(dbname="shop", tablename="events")).locks
    assert [lock.lockid for lock in shown] == [held.lockid]

    patient = HiveCatalog("hms", uri=server.uri, **props, **{"lock-check-retries": "50"})
    table = patient.load_table("shop.events")
    caplog.clear()
    with ThreadPoolExecutor(1) as pool:
        appended = pool.submit(table.append, rows([2], "b"))
        deadline = time.monotonic() + READY_SECONDS  # only a ceiling: the loop ends at the line
        while "Wait on lock for shop.events" not in caplog.text and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not appended.done()
        client.unlock(hive.UnlockRequest(lockid=held.lockid))
        appended.result(timeout=READY_SECONDS)
    assert ids_of(patient.load_table("shop.events")) == [2]
    assert not client.show_locks(hive.ShowLocksRequest(dbname="shop", tablename="events")).locks


# --- six writer processes, two serve processes, one MariaDB database --------------------------------------------

WRITERS, APPENDS, BATCH_ROWS = 6, 5, 3


def serve(db_url: str, warehouse: Path, log: Path) -> tuple[subprocess.Popen, int]:
    """``hudi-metastore serve`` on a free port, its log (WARNING and up) in ``log``."""
    port = free_port()
    with log.open("w") as stderr:
        process = subprocess.Popen(
            serve_command(port, db_url=db_url, warehouse=warehouse, extra=["--log-level", "WARNING"]),
            stdout=subprocess.DEVNULL,
            stderr=stderr,
            text=True,
        )
    try:
        wait_for_port(port, process)
    except (Exception, pytest.fail.Exception) as e:
        process.kill()
        raise AssertionError(f"serve did not listen on {port}: {log.read_text()[-3000:]}") from e
    return process, port


@pytest.fixture
def two_servers(mysql_db_url, warehouse, tmp_path):
    """Two ``hudi-metastore serve`` processes on one MariaDB database; the first creates the schema."""
    processes, uris, logs = [], [], [tmp_path / "serve0.log", tmp_path / "serve1.log"]
    try:
        for log in logs:
            process, port = serve(mysql_db_url, warehouse, log)
            processes.append(process)
            uris.append(f"thrift://127.0.0.1:{port}")
        yield uris
    finally:
        stop_servers(processes, logs)


@pytest.mark.mysql
@pytest.mark.parametrize("hive_lock", [True, False], ids=["hive-lock", "lock-free"])
def test_concurrent_writers_through_two_servers_lose_no_commit(two_servers, warehouse, hive_lock):
    # polling a WAITING lock: PyIceberg waits 2 s, 4 s, 8 s (exponential, at most lock-check-max-wait-time) and
    # gives up after lock-check-retries checks; capped at 0.25 s here so the test stays short, and checks enough
    # for minutes of waiting (a loaded machine may hold a lock that long; the wait ends once it is granted)
    catalog_props = {
        "warehouse": f"file://{warehouse}",
        "lock-check-max-wait-time": "0.25",
        "lock-check-retries": "1200",
    }
    iceberg = HiveCatalog("hms", uri=two_servers[0], **catalog_props)
    iceberg.create_namespace("jobs")
    iceberg.create_table(
        "jobs.appends",
        pa.schema([("id", pa.int64()), ("marker", pa.string()), ("writer", pa.int32())]),
        properties={} if hive_lock else LOCK_FREE,
    )

    spec = {
        "uris": two_servers,
        "table": "jobs.appends",
        "writers": WRITERS,
        "appends": APPENDS,
        "rows": BATCH_ROWS,
        "catalog": catalog_props,
        "attempts": 10,
        "timeout": 450,  # only a ceiling against a hang, as the one of run_writers
    }
    reports = run_writers(spec)
    assert {r["uri"] for r in reports} == set(two_servers)
    table = HiveCatalog("hms", uri=two_servers[1], **catalog_props).load_table("jobs.appends")
    check_every_commit_once(table, reports, BATCH_ROWS)
    # no lock left behind, waiting or acquired
    port = int(two_servers[1].rsplit(":", 1)[1])
    client = make_client(hive.ThriftHiveMetastore, "127.0.0.1", port, timeout=30_000)
    try:
        assert not client.show_locks(hive.ShowLocksRequest()).locks
    finally:
        client.close()
    # and with a correct metastore every writer got all its commits in
    errors = [error for report in reports for error in report["errors"]]
    assert not errors, "\n".join(e["error"] for e in errors)
    assert not [commit for report in reports for commit in report["gave_up"]]
    assert sum(len(report["acked"]) for report in reports) == WRITERS * APPENDS
