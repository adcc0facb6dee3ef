"""The view's metadata stays bounded: a Hudi clean expires the snapshots before its earliest retained commit (their
files may be gone) and deletes their manifest lists and the manifests only they listed; metadata files leave
with the metadata log; ``hudi-metastore iceberg DB.TABLE --expire-snapshots`` expires more on request, as
Iceberg's ``expire_snapshots``. Each time PyIceberg reads the current snapshot as before (and as hudi-rs reads
the table), and no data file is deleted."""

from __future__ import annotations

import json
import subprocess
import threading
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pyarrow import fs as pafs
from pyiceberg.catalog.hive import HiveCatalog
from pyiceberg.table import StaticTable
from thriftpy2.rpc import make_client

from benchmarks import metaserver_writer as writer
from hms_adapter.idl import metaserver as ms
from hms_adapter.serving import make_metaserver
from hudi_catalog import Catalog
from hudi_catalog.hudi import read_table_config
from hudi_catalog.hudi.file_names import BaseFileName
from hudi_catalog.iceberg import (
    DEFAULT_METADATA_DIR,
    InstantChanges,
    MissingDataFileError,
    TableInfo,
    ViewBuilder,
    build_view,
    completed_changes,
    table_info,
    take_changes,
    update_view,
)
from hudi_catalog.iceberg import builder as view_builder
from hudi_catalog.iceberg_views import ViewSettings
from hudi_catalog.services import iceberg_views
from hudi_catalog.services.iceberg_views import APPLIED_PARAM, METADATA_LOCATION
from tests.conftest import RunningServer
from tests.hudi.tables import unpack
from tests.iceberg.helpers import (
    assert_same_rows,
    data_files,
    listed_files,
    load,
    local_path,
    oracle,
    oracle_read,
    view_files,
)
from tests.support.hudi_metadata import CLEAN_PARTITION, _avro_file, _schema
from tests.support.servers import CLI

TABLE = "sample_table_cow_v9_txns_simple_nometa"
"""12 completed writes over 3 partitions: inserts, updates, deletes, an insert overwrite and a clustering."""
LOCAL = pafs.LocalFileSystem()
CLEAN_METADATA = _schema(
    "HoodieCleanMetadata",
    [
        ("startCleanTime", "string"),
        ("timeTakenInMillis", "long"),
        ("totalFilesDeleted", "int"),
        ("earliestCommitToRetain", "string"),
        ("partitionMetadata", {"type": "map", "values": CLEAN_PARTITION}),
    ],
)
"""Hudi's ``HoodieCleanMetadata``, the fields the view reads (a real clean of Hudi 1.1 names
``earliestCommitToRetain`` the same way)."""


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=300)


def test_a_clean_expires_the_snapshots_before_it_and_deletes_only_their_metadata_files(tmp_path, monkeypatch):
    """The view taken one commit at a time (each commit one metadata version, its log kept to 3), then a clean
    retaining the 10th write: the 9 snapshots before it leave the metadata, their manifest lists and the manifests
    no other snapshot lists leave the folder, every data file stays, and every remaining snapshot reads as hudi-rs
    reads the table as of its instant."""
    monkeypatch.setattr(view_builder, "PREVIOUS_VERSIONS_MAX_DEFAULT", 3)
    base = unpack(TABLE, tmp_path)
    config = read_table_config(LOCAL, str(base))
    table = table_info(config, str(base))
    folder = base / DEFAULT_METADATA_DIR
    writes = completed_changes(LOCAL, str(base), config)
    for change in writes:
        update = update_view(LOCAL, table, [change])
    before = load(update.metadata.location)
    rows = before.scan().to_arrow()
    files_before = data_files(base)
    assert len(before.snapshots()) == len(writes) == 12
    assert len(view_files(folder)["metadata"]) == 4  # the current version and the 3 of its log: older ones went
    assert view_files(folder) == listed_files(before)

    retained = writes[9].instant_time
    last = writes[-1].completion_time
    clean = InstantChanges(str(int(last) + 100), "clean", str(int(last) + 200), earliest_retained=retained)
    update = update_view(LOCAL, table, [clean])

    view = load(update.metadata.location)
    expired = [int(c.instant_time) for c in writes[:9]]
    assert list(update.expired.snapshots) == expired
    assert [s.snapshot_id for s in view.snapshots()] == [int(c.instant_time) for c in writes[9:]]
    assert {e.snapshot_id for e in view.metadata.snapshot_log} == {s.snapshot_id for s in view.snapshots()}
    assert set(view.metadata.refs) == {"main"} and view.current_snapshot().snapshot_id == int(writes[-1].instant_time)
    assert_same_rows(view.scan().to_arrow(), rows)
    hudi_table = oracle(base)
    for snapshot in view.snapshots():
        as_of = snapshot.summary["hudi.instant-time"]
        assert_same_rows(view.scan(snapshot_id=snapshot.snapshot_id).to_arrow(), oracle_read(hudi_table, as_of))

    gone = {local_path(s.manifest_list) for s in before.snapshots() if s.snapshot_id in expired}
    assert len(gone) == 9 and not any(path.exists() for path in gone)
    assert view_files(folder) == listed_files(view)  # nothing left that no version lists, nothing listed missing
    assert update.expired.manifests and not any(local_path(m).exists() for m in update.expired.manifests)
    assert data_files(base) == files_before  # no data file deleted


