"""Partitions over the Thrift socket: add, append, read, list, filter, alter, rename, drop and names."""

from __future__ import annotations

import pytest
from sqlalchemy import func, insert, select

from hudi_catalog.store import schema
from tests.conftest import hive
from tests.hms_adapter.helpers import cols, file_uri, make_database, make_partition, make_table


@pytest.fixture
def tdir(client, warehouse):
    """Table ``db.t`` partitioned by ``ds string, hr int``; returns its directory."""
    client.create_database(make_database("db"))
    client.create_table(make_table("db", "t", partition_keys=cols("ds:string", "hr:int")))
    return warehouse / "db.db" / "t"


def part(values, **kwargs):
    return make_partition("db", "t", values, **kwargs)


def names_of(parts) -> list[str]:
    return ["/".join(f"{k}={v}" for k, v in zip(("ds", "hr"), p.values)) for p in parts]


def values_of(parts) -> list[list[str]]:
    return [list(p.values) for p in parts]


@pytest.fixture
def grid(client, tdir):
    """Partitions ds in {2024-01-01, 2024-01-02} x hr in {8, 9, 10, 11}, added in a scrambled order."""
    values = [[ds, hr] for hr in ("11", "8", "10", "9") for ds in ("2024-01-02", "2024-01-01")]
    assert client.add_partitions([part(v) for v in values]) == 8
    return tdir


GRID_NAMES = sorted(f"ds={ds}/hr={hr}" for ds in ("2024-01-01", "2024-01-02") for hr in ("8", "9", "10", "11"))


# -- add ----------------------------------------------------------------------------------------------


def test_add_partition_gets_a_directory_under_the_table(client, tdir):
    added = client.add_partition(part(["2024-01-01", "10"], params={"a": "1"}))

    assert added.values == ["2024-01-01", "10"]
    assert added.sd.location == file_uri(tdir / "ds=2024-01-01" / "hr=10")
    assert (tdir / "ds=2024-01-01" / "hr=10").is_dir()
    assert added.parameters["a"] == "1"
    assert added.createTime > 0

    got = client.get_partition("db", "t", ["2024-01-01", "10"])
    assert got.sd.location == added.sd.location
    assert got.parameters["a"] == "1"
    assert got.dbName == "db" and got.tableName == "t"
    assert [(c.name, c.type) for c in got.sd.cols] == [("id", "bigint"), ("name", "string")]


def test_add_partition_with_its_own_location(client, tdir, tmp_path):
    added = client.add_partition(part(["x", "1"], location=str(tmp_path / "elsewhere")))
    assert added.sd.location == file_uri(tmp_path / "elsewhere")
    assert (tmp_path / "elsewhere").is_dir()
    assert not (tdir / "ds=x").exists()


def test_add_partitions_returns_the_count(client, tdir):
    assert client.add_partitions([part(["a", "1"]), part(["b", "2"])]) == 2
    assert client.add_partitions([]) == 0
    assert client.get_partition_names("db", "t", -1) == ["ds=a/hr=1", "ds=b/hr=2"]


def test_add_partition_to_missing_table_is_invalid_object(client, tdir):
    with pytest.raises(hive.InvalidObjectException):
        client.add_partition(make_partition("db", "nope", ["a", "1"]))


def test_add_partition_with_wrong_number_of_values_is_invalid_object(client, tdir):
    with pytest.raises(hive.InvalidObjectException):
        client.add_partition(part(["only-one"]))
    assert client.get_partition_names("db", "t", -1) == []


def test_add_partitions_req(client, tdir):
    request = hive.AddPartitionsRequest(
        dbName="db", tblName="t", parts=[part(["a", "1"]), part(["b", "2"])], ifNotExists=False, needResult=True
    )
    result = client.add_partitions_req(request)
    assert values_of(result.partitions) == [["a", "1"], ["b", "2"]]
    assert result.partitions[0].sd.location == file_uri(tdir / "ds=a" / "hr=1")


