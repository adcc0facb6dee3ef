"""Tables and views over the Thrift socket: create, read, list, alter (rename, columns) and drop."""

from __future__ import annotations

import time

import pytest

from tests.conftest import hive
from tests.hms_adapter.helpers import (
    PARQUET_INPUT,
    PARQUET_OUTPUT,
    PARQUET_SERDE,
    cols,
    file_uri,
    make_database,
    make_partition,
    make_table,
)


@pytest.fixture
def db(client, warehouse):
    """A database ``db`` at ``<warehouse>/db.db``; returns its directory."""
    client.create_database(make_database("db"))
    return warehouse / "db.db"


def col_pairs(fields) -> list[tuple[str, str]]:
    return [(f.name, f.type) for f in fields]


# -- create -------------------------------------------------------------------------------------------


def test_managed_table_gets_a_directory_under_its_database(client, db):
    client.create_table(make_table("db", "events", columns=cols("id:bigint", "payload:string")))

    table = client.get_table("db", "events")
    assert table.tableType == "MANAGED_TABLE"
    assert table.sd.location == file_uri(db / "events")
    assert (db / "events").is_dir()
    assert table.dbName == "db" and table.tableName == "events"
    assert col_pairs(table.sd.cols) == [("id", "bigint"), ("payload", "string")]
    assert table.owner == "alice"
    assert table.createTime > 0
    assert "transient_lastDdlTime" in table.parameters


def test_table_names_are_lower_cased(client, db):
    client.create_table(make_table("DB", "MyTable"))
    assert client.get_all_tables("db") == ["mytable"]
    assert client.get_table("db", "MYTABLE").tableName == "mytable"
    assert (db / "mytable").is_dir()


def test_external_table_keeps_its_location(client, db, tmp_path):
    data = tmp_path / "lake" / "ext"
    client.create_table(make_table("db", "ext", location=str(data), table_type="EXTERNAL_TABLE"))

    table = client.get_table("db", "ext")
    assert table.tableType == "EXTERNAL_TABLE"
    assert table.parameters["EXTERNAL"] == "TRUE"
    assert table.sd.location == file_uri(data)
    assert data.is_dir()
    assert not (db / "ext").exists()


def test_external_parameter_makes_a_managed_table_external(client, db, tmp_path):
    table = make_table("db", "flip", location=str(tmp_path / "flip"), params={"EXTERNAL": "true"})
    assert table.tableType == "MANAGED_TABLE"
    client.create_table(table)
    assert client.get_table("db", "flip").tableType == "EXTERNAL_TABLE"


def test_external_type_without_external_parameter_is_managed(client, db):
    table = make_table("db", "unflip")
    table.tableType = "EXTERNAL_TABLE"
    client.create_table(table)
    assert client.get_table("db", "unflip").tableType == "MANAGED_TABLE"


def test_create_table_in_missing_database_is_no_such_object(client):
    with pytest.raises(hive.NoSuchObjectException) as e:
        client.create_table(make_table("nodb", "t"))
    assert "nodb" in e.value.message


def test_duplicate_table_is_already_exists(client, db):
    client.create_table(make_table("db", "t"))
    with pytest.raises(hive.AlreadyExistsException):
        client.create_table(make_table("db", "T"))


@pytest.mark.parametrize("name", ["bad-name", "a.b", ""])
def test_invalid_table_name_is_invalid_object(client, db, name):
    with pytest.raises(hive.InvalidObjectException):
        client.create_table(make_table("db", name))
    assert client.get_all_tables("db") == []


def test_duplicate_column_is_invalid_object(client, db):
    with pytest.raises(hive.InvalidObjectException):
        client.create_table(make_table("db", "t", columns=cols("a:int", "A:string")))
    with pytest.raises(hive.InvalidObjectException):
        client.create_table(make_table("db", "t", columns=cols("a:int"), partition_keys=cols("a:string")))
    assert client.get_all_tables("db") == []


def test_view_has_text_and_no_location(client, db):
    view = make_table("db", "v", table_type="VIRTUAL_VIEW")
    view.sd.location = None
    view.viewOriginalText = "select id from t"
    view.viewExpandedText = "select `t`.`id` from `db`.`t`"
    client.create_table(view)

    got = client.get_table("db", "v")
    assert got.tableType == "VIRTUAL_VIEW"
    assert got.viewOriginalText == "select id from t"
    assert got.viewExpandedText == "select `t`.`id` from `db`.`t`"
    assert got.sd.location is None
    assert not (db / "v").exists()
    assert client.get_tables_by_type("db", "*", "VIRTUAL_VIEW") == ["v"]


