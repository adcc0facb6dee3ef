"""Partition lists (and single partitions) answered from cached wire encodings: the same answer as a fresh
encoding, in every protocol, and never stale after a change of the partition, its table's name, schema or
location. A partition added over Thrift is stored with its encoding, the same as its first read would make."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select
from thriftpy2.protocol import TCompactProtocolFactory
from thriftpy2.transport import TFramedTransportFactory

from hudi_catalog.store import partitions as partition_store
from hudi_catalog.store import schema
from hudi_catalog.store import tables as table_store
from tests.conftest import RunningServer, hive
from tests.hms_adapter.helpers import cols, make_database, make_partition, make_table


def cached_count(catalog) -> int:
    with catalog.store.read() as conn:
        return conn.execute(
            select(func.count()).select_from(schema.partitions).where(schema.partitions.c.encoded.is_not(None))
        ).scalar_one()


def forget_encodings(catalog, database: str, table: str) -> None:
    """Drop the table's stored encodings, as any change of its partitions does: the next read encodes them."""
    with catalog.store.write() as conn:
        partition_store.all_changed(conn, table_store.get_keys(conn, database, table).id)


def as_tuples(partitions) -> list[tuple]:
    """What a client sees of partitions, with the storage descriptor as its thrift repr."""
    return [
        (
            p.dbName,
            p.tableName,
            p.catName,
            p.values,
            p.createTime,
            p.parameters.get("k"),
            p.sd.location,
            [(c.name, c.type) for c in p.sd.cols],
            repr(p.sd),
        )
        for p in partitions
    ]


@pytest.fixture
def table(client, warehouse):
    client.create_database(make_database("enc", location=f"file:{warehouse}/enc.db"))
    client.create_table(make_table("enc", "t", partition_keys=cols("ds:string", "hr:int")))
    client.add_partitions(
        [
            make_partition("enc", "t", [f"2024-01-0{d}", str(h)], params={"k": f"{d}-{h}"})
            for d in (1, 2)
            for h in (9, 10)
        ]
    )
    return "t"


def test_cached_answer_equals_the_first_answer(client, catalog, table):
    forget_encodings(catalog, "enc", table)
    assert cached_count(catalog) == 0
    first = client.get_partitions("enc", table, -1)
    assert cached_count(catalog) == 4
    again = client.get_partitions("enc", table, -1)
    assert as_tuples(again) == as_tuples(first)
    assert [p.values for p in again] == [
        ["2024-01-01", "10"],
        ["2024-01-01", "9"],
        ["2024-01-02", "10"],
        ["2024-01-02", "9"],
    ]
    assert again[0].dbName == "enc" and again[0].tableName == "t" and again[0].catName == "hive"
    assert [p.values for p in client.get_partitions_by_filter("enc", table, "hr > 9", -1)] == [
        ["2024-01-01", "10"],
        ["2024-01-02", "10"],
    ]
    assert [p.values for p in client.get_partitions_by_names("enc", table, ["ds=2024-01-02/hr=9"])] == [
        ["2024-01-02", "9"]
    ]
    assert [p.values for p in client.get_partitions_ps("enc", table, ["", "9"], -1)] == [
        ["2024-01-01", "9"],
        ["2024-01-02", "9"],
    ]


def test_get_partition_answers_from_the_encoding_as_lists_do(client, catalog, table):
    forget_encodings(catalog, "enc", table)
    fresh = client.get_partition("enc", table, ["2024-01-02", "9"])  # encodes it and stores the encoding
    assert cached_count(catalog) == 1
    cached = client.get_partition("enc", table, ["2024-01-02", "9"])
    listed = client.get_partitions_by_names("enc", table, ["ds=2024-01-02/hr=9"])
    assert as_tuples([cached]) == as_tuples([fresh]) == as_tuples(listed)
    assert (cached.dbName, cached.tableName, cached.catName, cached.parameters["k"]) == ("enc", "t", "hive", "2-9")
    assert client.get_partition_with_auth("enc", table, ["2024-01-02", "9"], "u", []).values == ["2024-01-02", "9"]
    answer = client.get_partition_req(
        hive.GetPartitionRequest(dbName="enc", tblName=table, partVals=["2024-01-02", "9"])
    )
    assert as_tuples([answer.partition]) == as_tuples([cached])
    with pytest.raises(hive.NoSuchObjectException, match=r"partition values=\[2024-01-02, 11\]"):
        client.get_partition("enc", table, ["2024-01-02", "11"])
    with pytest.raises(hive.MetaException, match=r"Invalid partition key & values"):
        client.get_partition("enc", table, ["2024-01-02"])