def test_add_partitions_req_if_not_exists_skips_existing(client, tdir):
    client.add_partition(part(["a", "1"], params={"orig": "yes"}))
    request = hive.AddPartitionsRequest(
        dbName="db", tblName="t", parts=[part(["a", "1"]), part(["b", "2"])], ifNotExists=True, needResult=True
    )
    result = client.add_partitions_req(request)

    assert values_of(result.partitions) == [["b", "2"]]
    assert client.get_partition_names("db", "t", -1) == ["ds=a/hr=1", "ds=b/hr=2"]
    assert client.get_partition("db", "t", ["a", "1"]).parameters["orig"] == "yes"


def test_add_partitions_req_without_result(client, tdir):
    request = hive.AddPartitionsRequest(
        dbName="db", tblName="t", parts=[part(["a", "1"])], ifNotExists=False, needResult=False
    )
    result = client.add_partitions_req(request)
    assert not result.partitions
    assert client.get_partition_names("db", "t", -1) == ["ds=a/hr=1"]


def test_duplicate_partition_is_already_exists(client, tdir):
    client.add_partition(part(["a", "1"]))
    with pytest.raises(hive.AlreadyExistsException):
        client.add_partition(part(["a", "1"]))
    with pytest.raises(hive.AlreadyExistsException):
        client.append_partition("db", "t", ["a", "1"])


def test_batch_with_one_existing_partition_adds_none(client, tdir):
    client.add_partition(part(["b", "2"]))
    batch = [part(["a", "1"]), part(["b", "2"]), part(["c", "3"])]

    with pytest.raises(hive.AlreadyExistsException):
        client.add_partitions(batch)
    with pytest.raises(hive.AlreadyExistsException):
        client.add_partitions_req(
            hive.AddPartitionsRequest(dbName="db", tblName="t", parts=batch, ifNotExists=False, needResult=True)
        )

    assert client.get_partition_names("db", "t", -1) == ["ds=b/hr=2"]
    assert not (tdir / "ds=a").exists()
    assert not (tdir / "ds=c").exists()
    assert (tdir / "ds=b" / "hr=2").is_dir()


def test_same_partition_twice_in_one_batch_is_refused(client, tdir):
    with pytest.raises(hive.MetaException) as e:
        client.add_partitions([part(["a", "1"]), part(["a", "1"])])
    assert "Duplicate partitions" in e.value.message
    assert client.get_partition_names("db", "t", -1) == []
    assert not (tdir / "ds=a").exists()


def test_append_partition(client, tdir):
    appended = client.append_partition("db", "t", ["2024-01-01", "5"])
    assert appended.values == ["2024-01-01", "5"]
    assert appended.sd.location == file_uri(tdir / "ds=2024-01-01" / "hr=5")
    assert appended.sd.serdeInfo.serializationLib == client.get_table("db", "t").sd.serdeInfo.serializationLib
    assert (tdir / "ds=2024-01-01" / "hr=5").is_dir()


def test_append_partition_by_name(client, tdir):
    appended = client.append_partition_by_name("db", "t", "ds=2024-01-02/hr=7")
    assert appended.values == ["2024-01-02", "7"]
    assert (tdir / "ds=2024-01-02" / "hr=7").is_dir()

    # keys in a different order are still matched by name
    assert client.append_partition_by_name("db", "t", "hr=8/ds=2024-01-02").values == ["2024-01-02", "8"]

    with pytest.raises(hive.InvalidObjectException):
        client.append_partition_by_name("db", "t", "ds=2024-01-02")
    with pytest.raises(hive.AlreadyExistsException):
        client.append_partition_by_name("db", "t", "ds=2024-01-02/hr=7")


def test_append_partition_to_missing_table_is_invalid_object(client, tdir):
    with pytest.raises(hive.InvalidObjectException):
        client.append_partition("db", "nope", ["a", "1"])


# -- read ---------------------------------------------------------------------------------------------