def test_an_import_after_a_clean_expires_the_view_on_its_own(tmp_path):
    """A real table imported with its view; then Hudi's cleaner runs (the file versions and replaced file groups
    before the earliest retained commit deleted, a ``.clean`` instant completed) and the table is imported
    again: the view takes the clean and expires the snapshots before it, with no command of its own."""
    base = unpack(TABLE, tmp_path)
    store = ["--db-url", f"sqlite:///{tmp_path / 'catalog.db'}", "--warehouse", str(tmp_path / "wh")]
    first = run("import", str(base), "--database", "lake", "--table", "t", "--iceberg-view", "--create-catalog", *store)
    assert first.returncode == 0, first.stderr
    before = StaticTable.from_metadata(_location(first.stdout))
    assert len(before.snapshots()) == 12
    writes = completed_changes(LOCAL, str(base), read_table_config(LOCAL, str(base)))
    retained = writes[9].instant_time

    cleaned = _clean(base, writes, retained)
    assert cleaned, "the cleaner found nothing to delete: nothing was tested"
    files_after_clean = data_files(base)
    again = run("import", str(base), "--database", "lake", "--table", "t", *store)
    assert again.returncode == 0, again.stderr

    view = StaticTable.from_metadata(_location(again.stdout))
    assert [s.summary["hudi.instant-time"] for s in view.snapshots()] == [c.instant_time for c in writes[9:]]
    hudi_table = oracle(base)
    assert_same_rows(view.scan().to_arrow(), oracle_read(hudi_table))
    for snapshot in view.snapshots():  # every snapshot left reads: its files are all there
        as_of = snapshot.summary["hudi.instant-time"]
        assert_same_rows(view.scan(snapshot_id=snapshot.snapshot_id).to_arrow(), oracle_read(hudi_table, as_of))
    expired_lists = {local_path(s.manifest_list) for s in before.snapshots()[:9]}
    assert not any(path.exists() for path in expired_lists)
    assert view_files(base / DEFAULT_METADATA_DIR) == listed_files(view)
    assert data_files(base) == files_after_clean


def test_a_view_behind_a_clean_catches_up_without_reading_the_files_it_deleted(tmp_path):
    """The view took the first 3 writes; the table goes on, Hudi's cleaner deletes the file versions before the
    10th write; the view then takes the other writes and the clean at once (a view catching up, a rebuild): the
    writes the clean expires are taken as part of the 10th, so no deleted file is read, and every snapshot left
    reads as hudi-rs reads the table as of its instant."""
    base = unpack(TABLE, tmp_path)
    config = read_table_config(LOCAL, str(base))
    table = table_info(config, str(base))
    writes = completed_changes(LOCAL, str(base), config)
    update_view(LOCAL, table, writes[:3])
    _clean(base, writes, writes[9].instant_time)
    changes = completed_changes(LOCAL, str(base), config)
    assert [c.action for c in changes[len(writes) :]] == ["clean"]

    caught_up = update_view(LOCAL, table, changes[3:])
    rebuilt = build_view(LOCAL, str(base), str(tmp_path / "rebuilt"))
    hudi_table = oracle(base)
    for update in (caught_up, rebuilt):
        assert update.error is None
        view = load(update.metadata.location)
        assert [s.summary["hudi.instant-time"] for s in view.snapshots()] == [c.instant_time for c in writes[9:]]
        for snapshot in view.snapshots():
            as_of = snapshot.summary["hudi.instant-time"]
            assert_same_rows(view.scan(snapshot_id=snapshot.snapshot_id).to_arrow(), oracle_read(hudi_table, as_of))
        assert view_files(local_path(update.metadata.location).parent) == listed_files(view)


