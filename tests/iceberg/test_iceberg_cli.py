"""The Iceberg views as a user runs them: ``import --iceberg-view``, ``hudi-metastore iceberg DB.TABLE|PATH``
and ``serve --iceberg-views`` as real processes, read by PyIceberg over the wire."""

from __future__ import annotations

import subprocess
from pathlib import Path
from types import SimpleNamespace

from pyiceberg.catalog.hive import HiveCatalog
from pyiceberg.table import StaticTable
from thriftpy2.rpc import make_client

from hms_adapter.idl import metaserver as ms
from hudi_catalog import Catalog
from hudi_catalog.services.iceberg_views import SOURCE_PARAM, VIEW_PARAM
from tests.conftest import RunningServer
from tests.hudi.tables import unpack
from tests.iceberg.helpers import assert_same_rows, oracle, oracle_read, wait_for_view
from tests.support.metaserver_replay import replay
from tests.support.servers import CLI, free_port, serve_command, wait_for_port

TABLE = "sample_table_cow_v8_complexkeygen_hivestyle"


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=300)


def test_import_with_a_view_and_the_iceberg_command(tmp_path):
    base = unpack(TABLE, tmp_path)
    db_url, warehouse = f"sqlite:///{tmp_path / 'catalog.db'}", str(tmp_path / "wh")
    store = ["--db-url", db_url, "--warehouse", warehouse]

    imported = run(
        "import", str(base), "--database", "lake", "--table", "t", "--iceberg-view", "--create-catalog", *store
    )
    assert imported.returncode == 0, imported.stderr
    assert "Iceberg view lake.t_iceberg: " in imported.stdout
    renamed = run("iceberg", "lake.t", "--name", "t_as_iceberg", *store)
    assert renamed.returncode == 0, renamed.stderr
    refused = run("iceberg", "lake.nothing", *store)
    assert refused.returncode != 0 and "nothing" in refused.stderr

    catalog = Catalog.open(db_url, warehouse)
    server = RunningServer(catalog)
    try:
        assert catalog.tables.get("lake", "t").parameters[VIEW_PARAM] == "t_as_iceberg"
        assert catalog.tables.get("lake", "t_as_iceberg").parameters[SOURCE_PARAM] == "lake.t"
        iceberg = HiveCatalog("hms", uri=server.uri)
        theirs = oracle_read(oracle(base))
        assert_same_rows(iceberg.load_table("lake.t_as_iceberg").scan().to_arrow(), theirs)
        assert "t_iceberg" not in catalog.tables.names("lake")  # the view moved: no stale copy left behind
    finally:
        server.stop()
        catalog.close()

    # a base path: the metadata is written where asked and registered nowhere
    built = run("iceberg", str(base), "--metadata-dir", str(tmp_path / "elsewhere"))
    assert built.returncode == 0, built.stderr
    location = built.stdout.split(": ", 1)[1].splitlines()[0]
    assert Path(location).parent == tmp_path / "elsewhere"
    assert_same_rows(StaticTable.from_metadata(location).scan().to_arrow(), oracle_read(oracle(base)))
    assert run("iceberg", str(base), "--name", "x").returncode != 0


def test_serve_with_iceberg_views_keeps_a_view_of_every_table_written_through_the_metaserver(tmp_path):
    base = unpack(TABLE, tmp_path)
    db_url, warehouse = f"sqlite:///{tmp_path / 'catalog.db'}", str(tmp_path / "wh")
    Catalog.open(db_url, warehouse).close()
    port, metaserver_port = free_port(), free_port()
    process = subprocess.Popen(
        serve_command(
            port, metaserver_port=metaserver_port, db_url=db_url, warehouse=warehouse, extra=["--iceberg-views"]
        ),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_for_port(port, process)
        client = make_client(ms.ThriftHoodieMetaserver, "127.0.0.1", metaserver_port, timeout=60_000)
        partition_keys = _partition_keys(base, tmp_path)
        # the server keeps its own clock: the replay's clock setting reaches nothing
        replay(SimpleNamespace(ctx=SimpleNamespace()), client, base, "replayed", partition_keys)
        client.close()
        hudi_table = oracle(base)
        commits = len(hudi_table.get_timeline().get_completed_commits())
        # the commits answered before their view updates: the view follows within moments
        view = wait_for_view(HiveCatalog("hms", uri=f"thrift://127.0.0.1:{port}"), "replayed.t_iceberg", commits)
        assert_same_rows(view.scan().to_arrow(), oracle_read(hudi_table))
        assert len(view.snapshots()) == commits
    finally:
        process.terminate()
        process.wait(timeout=60)


def _partition_keys(base: Path, tmp_path: Path) -> list:
    """The table's partition columns, as an import finds them."""
    from hudi_catalog.services.hudi_import import HudiImporter

    catalog = Catalog.open(f"sqlite:///{tmp_path / 'keys.db'}", str(tmp_path / "keys"))
    try:
        HudiImporter(catalog).run(str(base), database="keys", table="t")
        return catalog.tables.get("keys", "t").partition_keys
    finally:
        catalog.close()


def test_an_import_rerun_brings_the_view_along(tmp_path):
    """A table imported with a view, then written again: the next import (without the option) adds the new
    commit to the view as one more metadata version, not a rebuild."""
    base = unpack("sample_table_cow_v6_simplekeygen_nonhivestyle", tmp_path)
    store = ["--db-url", f"sqlite:///{tmp_path / 'catalog.db'}", "--warehouse", str(tmp_path / "wh")]
    later = sorted((base / ".hoodie").glob("*.commit"))[-1].name.split(".")[0]
    away = [p for p in (base / ".hoodie").iterdir() if p.name.startswith(later)]
    for path in away:  # the second commit has not happened yet
        path.rename(tmp_path / path.name)
    first = run("import", str(base), "--database", "lake", "--table", "t", "--iceberg-view", "--create-catalog", *store)
    assert first.returncode == 0, first.stderr
    for path in away:
        (tmp_path / path.name).rename(path)
    again = run("import", str(base), "--database", "lake", "--table", "t", *store)
    assert again.returncode == 0, again.stderr

    before = first.stdout.split("Iceberg view lake.t_iceberg: ", 1)[1].splitlines()[0]
    after = again.stdout.split("Iceberg view lake.t_iceberg: ", 1)[1].splitlines()[0]
    assert Path(after).name.startswith("00002-") and Path(before).name.startswith("00001-")
    view = StaticTable.from_metadata(after)
    assert [s.summary["hudi.instant-time"] for s in view.snapshots()][-1] == later
    assert_same_rows(view.scan().to_arrow(), oracle_read(oracle(base)))


def test_a_view_stopped_at_a_change_iceberg_cannot_express_exits_1_from_import_and_iceberg(tmp_path):
    """The table registers; its view stops at the instant whose schema change Iceberg cannot express, and both
    commands say so and exit 1 (``docs/cli.md``, exit codes)."""
    base = unpack("sample_table_cow_v9_timebasedkeygen_epochmillis", tmp_path)
    store = ["--db-url", f"sqlite:///{tmp_path / 'catalog.db'}", "--warehouse", str(tmp_path / "wh")]
    imported = run(
        "import", str(base), "--database", "lake", "--table", "t", "--iceberg-view", "--create-catalog", *store
    )
    again = run("iceberg", "lake.t", *store)
    for done in (imported, again):
        assert done.returncode == 1, (done.stdout, done.stderr)
        assert "Traceback" not in done.stderr
    assert "instants recorded" in imported.stdout
    assert "stopped" in imported.stdout + imported.stderr and "stopped" in again.stdout + again.stderr