def test_get_partition_variants(client, grid):
    expected_location = file_uri(grid / "ds=2024-01-01" / "hr=9")
    assert client.get_partition("db", "t", ["2024-01-01", "9"]).sd.location == expected_location
    assert client.get_partition_with_auth("db", "t", ["2024-01-01", "9"], "u", ["g"]).sd.location == expected_location
    assert client.get_partition_by_name("db", "t", "ds=2024-01-01/hr=9").sd.location == expected_location


def test_get_missing_partition_is_no_such_object(client, grid):
    with pytest.raises(hive.NoSuchObjectException):
        client.get_partition("db", "t", ["2024-01-01", "99"])
    with pytest.raises(hive.NoSuchObjectException):
        client.get_partition_by_name("db", "t", "ds=2024-01-01/hr=99")
    with pytest.raises(hive.NoSuchObjectException):
        client.get_partition_by_name("db", "t", "ds=2024-01-01")
    with pytest.raises(hive.NoSuchObjectException):
        client.get_partition("db", "nope", ["2024-01-01", "9"])


def test_get_partitions_ordered_by_name_with_limits(client, grid):
    all_parts = client.get_partitions("db", "t", -1)
    assert names_of(all_parts) == GRID_NAMES
    assert names_of(client.get_partitions("db", "t", 2)) == GRID_NAMES[:2]
    assert client.get_partitions("db", "t", 0) == []
    assert names_of(client.get_partitions_with_auth("db", "t", 3, "u", [])) == GRID_NAMES[:3]


def test_get_partitions_of_missing_table_is_no_such_object(client, tdir):
    with pytest.raises(hive.NoSuchObjectException):
        client.get_partitions("db", "nope", -1)


def test_get_partition_names(client, grid):
    assert client.get_partition_names("db", "t", -1) == GRID_NAMES
    assert client.get_partition_names("db", "t", 2) == GRID_NAMES[:2]


def test_partial_values_with_wildcards(client, grid):
    ps = client.get_partitions_ps
    assert values_of(ps("db", "t", ["2024-01-02"], -1)) == [["2024-01-02", h] for h in ("10", "11", "8", "9")]
    assert values_of(ps("db", "t", ["", "10"], -1)) == [["2024-01-01", "10"], ["2024-01-02", "10"]]
    assert values_of(ps("db", "t", ["2024-01-01", ""], 2)) == [["2024-01-01", "10"], ["2024-01-01", "11"]]
    assert len(ps("db", "t", ["", ""], -1)) == 8
    assert ps("db", "t", ["2024-12-31"], -1) == []
    assert values_of(client.get_partitions_ps_with_auth("db", "t", ["", "8"], -1, "u", [])) == [
        ["2024-01-01", "8"],
        ["2024-01-02", "8"],
    ]

    names = client.get_partition_names_ps
    assert names("db", "t", ["", "9"], -1) == ["ds=2024-01-01/hr=9", "ds=2024-01-02/hr=9"]
    assert names("db", "t", ["2024-01-02", "11"], -1) == ["ds=2024-01-02/hr=11"]
    assert names("db", "t", ["2024-01-01"], 1) == ["ds=2024-01-01/hr=10"]


def test_too_many_partial_values_is_refused(client, grid):
    with pytest.raises((hive.MetaException, hive.NoSuchObjectException)):
        client.get_partitions_ps("db", "t", ["a", "1", "extra"], -1)


def test_get_partitions_by_names(client, grid):
    parts = client.get_partitions_by_names("db", "t", ["ds=2024-01-02/hr=8", "ds=2024-01-01/hr=11", "ds=x/hr=1"])
    assert values_of(parts) == [["2024-01-01", "11"], ["2024-01-02", "8"]]
    assert client.get_partitions_by_names("db", "t", []) == []

    result = client.get_partitions_by_names_req(
        hive.GetPartitionsByNamesRequest(db_name="db", tbl_name="t", names=["ds=2024-01-01/hr=9"])
    )
    assert values_of(result.partitions) == [["2024-01-01", "9"]]
    assert result.partitions[0].sd.location == file_uri(grid / "ds=2024-01-01" / "hr=9")