def test_compact_protocol_gets_the_same_partitions(catalog, client, table):
    binary = client.get_partitions("enc", table, -1)  # fills the cache
    running = RunningServer(catalog, transport="framed", protocol="compact")
    try:
        compact = running.client(TCompactProtocolFactory(), TFramedTransportFactory())
        assert as_tuples(compact.get_partitions_by_filter("enc", table, "", -1)) == as_tuples(binary)
        assert as_tuples([compact.get_partition("enc", table, ["2024-01-01", "9"])]) == as_tuples(binary[1:2])
        compact.close()
    finally:
        running.stop()


def test_altered_partition_is_never_served_stale(client, catalog, table):
    client.get_partitions("enc", table, -1)
    part = client.get_partition("enc", table, ["2024-01-01", "9"])
    part.parameters["k"] = "changed"
    part.sd.cols = cols("id:bigint", "name:string", "extra:double")
    client.alter_partition("enc", table, part)
    assert cached_count(catalog) == 3
    got = client.get_partitions_by_names("enc", table, ["ds=2024-01-01/hr=9"])[0]
    assert got.parameters["k"] == "changed"
    assert [c.name for c in got.sd.cols] == ["id", "name", "extra"]


def test_renamed_partition_and_renamed_table(client, catalog, table):
    client.get_partitions("enc", table, -1)
    renamed = client.get_partition("enc", table, ["2024-01-01", "9"])
    renamed.values = ["2024-01-03", "9"]
    client.rename_partition("enc", table, ["2024-01-01", "9"], renamed)
    moved = client.get_table("enc", table)
    moved.tableName = "u"
    client.alter_table("enc", table, moved)
    found = client.get_partitions("enc", "u", -1)
    assert {p.tableName for p in found} == {"u"}
    assert ["2024-01-03", "9"] in [p.values for p in found]
    assert ["2024-01-01", "9"] not in [p.values for p in found]
    assert all(p.sd.location.endswith("/enc.db/u/" + f"ds={p.values[0]}/hr={p.values[1]}") for p in found)


def test_alter_table_cascade_reaches_cached_partitions(client, catalog, table):
    client.get_partitions("enc", table, -1)
    changed = client.get_table("enc", table)
    changed.sd.cols = cols("id:bigint", "name:string", "added:int")
    client.alter_table_with_cascade("enc", table, changed, True)
    assert all([c.name for c in p.sd.cols] == ["id", "name", "added"] for p in client.get_partitions("enc", table, -1))


def test_encoding_of_a_changed_revision_is_not_stored(catalog, client, table):
    forget_encodings(catalog, "enc", table)
    _, _, found = catalog.partitions.read_encoded("enc", table, names=["ds=2024-01-01/hr=9"])
    stale = found[0]
    part = client.get_partition("enc", table, ["2024-01-01", "9"])
    part.parameters["k"] = "newer"
    client.alter_partition("enc", table, part)
    catalog.partitions.save_encodings([(stale.part_id, stale.revision, b"stale bytes")])
    assert cached_count(catalog) == 0
    assert client.get_partitions_by_names("enc", table, ["ds=2024-01-01/hr=9"])[0].parameters["k"] == "newer"


def test_missing_table_and_bad_filter_keep_their_errors(client, table):
    with pytest.raises(hive.NoSuchObjectException):
        client.get_partitions_by_filter("enc", "missing", "hr = 1", -1)
    with pytest.raises(hive.MetaException, match="nope is not a partitioning key"):
        client.get_partitions_by_filter("enc", table, "nope = 1", -1)


# -- Hive 3/4 request forms ---------------------------------------------------------------------------------