def test_a_refresh_stopped_at_a_write_taking_expired_ones_starts_again_before_them(tmp_path):
    """The writes a clean expires are taken with the next one it keeps; when that one cannot be taken yet (its
    file is not readable), none of them was: the refresh reports it stopped before the first of them."""
    base = tmp_path / "t"
    (base / "p").mkdir(parents=True)
    for name in ("g1_0-1-1_1.parquet", "g1_0-1-1_2.parquet"):
        pq.write_table(pa.table({"id": pa.array([1], pa.int64())}), base / "p" / name)
    schema = '{"type":"record","name":"r","fields":[{"name":"id","type":"long"}]}'
    changes = [
        InstantChanges(
            "20250101000000001", "commit", "20250101000000001", {"p": ("g1_0-1-1_1.parquet",)}, schema=schema
        ),
        InstantChanges("20250101000000002", "commit", "20250101000000002", {"p": ("g1_0-1-1_2.parquet",)}),
        InstantChanges("20250101000000003", "commit", "20250101000000003", {"p": ("g2_0-1-1_3.parquet",)}),
        InstantChanges("20250101000000004", "clean", "20250101000000004", earliest_retained="20250101000000003"),
    ]
    builder = ViewBuilder(LOCAL, TableInfo(str(base)))
    taken, error = take_changes(builder, changes, block_on_missing_file=False)
    assert isinstance(error, MissingDataFileError) and taken == 0
    pq.write_table(pa.table({"id": pa.array([2], pa.int64())}), base / "p" / "g2_0-1-1_3.parquet")  # readable now
    builder = ViewBuilder(LOCAL, TableInfo(str(base)))
    assert take_changes(builder, changes, block_on_missing_file=False) == (4, None)
    view = load(builder.commit().metadata.location)
    assert [s.snapshot_id for s in view.snapshots()] == [20250101000000003]
    assert sorted(Path(f).name for f in (t.file.file_path for t in view.scan().plan_files())) == [
        "g1_0-1-1_2.parquet",
        "g2_0-1-1_3.parquet",
    ]


