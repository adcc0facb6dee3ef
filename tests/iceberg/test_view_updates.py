"""Iceberg views kept by servers that share one catalog database.

- Two ``hudi-metastore serve`` processes taking commits of one table at once, each updating the view on its
  own thread: every commit is exactly one snapshot, in commit order; the loser of each race to register a
  version removed the files it wrote, so the metadata folder holds only what published versions list.
- ``hoodie.properties`` is read once per revision of the table's catalog row, not at every update.
- A commit answers before its view update; the update follows, and a failing one never fails the commit;
  an update that never ran is made by the table's next one.
"""

from __future__ import annotations

import re
import subprocess
import threading
import time
from pathlib import Path

import pytest
from pyiceberg.table import StaticTable
from thriftpy2.rpc import make_client

from benchmarks import metaserver_writer as writer
from hms_adapter.idl import metaserver as ms
from hms_adapter.serving import make_metaserver
from hudi_catalog import Catalog
from hudi_catalog.hudi.metadata import CommitMetadata, DecodedCompletion
from hudi_catalog.iceberg import DEFAULT_METADATA_DIR
from hudi_catalog.iceberg_views import ViewSettings
from hudi_catalog.services import iceberg_views, snapshot
from hudi_catalog.services.iceberg_views import APPLIED_PARAM, ERROR_PARAM, METADATA_LOCATION
from hudi_catalog.services.view_updates import HandedInstant
from tests.support.servers import free_port, serve_command, wait_for_port

MAX_ROUNDS = 8
BACKLOG = 12
REMOVED = re.compile(r"removed the unpublished Iceberg metadata (\S+) ")


def _serve(db_url: str, warehouse: Path, log) -> tuple[subprocess.Popen, int]:
    port, metaserver_port = free_port(), free_port()
    process = subprocess.Popen(
        serve_command(
            port, metaserver_port=metaserver_port, db_url=db_url, warehouse=warehouse, extra=["--iceberg-views"]
        ),
        stdout=log,
        stderr=subprocess.STDOUT,
        text=True,
    )
    wait_for_port(metaserver_port, process)
    return process, metaserver_port


def _server_logs(tmp_path: Path) -> str:
    return "".join((tmp_path / f"server{n}.log").read_text() for n in range(2))


def _applied(catalog: Catalog, commit: str) -> dict[str, str]:
    """The view's parameters once its update has reached ``commit`` (or after a minute, for the asserts)."""
    deadline = time.monotonic() + 60
    while True:
        parameters = catalog.tables.get("lake", "trips_iceberg").parameters
        if parameters.get(APPLIED_PARAM) == commit or time.monotonic() > deadline:
            return parameters
        time.sleep(0.1)


def _view_files(metadata_dir: Path) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {"metadata": set(), "lists": set(), "manifests": set()}
    for path in metadata_dir.iterdir():
        kind = (
            "metadata"
            if path.name.endswith(".metadata.json")
            else "lists"
            if path.name.startswith("snap-")
            else "manifests"
            if path.name.startswith("manifest-")
            else None
        )
        if kind is not None:
            found[kind].add(f"file:{path}")
    return found