def test_materialized_view_has_a_directory_made_and_dropped_as_a_managed_tables(client, db):
    """HiveServer2 4 creates a materialized view without a location and writes its rows there."""
    view = make_table("db", "mv", table_type="MATERIALIZED_VIEW")
    view.sd.location = None
    view.viewOriginalText = view.viewExpandedText = "select id from t"
    client.create_table(view)
    location = client.get_table("db", "mv").sd.location
    assert location.endswith("/db.db/mv") and (db / "mv").is_dir()
    (db / "mv" / "000000_0").write_text("1")
    client.drop_table("db", "mv", True)
    assert not (db / "mv").exists()


def test_storage_descriptor_round_trip(client, db):
    table = make_table(
        "db",
        "full",
        columns=cols("id:bigint", "name:string", "score:double"),
        partition_keys=cols("ds:string", "hr:int"),
        params={"p1": "v1"},
    )
    table.sd.cols[0].comment = "the id"
    table.sd.compressed = True
    table.sd.numBuckets = 8
    table.sd.bucketCols = ["id"]
    table.sd.sortCols = [hive.Order(col="id", order=1), hive.Order(col="name", order=0)]
    table.sd.parameters = {"sd.key": "sd.value"}
    table.sd.serdeInfo = hive.SerDeInfo(
        name="serde-name", serializationLib=PARQUET_SERDE, parameters={"serialization.format": "1", "path": "x"}
    )
    table.sd.skewedInfo = hive.SkewedInfo(
        skewedColNames=["name"], skewedColValues=[["a"], ["b"]], skewedColValueLocationMaps={}
    )
    table.sd.storedAsSubDirectories = True
    client.create_table(table)

    got = client.get_table("db", "full")
    sd = got.sd
    assert [(c.name, c.type, c.comment) for c in sd.cols] == [
        ("id", "bigint", "the id"),
        ("name", "string", None),
        ("score", "double", None),
    ]
    assert col_pairs(got.partitionKeys) == [("ds", "string"), ("hr", "int")]
    assert sd.inputFormat == PARQUET_INPUT
    assert sd.outputFormat == PARQUET_OUTPUT
    assert sd.compressed is True
    assert sd.numBuckets == 8
    assert sd.bucketCols == ["id"]
    assert [(o.col, o.order) for o in sd.sortCols] == [("id", 1), ("name", 0)]
    assert sd.parameters == {"sd.key": "sd.value"}
    assert sd.serdeInfo.name == "serde-name"
    assert sd.serdeInfo.serializationLib == PARQUET_SERDE
    assert sd.serdeInfo.parameters == {"serialization.format": "1", "path": "x"}
    assert sd.skewedInfo.skewedColNames == ["name"]
    assert sd.skewedInfo.skewedColValues == [["a"], ["b"]]
    assert sd.skewedInfo.skewedColValueLocationMaps == {}
    assert sd.storedAsSubDirectories is True
    assert got.parameters["p1"] == "v1"


def _grant_info(privilege: str, grant_option: bool = True):
    return hive.PrivilegeGrantInfo(privilege, 12345, "alice", hive.PrincipalType.USER, grant_option)


def _table_grants(client, name: str) -> list[tuple]:
    ref = hive.HiveObjectRef(hive.HiveObjectType.TABLE, "db", name, None, None)
    return sorted(
        (p.principalName, p.principalType, p.grantInfo.privilege, p.grantInfo.grantOption, p.grantInfo.grantor)
        for p in client.list_privileges(None, None, ref)
    )


