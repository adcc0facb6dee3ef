"""Several servers starting at once on a fresh catalog database: one creates the schema, none fails."""

from __future__ import annotations

import threading

import pytest

from hudi_catalog.store import schema
from hudi_catalog.store.engine import Store


@pytest.mark.empty_database
def test_concurrent_schema_initialisation(db_url):
    stores = [Store(db_url) for _ in range(4)]
    barrier = threading.Barrier(len(stores))
    versions, errors = [], []

    def start(store: Store) -> None:
        barrier.wait()
        try:
            versions.append(store.init_schema())
        except Exception as error:  # collected: the assertion below shows every failure
            errors.append(error)

    threads = [threading.Thread(target=start, args=(s,)) for s in stores]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for store in stores:
        store.dispose()
    assert errors == []
    # one found the database empty and created the layout; the others found it made when their turn came
    assert (
        sorted(((found or 0), [m.name for m in applied]) for found, applied in versions)
        == [(0, ["create"])] + [(schema.SCHEMA_VERSION, [])] * 3
    )