@pytest.mark.parametrize("db_url", ["sqlite", "mysql"], indirect=True)
def test_two_servers_updating_one_view_lose_no_snapshot_and_leave_no_losing_file(db_url, tmp_path):
    """At least two rounds, and more until a server has lost a race (a busy machine may serialise them). Each
    round: commits that no server's view update saw (made by a third catalog, whose view updates are
    off), then one commit through each server, back to back: both servers' threads update the view from the
    same version at once, and one of them loses the compare-and-set."""
    base = tmp_path / "trips"
    writer.make_table(base)
    quiet = Catalog.open(db_url, str(tmp_path / "wh"))  # the schema, before two servers start on it
    quiet.timeline.after_complete = None
    backlog = make_metaserver(quiet, "127.0.0.1", 0)
    threading.Thread(target=backlog.serve_forever, daemon=True).start()
    logs = [open(tmp_path / f"server{n}.log", "w") for n in range(2)]
    servers = [_serve(db_url, tmp_path / "wh", log) for log in logs]
    ports = [port for _, port in servers] + [backlog.port]
    clients = [make_client(ms.ThriftHoodieMetaserver, "127.0.0.1", port, timeout=60_000) for port in ports]
    committed: list[str] = []

    def commit(through: int) -> None:
        committed.append(writer.write_commit(clients[through], base, "lake", "trips", len(committed)))

    try:
        writer.create(clients[0], base, "lake")
        commit(0)  # the view is made
        for round_number in range(1, MAX_ROUNDS + 1):
            for _ in range(BACKLOG):
                commit(2)
            first = writer.prepare(clients[0], base, "lake", "trips", len(committed))
            second = writer.prepare(clients[1], base, "lake", "trips", len(committed) + 1)
            committed.append(writer.complete(clients[0], "lake", "trips", *first))
            committed.append(writer.complete(clients[1], "lake", "trips", *second))  # its update starts at once
            parameters = _applied(quiet, committed[-1])
            if round_number >= 2 and REMOVED.search(_server_logs(tmp_path)):
                break  # the servers raced, which is what is tested; on a loaded machine it may take more rounds
    finally:
        for client in clients:
            client.close()
        for process, _ in servers:
            process.terminate()
            process.wait(60)
        for log in logs:
            log.close()
        backlog.stop()
        quiet.close()

    assert parameters[APPLIED_PARAM] == committed[-1] and ERROR_PARAM not in parameters
    view = StaticTable.from_metadata(parameters[METADATA_LOCATION])
    snapshots = sorted(view.snapshots(), key=lambda s: s.sequence_number)
    # every commit is one snapshot, in commit order, each the child of the one before
    assert [str(s.snapshot_id) for s in snapshots] == committed
    assert [s.sequence_number for s in snapshots] == list(range(1, len(committed) + 1))
    assert all(s.parent_snapshot_id == p.snapshot_id for p, s in zip(snapshots, snapshots[1:], strict=False))
    assert view.scan().to_arrow().num_rows == 10 * len(committed)

    # the servers raced, and each loser removed what it had written
    server_logs = _server_logs(tmp_path)
    removed = REMOVED.findall(server_logs)
    assert removed, "no server lost a race to publish the view: nothing was tested"
    assert "Traceback" not in server_logs, server_logs[-3000:]
    found = _view_files(base / DEFAULT_METADATA_DIR)
    assert not set(removed) & found["metadata"]
    published = {parameters[METADATA_LOCATION]} | {e.metadata_file for e in view.metadata.metadata_log}
    assert found["metadata"] == published  # one file per version, every one of them published
    assert found["lists"] == {s.manifest_list for s in snapshots}
    assert found["manifests"] == {m.manifest_path for s in snapshots for m in s.manifests(view.io)}