def test_privileges_of_the_table_struct_are_stored_as_grants_on_it(client, db):
    """Presto and Trino send the owner's privileges in ``Table.privileges`` and their ``sql-standard``
    security reads them back with ``list_privileges``: Hive Metastore stores them with the table (granted
    now, whatever time the struct names), and so does this server; they go with the table."""
    table = make_table("db", "owned", columns=cols("id:bigint"))
    table.privileges = hive.PrincipalPrivilegeSet(
        userPrivileges={"alice": [_grant_info(p) for p in ("SELECT", "INSERT", "UPDATE", "DELETE")]},
        groupPrivileges={},
        rolePrivileges={"analyst": [_grant_info("select", False), _grant_info("SELECT", False)]},
    )
    before = int(time.time())
    client.create_table(table)

    user, role = hive.PrincipalType.USER, hive.PrincipalType.ROLE
    assert _table_grants(client, "owned") == sorted(
        [("alice", user, p, True, "alice") for p in ("SELECT", "INSERT", "UPDATE", "DELETE")]
        + [("analyst", role, "SELECT", False, "alice")]
    )
    ref = hive.HiveObjectRef(hive.HiveObjectType.TABLE, "db", "owned", None, None)
    assert all(p.grantInfo.createTime >= before for p in client.list_privileges("alice", user, ref))

    client.create_table(make_table("db", "plain", columns=cols("id:bigint")))  # no privileges: no grants
    assert _table_grants(client, "plain") == []

    client.drop_table("db", "owned", True)
    client.create_table(make_table("db", "owned", columns=cols("id:bigint")))
    assert _table_grants(client, "owned") == []


# -- read ---------------------------------------------------------------------------------------------


def test_get_missing_table_is_no_such_object_with_hive_text(client, db):
    with pytest.raises(hive.NoSuchObjectException) as e:
        client.get_table("db", "missing")
    assert e.value.message == "db.missing table not found"
    with pytest.raises(hive.NoSuchObjectException):
        client.get_table("nodb", "missing")


def test_get_table_req(client, db):
    client.create_table(make_table("db", "t"))
    result = client.get_table_req(hive.GetTableRequest(dbName="@hive#db", tblName="T"))
    assert result.table.tableName == "t"
    assert result.table.sd.location == file_uri(db / "t")
    with pytest.raises(hive.NoSuchObjectException) as e:
        client.get_table_req(hive.GetTableRequest(dbName="db", tblName="nope"))
    assert e.value.message == "db.nope table not found"


def test_get_table_objects_by_name_skips_missing(client, db):
    for name in ("a", "b", "c"):
        client.create_table(make_table("db", name))

    tables = client.get_table_objects_by_name("db", ["c", "missing", "a"])
    assert sorted(t.tableName for t in tables) == ["a", "c"]
    assert all(t.sd.location == file_uri(db / t.tableName) for t in tables)

    result = client.get_table_objects_by_name_req(hive.GetTablesRequest(dbName="db", tblNames=["b", "zzz"]))
    assert [t.tableName for t in result.tables] == ["b"]

    assert client.get_table_objects_by_name("db", []) == []


def test_get_table_objects_by_name_without_database_is_unknown_db(client, db):
    with pytest.raises(hive.UnknownDBException):
        client.get_table_objects_by_name("", ["a"])


@pytest.fixture
def listed(client, db, tmp_path):
    client.create_database(make_database("other"))
    client.create_table(make_table("db", "sales_2023", params={"comment": "old sales"}))
    client.create_table(make_table("db", "sales_2024"))
    client.create_table(make_table("db", "orders", location=str(tmp_path / "orders"), table_type="EXTERNAL_TABLE"))
    view = make_table("db", "sales_view", table_type="VIRTUAL_VIEW")
    view.sd.location = None
    view.viewOriginalText = view.viewExpandedText = "select 1"
    client.create_table(view)
    client.create_table(make_table("other", "sales_eu"))
    return client


def test_get_tables_and_get_all_tables(listed):
    assert listed.get_all_tables("db") == ["orders", "sales_2023", "sales_2024", "sales_view"]
    assert listed.get_tables("db", "*") == ["orders", "sales_2023", "sales_2024", "sales_view"]
    assert listed.get_tables("db", "sales_20*") == ["sales_2023", "sales_2024"]
    assert listed.get_tables("db", "ORDERS|*view") == ["orders", "sales_view"]
    assert listed.get_tables("@hive#other", "*") == ["sales_eu"]
    assert listed.get_all_tables("nodb") == []


def test_get_tables_by_type(listed):
    assert listed.get_tables_by_type("db", "*", "MANAGED_TABLE") == ["sales_2023", "sales_2024"]
    assert listed.get_tables_by_type("db", "*", "EXTERNAL_TABLE") == ["orders"]
    assert listed.get_tables_by_type("db", "*2024", "MANAGED_TABLE") == ["sales_2024"]
    assert listed.get_tables_by_type("db", "*", "VIRTUAL_VIEW") == ["sales_view"]