# -- filters ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "filter_text, expected",
    [
        ('ds = "2024-01-01"', [f"ds=2024-01-01/hr={h}" for h in ("10", "11", "8", "9")]),
        ("hr > 9", [f"ds={d}/hr={h}" for d in ("2024-01-01", "2024-01-02") for h in ("10", "11")]),
        ("hr >= 10 and hr < 11", ["ds=2024-01-01/hr=10", "ds=2024-01-02/hr=10"]),
        ('ds = "2024-01-02" and hr = 8', ["ds=2024-01-02/hr=8"]),
        ('ds = "2024-01-02" and (hr = 8 or hr = 11)', ["ds=2024-01-02/hr=11", "ds=2024-01-02/hr=8"]),
        ('hr = 8 or ds = "2024-01-01" and hr = 9', ["ds=2024-01-01/hr=8", "ds=2024-01-01/hr=9", "ds=2024-01-02/hr=8"]),
        ('ds <> "2024-01-01" and hr <= 8', ["ds=2024-01-02/hr=8"]),
        ('ds > "2024-01-01"', [f"ds=2024-01-02/hr={h}" for h in ("10", "11", "8", "9")]),
        ("hr = 12", []),
        ("", GRID_NAMES),
    ],
)
def test_get_partitions_by_filter(client, grid, filter_text, expected):
    parts = client.get_partitions_by_filter("db", "t", filter_text, -1)
    assert names_of(parts) == expected
    assert client.get_num_partitions_by_filter("db", "t", filter_text) == len(expected)


def test_integral_key_compares_numerically(client, grid):
    # lexically "10" < "9"; an int key must compare as a number
    assert sorted(p.values[1] for p in client.get_partitions_by_filter("db", "t", "hr > 9", -1)) == [
        "10",
        "10",
        "11",
        "11",
    ]
    assert {p.values[1] for p in client.get_partitions_by_filter("db", "t", "hr < 10", -1)} == {"8", "9"}


def test_filter_with_max_parts(client, grid):
    assert names_of(client.get_partitions_by_filter("db", "t", "hr > 9", 1)) == ["ds=2024-01-01/hr=10"]


def test_filter_on_unknown_key_is_meta_exception(client, grid):
    with pytest.raises(hive.MetaException) as e:
        client.get_partitions_by_filter("db", "t", 'region = "eu"', -1)
    assert "is not a partitioning key" in e.value.message
    with pytest.raises(hive.MetaException) as e:
        client.get_num_partitions_by_filter("db", "t", 'region = "eu"')
    assert "is not a partitioning key" in e.value.message


def test_malformed_filter_is_meta_exception(client, grid):
    with pytest.raises(hive.MetaException):
        client.get_partitions_by_filter("db", "t", "ds = = (", -1)


@pytest.mark.parametrize(
    "filter_text",
    [
        "ds = 2024",
        "ds > 5 and hr = 9",
        "ds in (1, 2)",
        "ds in (" + ", ".join(str(n) for n in range(100)) + ")",  # the long-list path
    ],
)
def test_a_number_compared_with_a_string_key_is_refused_as_hive_refuses_it(client, grid, filter_text):
    """Hive Metastore refuses these (its SQL declines mixed types, its JDO filter takes strings only), and
    engines then prune themselves; answering them by text would give ``ds = 5`` a meaning Hive's SQL lacks."""
    with pytest.raises(hive.MetaException) as e:
        client.get_partitions_by_filter("db", "t", filter_text, -1)
    assert e.value.message == "Filtering is supported only on partition keys of type string"


def test_a_quoted_number_on_an_int_key_compares_by_value(client, grid):
    """The other way round is answered: the key's type decides, and ``'9'`` is a valid int."""
    assert names_of(client.get_partitions_by_filter("db", "t", "hr = '9' and ds = '2024-01-01'", -1)) == [
        "ds=2024-01-01/hr=9"
    ]