def test_the_expire_snapshots_command(tmp_path):
    """``--dry-run`` lists what would go and changes nothing; the expiry then removes exactly that and PyIceberg
    reads the same rows from the current snapshot; ``--older-than`` before every snapshot expires none; a table
    without a view is a clear error; a base path works as for building."""
    base = unpack(TABLE, tmp_path)
    store = ["--db-url", f"sqlite:///{tmp_path / 'catalog.db'}", "--warehouse", str(tmp_path / "wh")]
    imported = run(
        "import", str(base), "--database", "lake", "--table", "t", "--iceberg-view", "--create-catalog", *store
    )
    assert imported.returncode == 0, imported.stderr
    location = _location(imported.stdout)
    before = StaticTable.from_metadata(location)
    rows = before.scan().to_arrow()
    folder = base / DEFAULT_METADATA_DIR
    files, table_files = view_files(folder), data_files(base)

    dry = run("iceberg", "lake.t", "--expire-snapshots", "--retain-last", "3", "--dry-run", *store)
    assert dry.returncode == 0, dry.stderr
    assert "would expire 9 snapshots" in dry.stdout, dry.stdout
    expired = sorted(s.snapshot_id for s in before.snapshots())[:9]
    assert [int(line.split()[1]) for line in dry.stdout.splitlines() if line.startswith("  snapshot ")] == expired
    would_go = {local_path(line.split(" ", 3)[3]) for line in dry.stdout.splitlines() if line.startswith("  file ")}
    assert {local_path(s.manifest_list) for s in before.snapshots() if s.snapshot_id in expired} <= would_go
    assert view_files(folder) == files and _registered(tmp_path) == location  # nothing changed

    done = run("iceberg", "lake.t_iceberg", "--expire-snapshots", "--retain-last", "3", *store)  # the view's name
    assert done.returncode == 0, done.stderr
    assert "expired 9 snapshots" in done.stdout, done.stdout
    gone = {local_path(line.split(" ", 3)[3]) for line in done.stdout.splitlines() if line.startswith("  file ")}
    assert gone == would_go and not any(path.exists() for path in gone)
    view = StaticTable.from_metadata(_registered(tmp_path))
    assert (
        sorted(s.snapshot_id for s in view.metadata.snapshots) == sorted(s.snapshot_id for s in before.snapshots())[9:]
    )
    assert_same_rows(view.scan().to_arrow(), rows)
    assert_same_rows(view.scan().to_arrow(), oracle_read(oracle(base)))
    assert view_files(folder) == listed_files(view)
    assert data_files(base) == table_files

    none = run("iceberg", "lake.t", "--expire-snapshots", "--older-than", "2020-01-01T00:00:00Z", *store)
    assert none.returncode == 0 and "expired 0 snapshots" in none.stdout, (none.stdout, none.stderr)
    assert run("iceberg", "lake.t", "--older-than", "2020-01-01", *store).returncode == 2  # goes with expiry

    (tmp_path / "plain").mkdir()
    other = unpack(TABLE, tmp_path / "plain")
    plain = run("import", str(other), "--database", "lake", "--table", "plain", *store)
    assert plain.returncode == 0, plain.stderr
    refused = run("iceberg", "lake.plain", "--expire-snapshots", *store)
    assert refused.returncode == 1 and "lake.plain has no Iceberg view" in refused.stderr, refused.stderr
    assert "Traceback" not in refused.stderr

    # a view registered nowhere, by its base path
    built = run("iceberg", str(other), "--metadata-dir", str(tmp_path / "loose"))
    assert built.returncode == 0, built.stderr
    loose = run("iceberg", str(other), "--expire-snapshots", "--metadata-dir", str(tmp_path / "loose"))
    assert loose.returncode == 0 and "expired 11 snapshots" in loose.stdout, (loose.stdout, loose.stderr)


@pytest.fixture
def catalog(db_url, warehouse):
    catalog = Catalog.open(db_url, str(warehouse), iceberg_views=ViewSettings(all_tables=True))
    yield catalog
    catalog.close()