def test_get_table_meta(listed):
    metas = listed.get_table_meta("*", "sales*", [])
    assert [(m.dbName, m.tableName, m.tableType) for m in metas] == [
        ("db", "sales_2023", "MANAGED_TABLE"),
        ("db", "sales_2024", "MANAGED_TABLE"),
        ("db", "sales_view", "VIRTUAL_VIEW"),
        ("other", "sales_eu", "MANAGED_TABLE"),
    ]
    assert metas[0].comments == "old sales"
    assert metas[1].comments is None

    metas = listed.get_table_meta("db", "*", ["EXTERNAL_TABLE", "VIRTUAL_VIEW"])
    assert [m.tableName for m in metas] == ["orders", "sales_view"]
    assert [m.tableName for m in listed.get_table_meta("oth*", "*", ["MANAGED_TABLE"])] == ["sales_eu"]


def test_get_table_names_by_filter(client, db, tmp_path):
    client.create_table(make_table("db", "a", owner="bob", params={"hudi": "true", "tier": "gold"}))
    client.create_table(make_table("db", "b", owner="carol", params={"tier": "silver"}))
    client.create_table(make_table("db", "c", owner="bob", location=str(tmp_path / "c"), table_type="EXTERNAL_TABLE"))

    by_filter = client.get_table_names_by_filter
    assert by_filter("db", 'hive_filter_field_owner__ = "bob"', -1) == ["a", "c"]
    assert by_filter("db", 'hive_filter_field_params__EXTERNAL = "TRUE"', -1) == ["c"]
    assert by_filter(
        "db", 'hive_filter_field_params__tier = "gold" or hive_filter_field_params__tier = "silver"', -1
    ) == ["a", "b"]
    assert by_filter("db", 'hive_filter_field_owner__ = "bob" and hive_filter_field_params__hudi = "true"', -1) == ["a"]
    assert by_filter("db", 'hive_filter_field_params__tier like "s.*"', -1) == ["b"]
    assert by_filter("db", 'hive_filter_field_owner__ <> "bob"', -1) == ["b"]
    assert by_filter("db", 'hive_filter_field_owner__ = "bob"', 1) == ["a"]
    with pytest.raises(hive.InvalidOperationException):
        by_filter("db", "not_a_field = 1", -1)


def test_get_fields_and_get_schema(client, db):
    client.create_table(make_table("db", "t", columns=cols("id:bigint", "v:string"), partition_keys=cols("ds:string")))
    assert col_pairs(client.get_fields("db", "t")) == [("id", "bigint"), ("v", "string")]
    assert col_pairs(client.get_schema("db", "t")) == [("id", "bigint"), ("v", "string"), ("ds", "string")]
    assert col_pairs(client.get_fields_with_environment_context("db", "T", None)) == [("id", "bigint"), ("v", "string")]
    assert col_pairs(client.get_schema_with_environment_context("db", "t", None))[-1] == ("ds", "string")


def test_get_fields_of_missing_table_is_unknown_table(client, db):
    with pytest.raises(hive.UnknownTableException) as e:
        client.get_fields("db", "nope")
    assert "db.nope" in e.value.message
    with pytest.raises(hive.UnknownTableException):
        client.get_schema("db", "nope")


# -- alter --------------------------------------------------------------------------------------------


def test_alter_table_adds_a_column_and_changes_parameters(client, db):
    client.create_table(make_table("db", "t", params={"a": "1"}))
    table = client.get_table("db", "t")
    table.sd.cols.append(hive.FieldSchema(name="extra", type="int", comment="new"))
    table.parameters["b"] = "2"
    client.alter_table("db", "t", table)

    got = client.get_table("db", "t")
    assert [(c.name, c.type, c.comment) for c in got.sd.cols][-1] == ("extra", "int", "new")
    assert got.parameters["a"] == "1" and got.parameters["b"] == "2"
    assert got.sd.location == file_uri(db / "t")
    assert got.createTime == table.createTime


def test_alter_missing_table_is_invalid_operation(client, db):
    with pytest.raises(hive.InvalidOperationException) as e:
        client.alter_table("db", "nope", make_table("db", "nope"))
    assert "db.nope" in e.value.message