def test_filter_on_missing_table_is_no_such_object(client, tdir):
    with pytest.raises(hive.NoSuchObjectException):
        client.get_partitions_by_filter("db", "nope", 'ds = "a"', -1)


# -- alter and rename ---------------------------------------------------------------------------------


def test_alter_partition_parameters_and_location(client, tdir, tmp_path):
    client.add_partition(part(["a", "1"], params={"keep": "no"}))
    changed = client.get_partition("db", "t", ["a", "1"])
    changed.parameters = {"new": "yes"}
    changed.sd.location = str(tmp_path / "relocated")
    client.alter_partition("db", "t", changed)

    got = client.get_partition("db", "t", ["a", "1"])
    assert got.parameters["new"] == "yes"
    assert "keep" not in got.parameters
    assert got.sd.location == file_uri(tmp_path / "relocated")


def test_alter_partitions_in_one_call(client, tdir):
    client.add_partitions([part(["a", "1"]), part(["b", "2"])])
    parts = client.get_partitions("db", "t", -1)
    for p in parts:
        p.parameters["touched"] = p.values[0]
        p.sd.cols = cols("id:bigint", "name:string", "extra:int")
    client.alter_partitions("db", "t", parts)

    got = client.get_partitions("db", "t", -1)
    assert [p.parameters["touched"] for p in got] == ["a", "b"]
    assert all([c.name for c in p.sd.cols] == ["id", "name", "extra"] for p in got)
    assert [c.name for c in client.get_table("db", "t").sd.cols] == ["id", "name"]


def test_alter_missing_partition_is_invalid_operation(client, tdir):
    with pytest.raises(hive.InvalidOperationException):
        client.alter_partition("db", "t", part(["zz", "1"]))


def test_rename_partition_moves_its_directory(client, tdir):
    client.add_partition(part(["a", "1"], params={"p": "v"}))
    (tdir / "ds=a" / "hr=1" / "data.parquet").write_bytes(b"abc")

    client.rename_partition("db", "t", ["a", "1"], part(["b", "2"]))

    assert client.get_partition_names("db", "t", -1) == ["ds=b/hr=2"]
    renamed = client.get_partition("db", "t", ["b", "2"])
    assert renamed.sd.location == file_uri(tdir / "ds=b" / "hr=2")
    assert (tdir / "ds=b" / "hr=2" / "data.parquet").read_bytes() == b"abc"
    assert not (tdir / "ds=a" / "hr=1").exists()
    with pytest.raises(hive.NoSuchObjectException):
        client.get_partition("db", "t", ["a", "1"])


def test_rename_partition_errors_are_invalid_operation(client, tdir):
    client.add_partitions([part(["a", "1"]), part(["b", "2"])])
    with pytest.raises(hive.InvalidOperationException):
        client.rename_partition("db", "t", ["missing", "1"], part(["c", "3"]))
    with pytest.raises(hive.InvalidOperationException):
        client.rename_partition("db", "t", ["a", "1"], part(["b", "2"]))
    assert client.get_partition_names("db", "t", -1) == ["ds=a/hr=1", "ds=b/hr=2"]


# -- drop ---------------------------------------------------------------------------------------------


def test_drop_partition_deletes_its_directory(client, tdir):
    client.add_partitions([part(["a", "1"]), part(["a", "2"])])
    assert client.drop_partition("db", "t", ["a", "1"], True) is True

    assert client.get_partition_names("db", "t", -1) == ["ds=a/hr=2"]
    assert not (tdir / "ds=a" / "hr=1").exists()
    assert (tdir / "ds=a" / "hr=2").is_dir()

    assert client.drop_partition_by_name("db", "t", "ds=a/hr=2", True) is True
    assert client.get_partition_names("db", "t", -1) == []
    assert not (tdir / "ds=a").exists(), "the emptied parent directory goes too"
    assert tdir.is_dir()


