"""A Hudi table's Iceberg view over the REST catalog: listed and loaded like any Iceberg table, holding the
rows hudi-rs reads, as fresh as the Thrift side, and read-only (a commit or a drop is refused with the
spec's 403, and nothing changes)."""

from __future__ import annotations

import pytest
from pyiceberg.catalog.hive import HiveCatalog
from pyiceberg.exceptions import ForbiddenError

from tests.hudi.tables import unpack
from tests.iceberg.helpers import PARQUET_COW_TABLES, assert_same_rows, oracle, oracle_read

WITH_ROWS = [n for n in PARQUET_COW_TABLES if "epochmillis" not in n and "empty" not in n]
TABLE = WITH_ROWS[0] if WITH_ROWS else None


@pytest.mark.skipif(TABLE is None, reason="no Hudi tables in ../shared/hudi-tables")
def test_the_view_of_a_hudi_table_is_served_read_only(catalog, rest, server, tmp_path):
    base = unpack(TABLE, tmp_path)
    catalog.import_table(str(base), database="lake", table="trips")
    made = catalog.iceberg_views.create("lake", "trips")
    assert made.error is None

    assert ("lake", "trips_iceberg") in rest.list_tables("lake")
    assert ("lake", "trips") not in rest.list_tables("lake")  # the Hudi table itself is not an Iceberg table
    view = rest.load_table("lake.trips_iceberg")
    over_thrift = HiveCatalog("hms", uri=server.uri).load_table("lake.trips_iceberg")
    assert view.metadata_location == over_thrift.metadata_location == made.metadata_location
    assert_same_rows(view.scan().to_arrow(), oracle_read(oracle(base)))

    with pytest.raises(ForbiddenError, match="Iceberg view of the Hudi table lake.trips"):
        view.transaction().set_properties(owner="me").commit_transaction()
    with pytest.raises(ForbiddenError):
        view.append(view.scan().to_arrow())
    with pytest.raises(ForbiddenError):
        rest.drop_table("lake.trips_iceberg")
    assert rest.load_table("lake.trips_iceberg").metadata_location == made.metadata_location
    assert rest.table_exists("lake.trips_iceberg")