def test_rename_moves_the_managed_directory_and_partition_locations(client, db, tmp_path):
    client.create_table(make_table("db", "old", partition_keys=cols("ds:string")))
    client.add_partition(make_partition("db", "old", ["2024-01-01"]))
    outside = tmp_path / "outside" / "ds=x"
    client.add_partition(make_partition("db", "old", ["x"], location=str(outside)))
    (db / "old" / "ds=2024-01-01" / "data.parquet").write_bytes(b"1234")

    table = client.get_table("db", "old")
    table.tableName = "new"
    client.alter_table("db", "old", table)

    assert client.get_all_tables("db") == ["new"]
    renamed = client.get_table("db", "new")
    assert renamed.sd.location == file_uri(db / "new")
    assert not (db / "old").exists()
    assert (db / "new" / "ds=2024-01-01" / "data.parquet").read_bytes() == b"1234"
    locations = {tuple(p.values): p.sd.location for p in client.get_partitions("db", "new", -1)}
    assert locations == {
        ("2024-01-01",): file_uri(db / "new" / "ds=2024-01-01"),
        ("x",): file_uri(outside),
    }
    assert outside.is_dir()
    with pytest.raises(hive.NoSuchObjectException):
        client.get_table("db", "old")


def test_rename_moves_a_table_whose_location_is_spelled_otherwise_than_its_database(client, warehouse):
    """Presto 0.287 gives a new managed table the location ``file:/<database>/<name>`` (Hadoop's spelling)
    in a database at ``file:///<database>``: the same directory, so a rename moves it, as in Hive."""
    db = warehouse / "spelled.db"
    client.create_database(make_database("spelled", location=f"file://{db}"))
    client.create_table(make_table("spelled", "old", partition_keys=cols("ds:string"), location=file_uri(db / "old")))
    client.add_partition(make_partition("spelled", "old", ["2024-01-01"]))
    (db / "old" / "ds=2024-01-01" / "data.parquet").write_bytes(b"1234")

    table = client.get_table("spelled", "old")
    table.tableName = "new"
    client.alter_table("spelled", "old", table)

    assert not (db / "old").exists()
    assert (db / "new" / "ds=2024-01-01" / "data.parquet").read_bytes() == b"1234"
    assert client.get_table("spelled", "new").sd.location == f"file://{db}/new"
    (partition,) = client.get_partitions("spelled", "new", -1)
    assert partition.sd.location == f"file://{db}/new/ds=2024-01-01"


def test_rename_to_another_database(client, db, warehouse):
    client.create_database(make_database("db2"))
    client.create_table(make_table("db", "t"))
    table = client.get_table("db", "t")
    table.dbName, table.tableName = "db2", "moved"
    client.alter_table("db", "t", table)

    assert client.get_all_tables("db") == []
    assert client.get_table("db2", "moved").sd.location == file_uri(warehouse / "db2.db" / "moved")
    assert (warehouse / "db2.db" / "moved").is_dir()
    assert not (db / "t").exists()


def test_rename_of_external_table_keeps_its_location(client, db, tmp_path):
    client.create_table(make_table("db", "ext", location=str(tmp_path / "ext"), table_type="EXTERNAL_TABLE"))
    table = client.get_table("db", "ext")
    table.tableName = "ext2"
    client.alter_table("db", "ext", table)
    assert client.get_table("db", "ext2").sd.location == file_uri(tmp_path / "ext")
    assert (tmp_path / "ext").is_dir()
    assert not (db / "ext2").exists()


def test_rename_to_an_existing_table_is_invalid_operation(client, db):
    client.create_table(make_table("db", "a"))
    client.create_table(make_table("db", "b"))
    table = client.get_table("db", "a")
    table.tableName = "b"
    with pytest.raises(hive.InvalidOperationException):
        client.alter_table("db", "a", table)
    assert client.get_all_tables("db") == ["a", "b"]
    assert (db / "a").is_dir()


def test_changing_partition_keys_is_refused(client, db):
    client.create_table(make_table("db", "t", partition_keys=cols("ds:string")))
    table = client.get_table("db", "t")
    table.partitionKeys = cols("ds:string", "hr:int")
    with pytest.raises(hive.InvalidOperationException) as e:
        client.alter_table("db", "t", table)
    assert e.value.message == "partition keys can not be changed."

    table.partitionKeys = cols("ds:int")
    with pytest.raises(hive.InvalidOperationException):
        client.alter_table("db", "t", table)
    assert col_pairs(client.get_table("db", "t").partitionKeys) == [("ds", "string")]