def test_a_dropped_partition_leaves_no_rows_behind(client, tdir, catalog):
    """Its parameters, key values, column statistics and files go with it (by the foreign keys' cascades),
    dropped alone or in a batch, on every store."""
    client.add_partitions([part([ds, "1"], params={"p": ds}) for ds in ("a", "b", "c")])
    for ds in ("a", "b", "c"):
        statistics = hive.ColumnStatistics(
            hive.ColumnStatisticsDesc(isTblLevel=False, dbName="db", tableName="t", partName=f"ds={ds}/hr=1"),
            [
                hive.ColumnStatisticsObj(
                    "id", "bigint", hive.ColumnStatisticsData(longStats=hive.LongColumnStatsData(0, 1))
                )
            ],
        )
        assert client.update_partition_column_statistics(statistics) is True
    with catalog.store.write() as conn:
        ids = dict(conn.execute(select(schema.partitions.c.part_name, schema.partitions.c.part_id)).all())
        tbl_id = conn.execute(select(schema.partitions.c.tbl_id)).scalars().first()
        conn.execute(
            insert(schema.files),
            [
                {"tbl_id": tbl_id, "part_id": i, "name": f"f{i}.parquet", "file_id": f"g{i}", "instant_ts": "1"}
                for i in ids.values()
            ],
        )
    hanging = (schema.partition_params, schema.partition_key_val, schema.part_col_stats, schema.files)

    def rows_of(part_id: int) -> list[int]:
        with catalog.store.read() as conn:
            return [conn.execute(select(func.count()).where(t.c.part_id == part_id)).scalar_one() for t in hanging]

    # parameters (its own and Hive's), two key values, a column's statistics, a file
    assert [rows_of(i)[1:] for i in ids.values()] == [[2, 1, 1]] * 3
    assert all(rows_of(i)[0] >= 1 for i in ids.values())
    client.drop_partition("db", "t", ["a", "1"], True)
    client.drop_partitions_req(
        hive.DropPartitionsRequest(
            dbName="db", tblName="t", parts=hive.RequestPartsSpec(names=["ds=b/hr=1", "ds=c/hr=1"]), deleteData=True
        )
    )
    assert client.get_partition_names("db", "t", -1) == []
    assert [rows_of(i) for i in ids.values()] == [[0, 0, 0, 0]] * 3


def test_drop_partition_without_delete_data_keeps_the_directory(client, tdir):
    client.add_partition(part(["a", "1"]))
    client.drop_partition("db", "t", ["a", "1"], False)
    assert client.get_partition_names("db", "t", -1) == []
    assert (tdir / "ds=a" / "hr=1").is_dir()


def test_drop_partition_of_external_table_keeps_data(client, tdir, tmp_path):
    client.create_table(
        make_table(
            "db", "ext", partition_keys=cols("ds:string"), location=str(tmp_path / "ext"), table_type="EXTERNAL_TABLE"
        )
    )
    client.add_partition(make_partition("db", "ext", ["a"]))
    client.drop_partition("db", "ext", ["a"], True)
    assert client.get_partition_names("db", "ext", -1) == []
    assert (tmp_path / "ext" / "ds=a").is_dir()


def test_drop_missing_partition_is_no_such_object(client, tdir):
    with pytest.raises(hive.NoSuchObjectException):
        client.drop_partition("db", "t", ["nope", "1"], True)
    with pytest.raises(hive.NoSuchObjectException):
        client.drop_partition_by_name("db", "t", "ds=nope/hr=1", True)
    with pytest.raises(hive.NoSuchObjectException):
        client.drop_partition_by_name("db", "t", "ds=nope", True)


def test_drop_partitions_req_by_names(client, grid):
    request = hive.DropPartitionsRequest(
        dbName="db",
        tblName="t",
        parts=hive.RequestPartsSpec(names=["ds=2024-01-01/hr=8", "ds=2024-01-02/hr=8"]),
        deleteData=True,
        ifExists=False,
        needResult=True,
    )
    result = client.drop_partitions_req(request)

    assert values_of(result.partitions) == [["2024-01-01", "8"], ["2024-01-02", "8"]]
    assert client.get_partition_names_ps("db", "t", ["", "8"], -1) == []
    assert len(client.get_partition_names("db", "t", -1)) == 6
    assert not (grid / "ds=2024-01-01" / "hr=8").exists()
    assert (grid / "ds=2024-01-01" / "hr=9").is_dir()


