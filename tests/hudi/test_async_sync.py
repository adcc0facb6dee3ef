"""Asynchronous snapshot sync: completing an instant does not touch the snapshot; ``sync_pending`` applies
pending instants in order, once, also after a restart, and the result equals the inline import."""

from __future__ import annotations

import time

from hudi_catalog import Catalog
from hudi_catalog.catalog import SnapshotSyncer
from hudi_catalog.services.hudi_import import HudiImporter
from tests.hudi.tables import unpack
from tests.support.servers import READY_SECONDS

TABLE = "sample_table_mor_avro_v9_txns_simple_meta"


def slices(catalog, database: str) -> set[tuple]:
    return {
        (s.partition_path, s.file_id, s.base_file, tuple(s.log_files))
        for found in catalog.snapshot.latest_file_slices(database, "t").values()
        for s in found
    }


def test_async_sync_applies_pending_instants_once_and_after_a_restart(db_url, warehouse, tmp_path):
    base = unpack(TABLE, tmp_path)
    inline = Catalog.open(db_url, str(warehouse))
    HudiImporter(inline).run(str(base), database="inline", table="t")
    expected = slices(inline, "inline")
    inline.close()

    first = Catalog.open(db_url, str(warehouse), snapshot_sync="async")
    result = HudiImporter(first).run(str(base), database="deferred", table="t")
    assert result.recorded > 0
    assert slices(first, "deferred") == set()  # the timeline is there, the snapshot not yet
    first.close()

    restarted = Catalog.open(db_url, str(warehouse), snapshot_sync="async")
    applied = restarted.snapshot.sync_pending()
    assert applied == len([i for i in restarted.timeline.instants("deferred", "t") if i.completion_time])
    assert slices(restarted, "deferred") == expected
    assert restarted.snapshot.sync_pending() == 0
    restarted.close()


def test_background_syncer_catches_up(db_url, warehouse, tmp_path):
    base = unpack(TABLE, tmp_path)
    inline = Catalog.open(f"sqlite:///{tmp_path / 'inline.db'}", str(tmp_path / "inline-wh"))
    try:
        HudiImporter(inline).run(str(base), database="bg", table="t")
        expected = slices(inline, "bg")
    finally:
        inline.close()
    assert expected
    catalog = Catalog.open(db_url, str(warehouse), snapshot_sync="async")
    syncer = SnapshotSyncer(catalog, interval_seconds=0.05)
    syncer.start()
    try:
        HudiImporter(catalog).run(str(base), database="bg", table="t")
        # the syncer alone brings the snapshot to what inline sync makes (the ceiling only bounds a hang)
        deadline = time.monotonic() + READY_SECONDS
        while time.monotonic() < deadline and slices(catalog, "bg") != expected:
            time.sleep(0.05)
        assert slices(catalog, "bg") == expected
        assert catalog.snapshot.sync_pending() == 0
    finally:
        syncer.stop()
        catalog.close()