def test_int_to_string_is_allowed(client, db):
    client.create_table(make_table("db", "t", columns=cols("n:int", "s:string")))
    table = client.get_table("db", "t")
    table.sd.cols = cols("n:string", "s:string")
    client.alter_table("db", "t", table)
    assert col_pairs(client.get_table("db", "t").sd.cols) == [("n", "string"), ("s", "string")]


def test_int_to_bigint_is_allowed_and_bigint_to_int_refused(client, db):
    client.create_table(make_table("db", "t", columns=cols("n:int", "m:bigint")))
    table = client.get_table("db", "t")
    table.sd.cols = cols("n:bigint", "m:bigint")
    client.alter_table("db", "t", table)

    table.sd.cols = cols("n:bigint", "m:int")
    with pytest.raises(hive.InvalidOperationException) as e:
        client.alter_table("db", "t", table)
    assert "incompatible" in e.value.message and e.value.message.endswith(":\nm")
    assert col_pairs(client.get_table("db", "t").sd.cols) == [("n", "bigint"), ("m", "bigint")]


@pytest.fixture
def partitioned(client, db):
    client.create_table(make_table("db", "p", columns=cols("id:bigint"), partition_keys=cols("ds:string")))
    client.add_partitions([make_partition("db", "p", [ds], columns=cols("id:bigint")) for ds in ("1", "2")])
    table = client.get_table("db", "p")
    table.sd.cols = cols("id:bigint", "added:string")
    return table


def test_alter_table_with_cascade_gives_partitions_the_new_columns(client, partitioned):
    client.alter_table_with_cascade("db", "p", partitioned, True)
    assert col_pairs(client.get_table("db", "p").sd.cols) == [("id", "bigint"), ("added", "string")]
    for part in client.get_partitions("db", "p", -1):
        assert col_pairs(part.sd.cols) == [("id", "bigint"), ("added", "string")]


def test_alter_table_without_cascade_leaves_partition_columns(client, partitioned):
    client.alter_table_with_cascade("db", "p", partitioned, False)
    assert col_pairs(client.get_table("db", "p").sd.cols) == [("id", "bigint"), ("added", "string")]
    for part in client.get_partitions("db", "p", -1):
        assert col_pairs(part.sd.cols) == [("id", "bigint")]

    client.alter_table("db", "p", partitioned)  # the plain call does not cascade either
    assert [col_pairs(p.sd.cols) for p in client.get_partitions("db", "p", -1)] == [[("id", "bigint")]] * 2


def test_alter_table_cascade_through_environment_context(client, partitioned):
    env = hive.EnvironmentContext(properties={"CASCADE": "true"})
    client.alter_table_with_environment_context("db", "p", partitioned, env)
    for part in client.get_partitions("db", "p", -1):
        assert col_pairs(part.sd.cols) == [("id", "bigint"), ("added", "string")]


# -- drop ---------------------------------------------------------------------------------------------


def test_drop_managed_table_deletes_its_directory(client, db):
    client.create_table(make_table("db", "t", partition_keys=cols("ds:string")))
    client.add_partition(make_partition("db", "t", ["1"]))
    (db / "t" / "ds=1" / "f.parquet").write_bytes(b"x")

    client.drop_table("db", "t", True)

    assert client.get_all_tables("db") == []
    assert not (db / "t").exists()
    with pytest.raises(hive.NoSuchObjectException):
        client.get_table("db", "t")


def test_drop_managed_table_without_delete_data_keeps_the_directory(client, db):
    client.create_table(make_table("db", "t"))
    client.drop_table("db", "t", False)
    assert (db / "t").is_dir()


def test_drop_external_table_keeps_its_data(client, db, tmp_path):
    data = tmp_path / "ext"
    client.create_table(make_table("db", "e", location=str(data), table_type="EXTERNAL_TABLE"))
    (data / "f.parquet").write_bytes(b"x")
    client.drop_table("db", "e", True)
    assert client.get_all_tables("db") == []
    assert (data / "f.parquet").read_bytes() == b"x"


