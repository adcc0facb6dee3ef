"""Databases over the Thrift socket: create, read, list, alter and drop, with their warehouse directories."""

from __future__ import annotations

import pytest

from tests.conftest import hive
from tests.hms_adapter.helpers import cols, file_uri, make_database, make_partition, make_table


def _function(db: str, name: str):
    return hive.Function(
        functionName=name,
        dbName=db,
        className="com.example.Upper",
        ownerName="alice",
        ownerType=hive.PrincipalType.USER,
        createTime=0,
        functionType=hive.FunctionType.JAVA,
        resourceUris=[],
    )


# -- create and read ----------------------------------------------------------------------------------


def test_create_database_makes_its_directory_under_the_warehouse(client, warehouse):
    client.create_database(make_database("sales", params={"team": "bi"}, description="sales data"))

    db = client.get_database("sales")
    assert db.name == "sales"
    assert db.description == "sales data"
    assert db.locationUri == file_uri(warehouse / "sales.db")
    assert (warehouse / "sales.db").is_dir()
    assert db.parameters == {"team": "bi"}
    assert db.ownerName == "alice"
    assert db.ownerType == hive.PrincipalType.USER
    assert db.createTime > 0


def test_create_database_lower_cases_the_name(client, warehouse):
    client.create_database(make_database("MixedCase"))

    assert "mixedcase" in client.get_all_databases()
    assert client.get_database("MIXEDCASE").name == "mixedcase"
    assert (warehouse / "mixedcase.db").is_dir()


def test_create_database_at_a_given_location(client, tmp_path):
    target = tmp_path / "elsewhere" / "custom"
    client.create_database(make_database("custom", location=str(target)))

    assert client.get_database("custom").locationUri == file_uri(target)
    assert target.is_dir()


def test_default_database_exists_at_the_warehouse_root(client, warehouse):
    db = client.get_database("default")
    assert db.locationUri == file_uri(warehouse)
    assert db.ownerName == "public"
    assert db.ownerType == hive.PrincipalType.ROLE


def test_duplicate_database_is_already_exists(client):
    client.create_database(make_database("dup"))
    with pytest.raises(hive.AlreadyExistsException) as e:
        client.create_database(make_database("DUP"))
    assert "dup" in e.value.message


@pytest.mark.parametrize("name", ["bad-name", "has space", "dot.ted", ""])
def test_invalid_database_name_is_invalid_object(client, warehouse, name):
    with pytest.raises(hive.InvalidObjectException):
        client.create_database(make_database(name))
    assert client.get_all_databases() == ["default"]
    assert [p.name for p in warehouse.iterdir()] == []


def test_get_missing_database_is_no_such_object(client):
    with pytest.raises(hive.NoSuchObjectException) as e:
        client.get_database("nope")
    assert "nope" in e.value.message


# -- listing ------------------------------------------------------------------------------------------


@pytest.fixture
def some_databases(client):
    for name in ("alpha", "apple", "beta", "gamma"):
        client.create_database(make_database(name))
    return client


def test_get_all_databases_is_sorted(some_databases):
    assert some_databases.get_all_databases() == ["alpha", "apple", "beta", "default", "gamma"]


@pytest.mark.parametrize(
    "pattern, expected",
    [
        ("*", ["alpha", "apple", "beta", "default", "gamma"]),
        ("a*", ["alpha", "apple"]),
        ("a*|b*", ["alpha", "apple", "beta"]),
        ("A*|G*", ["alpha", "apple", "gamma"]),
        ("BETA", ["beta"]),
        ("*ph*", ["alpha"]),
        ("nothing*", []),
    ],
)
def test_get_databases_with_patterns(some_databases, pattern, expected):
    assert some_databases.get_databases(pattern) == expected


def test_get_databases_with_catalog_prefixed_pattern(some_databases):
    assert some_databases.get_databases("@hive#b*") == ["beta"]


# -- @hive#db names -----------------------------------------------------------------------------------


def test_catalog_prefixed_names(client, warehouse):
    client.create_database(make_database("@hive#cat_db"))
    assert client.get_database("@hive#cat_db").name == "cat_db"
    assert client.get_database("cat_db").catalogName == "hive"
    assert (warehouse / "cat_db.db").is_dir()

    client.alter_database("@hive#cat_db", make_database("cat_db", params={"k": "v"}))
    assert client.get_database("cat_db").parameters == {"k": "v"}

    client.drop_database("@hive#cat_db", True, False)
    assert "cat_db" not in client.get_all_databases()


# -- alter --------------------------------------------------------------------------------------------


def test_alter_database_parameters_owner_and_location(client, tmp_path):
    client.create_database(make_database("al", params={"a": "1", "b": "2"}))
    created = client.get_database("al")

    changed = client.get_database("al")
    changed.parameters = {"b": "3", "c": "4"}
    changed.ownerName = "admins"
    changed.ownerType = hive.PrincipalType.ROLE
    changed.locationUri = str(tmp_path / "moved.db")
    client.alter_database("al", changed)

    db = client.get_database("al")
    assert db.parameters == {"b": "3", "c": "4"}
    assert db.ownerName == "admins"
    assert db.ownerType == hive.PrincipalType.ROLE
    assert db.locationUri == file_uri(tmp_path / "moved.db")
    assert db.createTime == created.createTime
    assert db.description == created.description