@pytest.fixture
def metaserver_client(catalog):
    """A metaserver over ``catalog`` in this process, and a client of it."""
    server = make_metaserver(catalog, "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    client = make_client(ms.ThriftHoodieMetaserver, "127.0.0.1", server.port, timeout=60_000)
    yield client
    client.close()
    server.stop()
    thread.join(10)


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_a_clean_through_the_metaserver_expires_the_view_right_after(catalog, metaserver_client, tmp_path):
    """Commits through the metaserver, a new version of a file group by each, then a clean (the superseded
    versions deleted): once the clean's transaction committed, the view has expired the snapshots before its
    earliest retained commit."""
    client = metaserver_client
    base = tmp_path / "trips"
    writer.make_table(base)
    writer.create(client, base, "lake")
    commits = [writer.write_commit(client, base, "lake", "trips", 0)]
    versions = [f"region=eu/{_files(base)[0].name}"]
    for n in range(1, 5):
        ts, name = _rewrite(client, base, versions[-1], n)
        commits.append(ts)
        versions.append(f"region=eu/{name}")
    view_location = catalog.tables.get("lake", "trips_iceberg").parameters[METADATA_LOCATION]
    before = StaticTable.from_metadata(view_location)
    rows = before.scan().to_arrow()
    assert len(before.snapshots()) == 5

    deleted = versions[:2]  # the versions no commit from the 3rd on reads
    for path in deleted:
        (base / path).unlink()
    _complete_clean(client, deleted, retained=commits[2])

    server = RunningServer(catalog)
    try:  # as an Iceberg reader loads it: through the Hive catalog, over the wire
        view = HiveCatalog("hms", uri=server.uri).load_table("lake.trips_iceberg")
    finally:
        server.stop()
    assert [str(s.snapshot_id) for s in view.snapshots()] == commits[2:]
    assert [str(e.snapshot_id) for e in view.metadata.snapshot_log] == commits[2:]
    assert_same_rows(view.scan().to_arrow(), rows)
    assert not any(local_path(s.manifest_list).exists() for s in before.snapshots()[:2])
    assert view_files(base / DEFAULT_METADATA_DIR) == listed_files(view)
    assert {p.relative_to(base).as_posix() for p in data_files(base)} == set(versions[2:])


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
@pytest.mark.parametrize("first", ["update", "expiry"])
def test_an_expiry_and_a_view_update_at_once_lose_neither(catalog, metaserver_client, tmp_path, monkeypatch, first):
    """An expiry and a commit's view update start from the same version; whichever publishes first, the other's
    compare-and-set fails and it starts again from the winner's version: the commit's snapshot is there, the
    expired snapshots are not, and every file the final version lists is on disk."""
    client = metaserver_client
    base = tmp_path / "trips"
    writer.make_table(base)
    writer.create(client, base, "lake")
    commits = [writer.write_commit(client, base, "lake", "trips", n) for n in range(4)]
    views = catalog.iceberg_views
    publish = iceberg_views.IcebergViewService._publish
    raced: list[str] = []

    def racing(self, source, name, existing, update, *args, **kwargs):
        if not raced:  # the first publish lets the other side publish first
            raced.append("once")
            if first == "update":  # an expiry about to publish: a commit's update gets in first
                commits.append(writer.write_commit(client, base, "lake", "trips", len(commits)))
            else:  # a commit's update about to publish: an expiry gets in first
                views.expire_snapshots("lake", "trips", older_than_ms=1 << 62, retain_last=2)
        return publish(self, source, name, existing, update, *args, **kwargs)

    monkeypatch.setattr(iceberg_views.IcebergViewService, "_publish", racing)
    if first == "update":
        result = views.expire_snapshots("lake", "trips", older_than_ms=1 << 62, retain_last=2)
        assert [str(s) for s in result.snapshots] == commits[:3]  # taken again from the version with the commit
    else:
        commits.append(writer.write_commit(client, base, "lake", "trips", len(commits)))
    assert raced

    parameters = catalog.tables.get("lake", "trips_iceberg").parameters
    assert parameters[APPLIED_PARAM] == commits[-1]
    view = StaticTable.from_metadata(parameters[METADATA_LOCATION])
    kept = [str(s.snapshot_id) for s in view.snapshots()]
    assert kept == (commits[3:] if first == "update" else commits[2:]), (kept, commits)
    assert view.scan().to_arrow().num_rows == 10 * len(commits)  # every commit's rows, none lost
    listed = listed_files(view)
    assert all(path.exists() for paths in listed.values() for path in paths)
    assert view_files(base / DEFAULT_METADATA_DIR) == listed  # and the loser left nothing behind


# -- a Hudi writer's steps, as the tests need them -------------------------------------------------------------


def _location(stdout: str) -> str:
    return stdout.split("Iceberg view lake.t_iceberg: ", 1)[1].splitlines()[0]


def _registered(tmp_path: Path) -> str:
    catalog = Catalog.open(f"sqlite:///{tmp_path / 'catalog.db'}", str(tmp_path / "wh"), init=False)
    try:
        return catalog.tables.get("lake", "t_iceberg").parameters[METADATA_LOCATION]
    finally:
        catalog.close()


def _clean(base: Path, writes: list[InstantChanges], retained: str) -> dict[str, list[str]]:
    """What Hudi's cleaner does keeping the commits from ``retained`` on (``KEEP_LATEST_COMMITS``): delete the
    base files of each file group older than its newest one before ``retained``, and every file of the groups
    replaced before it; then complete a ``.clean`` instant saying so. Returns partition -> names deleted."""
    versions: dict[tuple[str, str], list[tuple[str, str]]] = {}  # (partition, file id) -> (instant, name)
    replaced_before: set[tuple[str, str]] = set()
    for change in writes:
        for partition, names in change.added_base_files.items():
            for name in names:
                file_id = BaseFileName.parse(name).file_id
                versions.setdefault((partition, file_id), []).append((change.instant_time, name))
        if change.instant_time < retained:
            replaced_before |= {(p, f) for p, ids in change.replaced_file_ids.items() for f in ids}
    deleted: dict[str, list[str]] = {}
    for (partition, file_id), found in versions.items():
        older = [name for instant, name in sorted(found) if instant < retained]
        going = older if (partition, file_id) in replaced_before else older[:-1]
        for name in going:
            (base / partition / name).unlink()
            deleted.setdefault(partition, []).append(name)
    last = writes[-1].completion_time
    requested, completed = str(int(last) + 100), str(int(last) + 200)
    metadata = {
        "startCleanTime": requested,
        "timeTakenInMillis": 5,
        "totalFilesDeleted": sum(map(len, deleted.values())),
        "earliestCommitToRetain": retained,
        "partitionMetadata": {p: _clean_partition(p, names) for p, names in deleted.items()},
    }
    timeline = base / ".hoodie" / "timeline"
    (timeline / f"{requested}.clean.requested").write_bytes(b"")
    (timeline / f"{requested}.clean.inflight").write_bytes(b"")
    (timeline / f"{requested}_{completed}.clean").write_bytes(_avro_file(CLEAN_METADATA, [metadata]))
    return deleted


def _clean_partition(partition: str, names: list[str]) -> dict:
    return {
        "partitionPath": partition,
        "policy": "KEEP_LATEST_COMMITS",
        "deletePathPatterns": names,
        "successDeleteFiles": names,
        "failedDeleteFiles": [],
        "isPartitionDeleted": None,
    }


def _files(base: Path) -> list[Path]:
    return sorted(data_files(base))


def _rewrite(client, base: Path, previous: str, n: int) -> tuple[str, str]:
    """A commit through the metaserver writing a new version of the file group of ``previous`` (a path under
    ``base``), its rows changed; returns the instant time and the new file's name."""
    partition, old_name = previous.split("/")
    file_id = BaseFileName.parse(old_name).file_id
    ts = client.createNewInstantTime("lake", "trips")
    name = f"{file_id}_0-1-1_{ts}.parquet"
    rows = pq.read_table(base / previous)
    rows = rows.set_column(0, "id", pa.array([i + 1000 * n for i in range(rows.num_rows)], pa.int64()))
    pq.write_table(rows, base / partition / name)
    stat = {
        "fileId": file_id,
        "path": f"{partition}/{name}",
        "prevCommit": BaseFileName.parse(old_name).instant_time,
        "numWrites": rows.num_rows,
        "numUpdateWrites": rows.num_rows,
        "fileSizeInBytes": (base / partition / name).stat().st_size,
        "partitionPath": partition,
    }
    metadata = {
        "partitionToWriteStats": {partition: [stat]},
        "extraMetadata": {"schema": writer.SCHEMA},
        "operationType": "UPSERT",
    }
    inflight = ms.THoodieInstant(timestamp=ts, action=ms.TAction.COMMIT, state=ms.TState.INFLIGHT)
    client.createNewInstantWithTime("lake", "trips", inflight, b"")
    writer.complete(client, "lake", "trips", ts, json.dumps(metadata).encode())
    return ts, name


def _complete_clean(client, deleted: list[str], retained: str) -> str:
    """A clean through the metaserver: the files ``deleted`` (paths under the table) gone, ``retained`` the
    earliest commit it kept."""
    ts = client.createNewInstantTime("lake", "trips")
    by_partition: dict[str, list[str]] = {}
    for path in deleted:
        partition, name = path.split("/")
        by_partition.setdefault(partition, []).append(name)
    metadata = {
        "startCleanTime": ts,
        "timeTakenInMillis": 5,
        "totalFilesDeleted": len(deleted),
        "earliestCommitToRetain": retained,
        "partitionMetadata": {p: _clean_partition(p, names) for p, names in by_partition.items()},
    }
    inflight = ms.THoodieInstant(timestamp=ts, action=ms.TAction.CLEAN, state=ms.TState.INFLIGHT)
    done = ms.THoodieInstant(timestamp=ts, action=ms.TAction.CLEAN, state=ms.TState.COMPLETED)
    client.createNewInstantWithTime("lake", "trips", inflight, b"")
    assert client.transitionInstantState(
        "lake", "trips", inflight, done, _avro_file(CLEAN_METADATA, [metadata])
    ).success
    return ts