def test_drop_partitions_req_missing_names(client, grid):
    strict = hive.DropPartitionsRequest(
        dbName="db",
        tblName="t",
        parts=hive.RequestPartsSpec(names=["ds=2024-01-01/hr=8", "ds=x/hr=1"]),
        deleteData=True,
        ifExists=False,
        needResult=True,
    )
    with pytest.raises(hive.NoSuchObjectException):
        client.drop_partitions_req(strict)
    assert len(client.get_partition_names("db", "t", -1)) == 8, "nothing is dropped when one name is missing"

    lenient = hive.DropPartitionsRequest(
        dbName="db",
        tblName="t",
        parts=hive.RequestPartsSpec(names=["ds=2024-01-01/hr=8", "ds=x/hr=1"]),
        deleteData=True,
        ifExists=True,
        needResult=False,
    )
    result = client.drop_partitions_req(lenient)
    assert not result.partitions
    assert len(client.get_partition_names("db", "t", -1)) == 7


# -- names --------------------------------------------------------------------------------------------


def test_partition_name_to_vals_and_spec(client):
    assert client.partition_name_to_vals("ds=2024-01-01/hr=10") == ["2024-01-01", "10"]
    assert client.partition_name_to_spec("ds=2024-01-01/hr=10") == {"ds": "2024-01-01", "hr": "10"}
    assert client.partition_name_to_vals("k=a%2Fb%3Ac") == ["a/b:c"]
    assert client.partition_name_to_spec("k%3D1=v%25") == {"k=1": "v%"}
    assert client.partition_name_to_vals("") == []


@pytest.mark.parametrize(
    "value, escaped",
    [
        ("a/b:c", "a%2Fb%3Ac"),
        ("x=y", "x%3Dy"),
        ("100%", "100%25"),
        ("a b", "a b"),
        ("#?*'\"\\{[]^", "%23%3F%2A%27%22%5C%7B%5B%5D%5E"),
        ("tab\there", "tab%09here"),
        ("héllo", "héllo"),
    ],
)
def test_special_characters_are_escaped_like_hive(client, warehouse, value, escaped):
    client.create_database(make_database("esc"))
    client.create_table(make_table("esc", "t", partition_keys=cols("k:string")))
    added = client.add_partition(make_partition("esc", "t", [value]))

    table_dir = warehouse / "esc.db" / "t"
    assert client.get_partition_names("esc", "t", -1) == [f"k={escaped}"]
    assert added.sd.location == file_uri(table_dir / f"k={escaped}")
    assert (table_dir / f"k={escaped}").is_dir()
    assert client.get_partition("esc", "t", [value]).values == [value]
    assert client.get_partition_by_name("esc", "t", f"k={escaped}").values == [value]
    assert client.partition_name_to_vals(f"k={escaped}") == [value]
    assert values_of(client.get_partitions_by_names("esc", "t", [f"k={escaped}"])) == [[value]]
    assert values_of(client.get_partitions_by_filter("esc", "t", f"k = {_hive_string(value)}", -1)) == [[value]]

    client.drop_partition_by_name("esc", "t", f"k={escaped}", True)
    assert client.get_partition_names("esc", "t", -1) == []
    assert not (table_dir / f"k={escaped}").exists()


def _hive_string(value: str) -> str:
    """A HiveQL string literal for ``value``."""
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def test_empty_value_is_the_default_partition(client, tdir):
    client.add_partition(part(["", "1"]))
    assert client.get_partition_names("db", "t", -1) == ["ds=__HIVE_DEFAULT_PARTITION__/hr=1"]
    assert (tdir / "ds=__HIVE_DEFAULT_PARTITION__" / "hr=1").is_dir()
