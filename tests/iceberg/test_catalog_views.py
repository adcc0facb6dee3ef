"""Iceberg views kept by the catalog and loaded over the wire: PyIceberg's ``HiveCatalog`` against our Thrift
server reads each view as hudi-rs reads the Hudi table, after an import and commit by commit through the
metaserver; a commit rewrites only the manifests of the partitions it touched; a view that cannot take an
instant stays at its last good snapshot, says why, and never fails the Hudi commit."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest
from pyiceberg.catalog.hive import HiveCatalog
from pyiceberg.exceptions import NoSuchTableError
from pyiceberg.table import StaticTable
from thriftpy2.rpc import make_client

from hms_adapter.idl import metaserver as ms
from hms_adapter.serving import make_metaserver
from hudi_catalog import Catalog
from hudi_catalog.hudi.properties import read_table_config
from hudi_catalog.hudi.storage import open_path
from hudi_catalog.hudi.timeline_source import timeline_entries
from hudi_catalog.iceberg import BLOCKED_PROPERTY, SKIPPED_PROPERTY
from hudi_catalog.iceberg_views import ViewSettings
from hudi_catalog.model import InstantState
from hudi_catalog.services.hudi_import import HudiImporter
from hudi_catalog.services.iceberg_views import (
    APPLIED_PARAM,
    ERROR_PARAM,
    METADATA_LOCATION,
    SOURCE_PARAM,
    VIEW_PARAM,
)
from tests.conftest import RunningServer
from tests.hudi.tables import unpack
from tests.iceberg.helpers import PARQUET_COW_TABLES, assert_same_rows, completed_writes, oracle, oracle_read
from tests.support.metaserver_replay import replay

EXPRESSIBLE = [n for n in PARQUET_COW_TABLES if "epochmillis" not in n] or [
    pytest.param("missing", marks=pytest.mark.skip(reason="no Hudi tables"))
]
"""The COPY_ON_WRITE Parquet tables whose every instant Iceberg can express, the empty ones included (the
epoch-millis table changes a column's type Iceberg cannot follow: ``test_view_against_hudi_rs.py`` shows its
view stopping at the last good snapshot)."""
PARTITIONED_REPLAY = "sample_table_cow_v9_txns_simple_nometa"


def iceberg_catalog(server: RunningServer) -> HiveCatalog:
    return HiveCatalog("hms", uri=server.uri)


def snapshot_ids_by_instant(view) -> dict[str, int]:
    return {s.summary["hudi.instant-time"]: s.snapshot_id for s in view.snapshots()}


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
@pytest.mark.parametrize("name", EXPRESSIBLE)
def test_the_view_of_an_imported_table_reads_as_hudi_rs_over_the_wire(catalog, server, tmp_path, name):
    base = unpack(name, tmp_path)
    HudiImporter(catalog).run(str(base), database="lake", table="trips")
    made = catalog.iceberg_views.create("lake", "trips")
    assert made.view == "trips_iceberg" and made.error is None

    registered = catalog.tables.get("lake", "trips_iceberg")
    assert registered.parameters["table_type"] == "ICEBERG" and registered.table_type == "EXTERNAL_TABLE"
    assert registered.parameters[SOURCE_PARAM] == "lake.trips"
    assert catalog.tables.get("lake", "trips").parameters[VIEW_PARAM] == "trips_iceberg"

    view = iceberg_catalog(server).load_table("lake.trips_iceberg")
    assert view.metadata_location == registered.parameters[METADATA_LOCATION]
    hudi_table = oracle(base)
    assert_same_rows(view.scan().to_arrow(), oracle_read(hudi_table))
    snapshots = snapshot_ids_by_instant(view)
    writes = completed_writes(hudi_table)
    assert set(writes) <= set(snapshots)
    for instant in writes:  # time travel to every completed commit
        assert_same_rows(view.scan(snapshot_id=snapshots[instant]).to_arrow(), oracle_read(hudi_table, instant))


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_a_view_that_cannot_take_a_schema_change_stays_at_its_last_good_snapshot(catalog, server, tmp_path):
    """The epoch-millis table's UPDATE rewrote its partition column from long to string: the view stops
    before it, says why on the view table, and reads as hudi-rs reads as of its last good snapshot."""
    base = unpack("sample_table_cow_v9_timebasedkeygen_epochmillis", tmp_path)
    HudiImporter(catalog).run(str(base), database="lake", table="events")
    made = catalog.iceberg_views.create("lake", "events")
    registered = catalog.tables.get("lake", "events_iceberg").parameters
    assert made.error is not None and registered[ERROR_PARAM].startswith("SchemaEvolutionError")
    assert "ts_millis" in registered[ERROR_PARAM]
    view = iceberg_catalog(server).load_table("lake.events_iceberg")
    last_good = view.current_snapshot().summary["hudi.instant-time"]
    assert registered[APPLIED_PARAM] == last_good
    assert json.loads(view.properties[BLOCKED_PROPERTY])["instant"] > last_good
    assert_same_rows(view.scan().to_arrow(), oracle_read(oracle(base), last_good))
    assert catalog.iceberg_views.refresh("lake", "events").error == registered[ERROR_PARAM]  # until rebuilt


@pytest.fixture
def viewing(db_url, warehouse):
    """A catalog that keeps a view of every Hudi table, served on the HMS port and the metaserver port:
    ``(catalog, HMS server, metaserver client, published)`` where ``published`` lists, for each instant
    completed through the metaserver, ``(instant time, the view table's parameters right after)``."""
    catalog = Catalog.open(db_url, str(warehouse), iceberg_views=ViewSettings(all_tables=True))
    server, metaserver = RunningServer(catalog), make_metaserver(catalog, "127.0.0.1", 0)
    thread = threading.Thread(target=metaserver.serve_forever, daemon=True)
    thread.start()
    client = make_client(ms.ThriftHoodieMetaserver, "127.0.0.1", metaserver.port, timeout=60_000)
    published: list[tuple[str, dict[str, str]]] = []
    listener = catalog.timeline.after_complete

    def record(table, instant, decoded) -> None:
        listener(table, instant, decoded)
        if table.database == "replayed":
            published.append((instant.requested_time, dict(catalog.tables.get(table.database, "t_iceberg").parameters)))

    catalog.timeline.after_complete = record
    yield catalog, server, client, published
    client.close()
    metaserver.stop()
    thread.join(10)
    server.stop()
    catalog.close()


def replay_with_view(catalog: Catalog, client, base: Path) -> None:
    """Replay the table at ``base`` through the metaserver as ``replayed.t`` (its partition keys taken from
    an import of it as ``imported.t``, which has no view: views are made at a table's first commit)."""
    HudiImporter(catalog).run(str(base), database="imported", table="t")
    replay(catalog, client, base, "replayed", catalog.tables.get("imported", "t").partition_keys)


@pytest.mark.parametrize("db_url", ["sqlite", "mysql", "postgresql"], indirect=True)
def test_each_metaserver_commit_reaches_the_view_rewriting_only_its_partitions(viewing, tmp_path):
    catalog, server, client, published = viewing
    base = unpack(PARTITIONED_REPLAY, tmp_path)
    replay_with_view(catalog, client, base)

    hudi_table = oracle(base)
    hms = iceberg_catalog(server)
    view = hms.load_table("replayed.t_iceberg")
    assert_same_rows(view.scan().to_arrow(), oracle_read(hudi_table))
    parameters = catalog.tables.get("replayed", "t_iceberg").parameters
    completed = catalog.timeline.instants("replayed", "t", states=[InstantState.COMPLETED])
    assert parameters[APPLIED_PARAM] == max(completed, key=lambda i: i.completion_time).requested_time
    assert ERROR_PARAM not in parameters
    assert parameters[SOURCE_PARAM] == "replayed.t"

    # each completed write was published as it completed, and each reads as hudi-rs reads as of it
    after = dict(published)
    ids = snapshot_ids_by_instant(view)
    for instant in completed_writes(hudi_table):
        assert after[instant][APPLIED_PARAM] == instant
        as_of = StaticTable.from_metadata(after[instant][METADATA_LOCATION])
        assert as_of.current_snapshot().snapshot_id == ids[instant]
        assert_same_rows(as_of.scan().to_arrow(), oracle_read(hudi_table, instant))

    # a commit rewrote the manifests of the partitions it wrote to and reused the others by path
    snapshots = sorted(view.snapshots(), key=lambda s: s.sequence_number)
    for before, later in zip(snapshots, snapshots[1:], strict=False):
        old = {m.manifest_path for m in before.manifests(view.io)}
        new = {m.manifest_path for m in later.manifests(view.io)}
        touched = int(later.summary["changed-partition-count"])
        assert len(new - old) == touched, later.summary
        assert len(new & old) == len(new) - touched


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_a_commit_the_view_cannot_take_leaves_it_at_its_last_good_snapshot(viewing, tmp_path):
    """A base file missing when its commit completes: the commit stands, the view keeps its snapshot and says
    why; once the file is back, the next commit brings the view up to date."""
    catalog, server, client, published = viewing
    base = unpack(PARTITIONED_REPLAY, tmp_path)
    fs, path = open_path(str(base))
    writes = [
        e.instant.requested_time
        for e in timeline_entries(fs, path, read_table_config(fs, path))
        if e.instant.state is InstantState.COMPLETED
    ]
    first, second = writes[0], writes[1]
    hidden = list(base.rglob(f"*_{second}.parquet"))
    assert hidden, f"no base file written by {second}"
    for file in hidden:
        file.rename(file.with_suffix(".away"))
    listener = catalog.timeline.after_complete

    def restore_after_second(table, instant, decoded) -> None:
        listener(table, instant, decoded)
        if table.database == "replayed" and instant.requested_time == second:
            for file in hidden:
                file.with_suffix(".away").rename(file)

    catalog.timeline.after_complete = restore_after_second
    HudiImporter(catalog).run(str(base), database="imported", table="t")  # its keys only; files may be away
    replay(catalog, client, base, "replayed", catalog.tables.get("imported", "t").partition_keys)

    after = dict(published)
    assert ERROR_PARAM not in after[first]
    assert after[second][METADATA_LOCATION] == after[first][METADATA_LOCATION]  # the last good snapshot
    assert after[second][APPLIED_PARAM] == first
    assert after[second][ERROR_PARAM].startswith("MissingDataFileError"), after[second][ERROR_PARAM]
    completed = catalog.timeline.instants("replayed", "t", states=[InstantState.COMPLETED])
    assert {i.requested_time for i in completed} >= set(writes)  # no Hudi commit was refused

    final = catalog.tables.get("replayed", "t_iceberg").parameters
    assert ERROR_PARAM not in final
    view = iceberg_catalog(server).load_table("replayed.t_iceberg")
    assert_same_rows(view.scan().to_arrow(), oracle_read(oracle(base)))
    assert BLOCKED_PROPERTY not in view.properties


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_lance_files_are_left_out_with_their_reason(catalog, server, tmp_path):
    base = unpack("sample_table_cow_v9_lance_txns_simple", tmp_path)
    HudiImporter(catalog).run(str(base), database="lake", table="lance")
    made = catalog.iceberg_views.create("lake", "lance", name="lance_as_iceberg")
    assert made.view == "lance_as_iceberg" and made.skipped
    view = iceberg_catalog(server).load_table("lake.lance_as_iceberg")
    skipped = json.loads(view.properties[SKIPPED_PROPERTY])
    assert any("lance base files" in reason for reason in skipped), skipped
    assert view.scan().to_arrow().num_rows == 0


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_a_name_taken_by_another_table_is_refused_and_views_can_be_dropped(catalog, server, tmp_path):
    from hudi_catalog.errors import AlreadyExistsError
    from hudi_catalog.model import Column, StorageDescriptor, Table

    base = unpack(PARTITIONED_REPLAY, tmp_path)
    HudiImporter(catalog).run(str(base), database="lake", table="t")
    catalog.tables.create(Table("lake", "t_iceberg", sd=StorageDescriptor(columns=[Column("x", "int")])))
    with pytest.raises(AlreadyExistsError, match="is not the Iceberg view of lake.t"):
        catalog.iceberg_views.create("lake", "t")
    assert VIEW_PARAM not in catalog.tables.get("lake", "t").parameters
    made = catalog.iceberg_views.create("lake", "t", name="t_view")
    iceberg = iceberg_catalog(server)
    assert iceberg.load_table("lake.t_view").metadata_location == made.metadata_location
    iceberg.drop_table("lake.t_view")  # an external table: the Hudi table's files stay
    with pytest.raises(NoSuchTableError):
        iceberg.load_table("lake.t_view")
    assert any(base.rglob("*.parquet")) and os.path.isdir(base / ".hoodie")