def test_alter_database_keeps_what_is_not_given(client):
    client.create_database(make_database("keep", params={"a": "1"}, description="kept"))
    before = client.get_database("keep")

    client.alter_database("keep", hive.Database(name="keep", parameters={"a": "2"}))

    after = client.get_database("keep")
    assert after.parameters == {"a": "2"}
    assert (after.ownerName, after.ownerType) == (before.ownerName, before.ownerType)
    assert after.locationUri == before.locationUri
    assert after.description == "kept"


def test_alter_missing_database_is_no_such_object(client):
    with pytest.raises(hive.NoSuchObjectException):
        client.alter_database("ghost", make_database("ghost"))


# -- drop ---------------------------------------------------------------------------------------------


def test_drop_empty_database_deletes_its_directory(client, warehouse):
    client.create_database(make_database("gone"))
    assert (warehouse / "gone.db").is_dir()

    client.drop_database("gone", True, False)

    assert "gone" not in client.get_all_databases()
    assert not (warehouse / "gone.db").exists()
    with pytest.raises(hive.NoSuchObjectException):
        client.get_database("gone")


def test_drop_database_without_delete_data_keeps_the_directory(client, warehouse):
    client.create_database(make_database("kept"))
    client.drop_database("kept", False, False)
    assert "kept" not in client.get_all_databases()
    assert (warehouse / "kept.db").is_dir()


def test_drop_missing_database_is_no_such_object(client):
    with pytest.raises(hive.NoSuchObjectException) as e:
        client.drop_database("ghost", True, True)
    assert "ghost" in e.value.message


def test_drop_non_empty_database_without_cascade_is_refused(client, warehouse):
    client.create_database(make_database("full"))
    client.create_table(make_table("full", "t1"))

    with pytest.raises(hive.InvalidOperationException) as e:
        client.drop_database("full", True, False)

    assert e.value.message == "Database full is not empty. One or more tables exist."
    assert client.get_all_tables("full") == ["t1"]
    assert (warehouse / "full.db" / "t1").is_dir()


def test_drop_database_with_only_functions_without_cascade_is_refused(client):
    client.create_database(make_database("fns"))
    client.create_function(_function("fns", "upper2"))

    with pytest.raises(hive.InvalidOperationException) as e:
        client.drop_database("fns", True, False)

    assert e.value.message == "Database fns is not empty. One or more functions exist."
    assert client.get_functions("fns", "*") == ["upper2"]


def test_drop_database_cascade_drops_tables_functions_and_managed_dirs(client, warehouse, tmp_path):
    client.create_database(make_database("casc"))
    client.create_table(make_table("casc", "managed"))
    external_dir = tmp_path / "external_data" / "ext"
    client.create_table(make_table("casc", "ext", location=str(external_dir), table_type="EXTERNAL_TABLE"))
    client.create_function(_function("casc", "f1"))
    assert (warehouse / "casc.db" / "managed").is_dir()
    assert external_dir.is_dir()

    client.drop_database("casc", True, True)

    assert "casc" not in client.get_all_databases()
    assert not (warehouse / "casc.db").exists()
    assert external_dir.is_dir(), "an external table's data is not the metastore's to delete"
    assert client.get_table_meta("casc", "*", []) == []
    assert [f.functionName for f in client.get_all_functions().functions] == []
    with pytest.raises(hive.NoSuchObjectException):
        client.get_table("casc", "managed")

    # the name is free again, with empty catalog state
    client.create_database(make_database("casc"))
    assert client.get_all_tables("casc") == []
    assert client.get_functions("casc", "*") == []


def test_drop_database_cascade_deletes_only_the_partition_dirs_it_made_outside_the_warehouse(
    client, warehouse, tmp_path
):
    """As Hive, a partition directory the server made outside the warehouse goes with the drop; one that was
    there before stays (tests/hms_adapter/test_safe_deletion.py)."""
    client.create_database(make_database("pd"))
    client.create_table(make_table("pd", "t", partition_keys=cols("ds:string")))
    made = tmp_path / "outside" / "ds=1"
    existing = tmp_path / "outside" / "ds=3"
    existing.mkdir(parents=True)
    (existing / "data.txt").write_text("keep me")
    client.add_partition(make_partition("pd", "t", ["1"], location=str(made)))
    client.add_partition(make_partition("pd", "t", ["2"]))
    client.add_partition(make_partition("pd", "t", ["3"], location=str(existing)))
    assert made.is_dir()
    assert (warehouse / "pd.db" / "t" / "ds=2").is_dir()

    client.drop_database("pd", True, True)

    assert not (warehouse / "pd.db").exists()
    assert not made.exists()
    assert (existing / "data.txt").read_text() == "keep me"


def test_default_database_cannot_be_dropped(client, warehouse):
    with pytest.raises(hive.MetaException) as e:
        client.drop_database("default", True, True)
    assert "Can not drop default database" in e.value.message
    assert "default" in client.get_all_databases()
    assert warehouse.is_dir()

    with pytest.raises((hive.InvalidOperationException, hive.MetaException)):
        client.drop_database("DEFAULT", False, False)


def test_a_database_created_without_an_owner_has_owner_type_user(client):
    """Hudi's hive sync creates its database with a name and a description only; Hive Metastore stores the
    owner type USER then (and no owner), and so does this server."""
    client.create_database(hive.Database(name="synced", description="automatically created by hoodie"))
    db = client.get_database("synced")
    assert (db.ownerName, db.ownerType) == (None, hive.PrincipalType.USER)