def test_request_forms_answer_like_the_classic_calls(client, table):
    classic = as_tuples(client.get_partitions("enc", table, -1))
    assert (
        as_tuples(client.get_partitions_req(hive.PartitionsRequest(dbName="enc", tblName=table)).partitions) == classic
    )
    limited = client.get_partitions_req(hive.PartitionsRequest(dbName="enc", tblName=table, maxParts=1))
    assert as_tuples(limited.partitions) == classic[:1]
    by_filter = client.get_partitions_by_filter_req(
        hive.GetPartitionsByFilterRequest(dbName="enc", tblName=table, filter="hr > 9")
    )
    assert [p.values for p in by_filter] == [["2024-01-01", "10"], ["2024-01-02", "10"]]
    ps = client.get_partitions_ps_with_auth_req(
        hive.GetPartitionsPsWithAuthRequest(dbName="enc", tblName=table, partVals=["2024-01-02", ""])
    )
    assert [p.values for p in ps.partitions] == [["2024-01-02", "10"], ["2024-01-02", "9"]]
    named = client.get_partitions_ps_with_auth_req(
        hive.GetPartitionsPsWithAuthRequest(dbName="enc", tblName=table, partNames=["ds=2024-01-01/hr=9"])
    )
    assert [p.values for p in named.partitions] == [["2024-01-01", "9"]]
    by_names = client.get_partitions_by_names_req(
        hive.GetPartitionsByNamesRequest(db_name="enc", tbl_name=table, names=["ds=2024-01-02/hr=10"])
    )
    assert [p.values for p in by_names.partitions] == [["2024-01-02", "10"]]
    names = client.get_partition_names_ps_req(
        hive.GetPartitionNamesPsRequest(dbName="enc", tblName=table, partValues=["", "9"])
    )
    assert names.names == ["ds=2024-01-01/hr=9", "ds=2024-01-02/hr=9"]


def test_request_forms_trim_columns_and_parameters(client, table):
    part = client.get_partition("enc", table, ["2024-01-01", "9"])
    part.parameters.update({"keep.me": "1", "drop.me": "2"})
    client.alter_partition("enc", table, part)
    request = hive.GetPartitionsByFilterRequest(
        dbName="enc",
        tblName=table,
        filter='ds = "2024-01-01" and hr = 9',
        skipColumnSchemaForPartition=True,
        includeParamKeyPattern="%.me",
        excludeParamKeyPattern="drop%",
    )
    [trimmed] = client.get_partitions_by_filter_req(request)
    assert trimmed.sd.cols == []
    assert trimmed.parameters == {"keep.me": "1"}
    assert trimmed.sd.location == part.sd.location
    [full] = client.get_partitions_by_names_req(
        hive.GetPartitionsByNamesRequest(db_name="enc", tbl_name=table, names=["ds=2024-01-01/hr=9"])
    ).partitions
    assert [c.name for c in full.sd.cols] == ["id", "name"]
    assert {"keep.me", "drop.me", "k"} <= set(full.parameters)


def test_request_forms_over_the_compact_protocol(catalog, client, table):
    running = RunningServer(catalog, transport="framed", protocol="compact")
    try:
        compact = running.client(TCompactProtocolFactory(), TFramedTransportFactory())
        answer = compact.get_partitions_req(hive.PartitionsRequest(dbName="enc", tblName=table))
        assert as_tuples(answer.partitions) == as_tuples(client.get_partitions("enc", table, -1))
        compact.close()
    finally:
        running.stop()


def test_filter_request_errors(client, table):
    with pytest.raises(hive.MetaException, match="nope is not a partitioning key"):
        client.get_partitions_by_filter_req(
            hive.GetPartitionsByFilterRequest(dbName="enc", tblName=table, filter="nope = 1")
        )
    with pytest.raises(hive.NoSuchObjectException):
        client.get_partitions_by_filter_req(
            hive.GetPartitionsByFilterRequest(dbName="enc", tblName="missing", filter="hr = 1")
        )


def test_added_partitions_are_stored_with_the_encoding_their_read_would_make(client, catalog, warehouse, table):
    assert cached_count(catalog) == 4  # add_partitions encoded them
    elsewhere = make_partition(
        "enc", table, ["2024-01-03", "1"], columns=cols("id:bigint", "extra:double"), location=f"file:{warehouse}/x"
    )
    elsewhere.sd.serdeInfo.parameters = {"field.delim": ","}
    elsewhere.sd.bucketCols, elsewhere.sd.numBuckets = ["id"], 4
    client.add_partition(elsewhere)
    client.add_partitions_req(
        hive.AddPartitionsRequest(
            dbName="enc", tblName=table, parts=[make_partition("enc", table, ["2024-01-04", "2"])], ifNotExists=True
        )
    )
    assert cached_count(catalog) == 6
    stored = client.get_partitions("enc", table, -1)
    forget_encodings(catalog, "enc", table)
    assert cached_count(catalog) == 0
    fresh = client.get_partitions("enc", table, -1)
    assert cached_count(catalog) == 6
    assert stored == fresh and as_tuples(stored) == as_tuples(fresh)
    assert [p.sd.numBuckets for p in fresh if p.values == ["2024-01-03", "1"]] == [4]