@pytest.fixture
def metaserver(catalog):
    """A metaserver over ``catalog`` in this process: ``(server, client)``."""
    server = make_metaserver(catalog, "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    client = make_client(ms.ThriftHoodieMetaserver, "127.0.0.1", server.port, timeout=60_000)
    yield server, client
    client.close()
    server.stop()
    thread.join(10)


@pytest.fixture
def catalog(db_url, warehouse):
    catalog = Catalog.open(db_url, str(warehouse), iceberg_views=ViewSettings(all_tables=True))
    yield catalog
    catalog.close()


@pytest.mark.parametrize("db_url", ["sqlite", "mysql"], indirect=True)
def test_hoodie_properties_is_read_once_per_table_revision(
    catalog, metaserver, db_url, warehouse, tmp_path, monkeypatch
):
    reads: list[str] = []
    real = iceberg_views.read_table_config

    def counting(fs, base_path):
        reads.append(base_path)
        return real(fs, base_path)

    monkeypatch.setattr(iceberg_views, "read_table_config", counting)
    _, client = metaserver
    base = tmp_path / "trips"
    writer.make_table(base)
    writer.create(client, base, "lake")
    for n in range(5):
        writer.write_commit(client, base, "lake", "trips", n)
    assert len(catalog.tables.get("lake", "trips_iceberg").parameters[APPLIED_PARAM]) == 17
    assert len(reads) == 1, reads  # the view built at the first commit, refreshed at four more

    # another server (its own cache) reads it once for itself; a change of the table, made there, raises the
    # table's revision in the database, and this server reads the file again at its next update
    other = Catalog.open(db_url, str(warehouse), init=False, iceberg_views=ViewSettings(all_tables=True))
    try:
        other.iceberg_views.refresh("lake", "trips")
        other.iceberg_views.refresh("lake", "trips")
        assert len(reads) == 2
        table = other.tables.get("lake", "trips")
        table.parameters["comment"] = "trips of the day"
        other.tables.alter("lake", "trips", table)
    finally:
        other.close()
    writer.write_commit(client, base, "lake", "trips", 5)
    writer.write_commit(client, base, "lake", "trips", 6)
    assert len(reads) == 3


@pytest.mark.parametrize("background", [False, True], ids=["inline", "background"])
@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_a_commit_is_decoded_once_for_the_snapshot_and_the_view(catalog, metaserver, tmp_path, monkeypatch, background):
    decodes: list[str] = []
    real = snapshot.decode_instant

    def counting(file, data, version):
        decodes.append(file.requested_time)
        return real(file, data, version)

    monkeypatch.setattr(snapshot, "decode_instant", counting)
    monkeypatch.setattr(iceberg_views, "decode_instant", counting)
    _, client = metaserver
    queue = catalog.iceberg_views.updates_in_background() if background else None
    if queue is not None:
        queue.start()
    try:
        base = tmp_path / "trips"
        writer.make_table(base)
        writer.create(client, base, "lake")
        first = writer.write_commit(client, base, "lake", "trips", 0)  # the view is built here
        # an update running when the next commit lands takes that commit too, before the commit hands its
        # decode over (it is handed once committed): that one is then decoded twice, a rare race this test
        # does not measure, so the second commit waits for the first update
        assert queue is None or queue.wait_idle(30)
        second = writer.write_commit(client, base, "lake", "trips", 1)  # and refreshed here
        assert queue is None or queue.wait_idle(30)
    finally:
        if queue is not None:
            queue.stop()
    assert catalog.tables.get("lake", "trips_iceberg").parameters[APPLIED_PARAM] == second
    assert decodes.count(first) == 1 and decodes.count(second) == 1, decodes

    # a decode handed for another table (one dropped and made again under the name) is not taken
    handed = {second: HandedInstant(-1, DecodedCompletion(6, CommitMetadata()))}
    decodes.clear()
    catalog.iceberg_views.create("lake", "trips", handed=handed)
    assert sorted(decodes) == sorted([first, second])
    assert catalog.tables.get("lake", "trips_iceberg").parameters[APPLIED_PARAM] == second


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_a_commit_answers_before_its_view_update_which_follows(catalog, metaserver, tmp_path):
    _, client = metaserver
    views = catalog.iceberg_views
    release = threading.Event()
    update = views.update

    def held(database: str, table: str, handed) -> None:
        release.wait(30)
        update(database, table, handed)

    views.update = held  # type: ignore[method-assign]
    queue = views.updates_in_background()
    queue.start()
    try:
        base = tmp_path / "trips"
        writer.make_table(base)
        writer.create(client, base, "lake")
        started = time.perf_counter()
        first = writer.write_commit(client, base, "lake", "trips", 0)
        second = writer.write_commit(client, base, "lake", "trips", 1)
        assert time.perf_counter() - started < 5  # the held update would take 30 s
        assert catalog.tables.names("lake") == ["trips"]  # the view is not there yet
        release.set()
        assert queue.wait_idle(30)
        parameters = catalog.tables.get("lake", "trips_iceberg").parameters
        assert parameters[APPLIED_PARAM] == second
        view = StaticTable.from_metadata(parameters[METADATA_LOCATION])
        assert sorted(str(s.snapshot_id) for s in view.snapshots()) == [first, second]

        # a commit whose view update fails still answers success; the view says why and keeps its snapshot
        prepared = writer.prepare(client, base, "lake", "trips", 2)
        (base / "region=ap").rename(base / "away")
        third = writer.complete(client, "lake", "trips", *prepared)
        assert queue.wait_idle(30)
        (base / "away").rename(base / "region=ap")
        assert queue.wait_idle(30)
        parameters = catalog.tables.get("lake", "trips_iceberg").parameters
        assert parameters[APPLIED_PARAM] == second and parameters[ERROR_PARAM].startswith("MissingDataFileError")
        assert queue.updates >= 2
    finally:
        release.set()
        queue.stop()
    # an update that never ran (its server died with it queued) is made by the table's next one
    catalog.timeline.after_complete = None
    fourth = writer.write_commit(client, base, "lake", "trips", 3)
    catalog.timeline.after_complete = views.instant_completed
    fifth = writer.write_commit(client, base, "lake", "trips", 4)  # inline again: the queue stopped
    parameters = catalog.tables.get("lake", "trips_iceberg").parameters
    assert parameters[APPLIED_PARAM] == fifth and ERROR_PARAM not in parameters
    view = StaticTable.from_metadata(parameters[METADATA_LOCATION])
    assert sorted(str(s.snapshot_id) for s in view.snapshots()) == [first, second, third, fourth, fifth]