def test_recreated_managed_table_starts_empty(client, db):
    client.create_table(make_table("db", "t", partition_keys=cols("ds:string")))
    client.add_partition(make_partition("db", "t", ["1"]))
    (db / "t" / "old.parquet").write_bytes(b"old")

    client.drop_table("db", "t", True)
    client.create_table(make_table("db", "t", partition_keys=cols("ds:string")))

    assert (db / "t").is_dir()
    assert list((db / "t").iterdir()) == []
    assert client.get_partition_names("db", "t", -1) == []


def test_drop_missing_table_is_no_such_object(client, db):
    with pytest.raises(hive.NoSuchObjectException) as e:
        client.drop_table("db", "nope", True)
    assert e.value.message == "db.nope table not found"


def test_drop_view(client, db):
    view = make_table("db", "v", table_type="VIRTUAL_VIEW")
    view.sd.location = None
    view.viewOriginalText = view.viewExpandedText = "select 1"
    client.create_table(view)
    client.drop_table_with_environment_context("db", "v", True, None)
    assert client.get_all_tables("db") == []


ORC = {
    "inputFormat": "org.apache.hadoop.hive.ql.io.orc.OrcInputFormat",
    "outputFormat": "org.apache.hadoop.hive.ql.io.orc.OrcOutputFormat",
}


def _with(table, **sd):
    for key, value in sd.items():
        setattr(table.sd, key, value)
    return table


def test_transactional_false_is_never_stored(client):
    """Trino sends ``transactional=false`` with every ``CREATE TABLE``; Hive Metastore drops it (any case of
    key or value), and, as Hive 4, an alter that adds it."""
    client.create_database(make_database("tx"))
    for name, params in (("a", {"transactional": "false"}), ("b", {"Transactional": "FALSE", "k": "v"})):
        client.create_table(make_table("tx", name, params=params))
        stored = client.get_table("tx", name).parameters
        assert not {k for k in stored if k.lower() == "transactional"}, stored
    added = client.get_table("tx", "a")
    added.parameters["transactional"] = "false"
    client.alter_table("tx", "a", added)
    assert "transactional" not in client.get_table("tx", "a").parameters
    with pytest.raises(
        hive.MetaException, match="'transactional' property of TBLPROPERTIES may only have value 'true'"
    ):
        client.create_table(make_table("tx", "c", params={"transactional": "maybe"}))


def test_a_transactional_table_stays_transactional(client):
    client.create_database(make_database("tx"))
    client.create_table(_with(make_table("tx", "acid", params={"TRANSACTIONAL": "True"}), **ORC))
    acid = client.get_table("tx", "acid")
    assert acid.parameters["transactional"] == "true" and "TRANSACTIONAL" not in acid.parameters
    for params in ({}, {"transactional": "false"}):
        changed = client.get_table("tx", "acid")
        changed.parameters = {**{k: v for k, v in changed.parameters.items() if k != "transactional"}, **params}
        with pytest.raises(hive.MetaException, match="TBLPROPERTIES with 'transactional'='true' cannot be unset"):
            client.alter_table("tx", "acid", changed)
    assert client.get_table("tx", "acid").parameters["transactional"] == "true"
    unchanged = client.get_table("tx", "acid")
    unchanged.parameters["k"] = "v"
    client.alter_table("tx", "acid", unchanged)

    # a table becomes transactional only where Hive allows it: managed, ORC unless insert-only
    with pytest.raises(hive.MetaException, match=r"ACID compliant format \(such as ORC\): tx.parquet"):
        client.create_table(make_table("tx", "parquet", params={"transactional": "true"}))
    client.create_table(
        make_table("tx", "mm", params={"transactional": "true", "transactional_properties": "insert_only"})
    )
    with pytest.raises(hive.MetaException, match="tx.ext cannot be declared transactional because it's an external"):
        client.create_table(
            _with(make_table("tx", "ext", table_type="EXTERNAL_TABLE", params={"transactional": "true"}), **ORC)
        )
    client.create_table(_with(make_table("tx", "later"), **ORC))
    later = client.get_table("tx", "later")
    later.parameters["transactional"] = "true"
    client.alter_table("tx", "later", later)
    assert client.get_table("tx", "later").parameters["transactional"] == "true"
    assert client.get_all_tables("tx") == ["acid", "later", "mm"]
