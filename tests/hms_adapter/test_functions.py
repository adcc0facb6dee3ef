"""Permanent functions over the Thrift socket: create, read, list, alter and drop."""

from __future__ import annotations

import pytest

from tests.conftest import hive
from tests.hms_adapter.helpers import make_database
from tests.support.hive_functions import function


@pytest.fixture
def fdb(client):
    client.create_database(make_database("fdb"))
    return client


def test_create_and_get_function(fdb):
    resources = [
        hive.ResourceUri(resourceType=hive.ResourceType.JAR, uri="hdfs:///libs/udf.jar"),
        hive.ResourceUri(resourceType=hive.ResourceType.FILE, uri="file:///tmp/dict.txt"),
        hive.ResourceUri(resourceType=hive.ResourceType.ARCHIVE, uri="s3://bucket/a.zip"),
    ]
    fdb.create_function(function("fdb", "MyUpper", resources=resources))

    got = fdb.get_function("fdb", "myupper")
    assert got.functionName == "myupper"
    assert got.dbName == "fdb"
    assert got.className == "com.example.udf.Upper"
    assert got.ownerName == "alice"
    assert got.ownerType == hive.PrincipalType.USER
    assert got.functionType == hive.FunctionType.JAVA
    assert got.createTime > 0
    assert [(r.resourceType, r.uri) for r in got.resourceUris] == [
        (hive.ResourceType.JAR, "hdfs:///libs/udf.jar"),
        (hive.ResourceType.FILE, "file:///tmp/dict.txt"),
        (hive.ResourceType.ARCHIVE, "s3://bucket/a.zip"),
    ]
    assert fdb.get_function("@hive#FDB", "MYUPPER").functionName == "myupper"


def test_get_functions_with_patterns_and_get_all_functions(fdb):
    fdb.create_database(make_database("other"))
    for name in ("to_upper", "to_lower", "parse_json"):
        fdb.create_function(function("fdb", name))
    fdb.create_function(function("other", "to_title"))

    assert fdb.get_functions("fdb", "*") == ["parse_json", "to_lower", "to_upper"]
    assert fdb.get_functions("fdb", "to_*") == ["to_lower", "to_upper"]
    assert fdb.get_functions("fdb", "TO_U*|parse*") == ["parse_json", "to_upper"]
    assert fdb.get_functions("other", "*") == ["to_title"]
    assert fdb.get_functions("fdb", "nothing*") == []

    everything = fdb.get_all_functions().functions
    assert [(f.dbName, f.functionName) for f in everything] == [
        ("fdb", "parse_json"),
        ("fdb", "to_lower"),
        ("fdb", "to_upper"),
        ("other", "to_title"),
    ]


def test_alter_function(fdb):
    fdb.create_function(function("fdb", "f"))
    created = fdb.get_function("fdb", "f")

    changed = function(
        "fdb",
        "f",
        class_name="com.example.udf.Upper2",
        owner="bob",
        resources=[hive.ResourceUri(resourceType=hive.ResourceType.JAR, uri="/new.jar")],
    )
    fdb.alter_function("fdb", "f", changed)

    got = fdb.get_function("fdb", "f")
    assert got.className == "com.example.udf.Upper2"
    assert got.ownerName == "bob"
    assert [r.uri for r in got.resourceUris] == ["/new.jar"]
    assert got.createTime == created.createTime


def test_alter_function_can_rename_it(fdb):
    fdb.create_function(function("fdb", "old_name"))
    fdb.alter_function("fdb", "old_name", function("fdb", "new_name"))
    assert fdb.get_functions("fdb", "*") == ["new_name"]
    with pytest.raises(hive.NoSuchObjectException):
        fdb.get_function("fdb", "old_name")


def test_alter_missing_function_is_meta_exception(fdb):
    # as Hive's ObjectStore.alterFunction: MetaException("function <name> doesn't exist")
    with pytest.raises(hive.MetaException) as e:
        fdb.alter_function("fdb", "ghost", function("fdb", "ghost"))
    assert "ghost" in e.value.message


def test_drop_function(fdb):
    fdb.create_function(function("fdb", "f"))
    fdb.create_function(function("fdb", "g"))
    fdb.drop_function("fdb", "F")
    assert fdb.get_functions("fdb", "*") == ["g"]
    with pytest.raises(hive.NoSuchObjectException):
        fdb.get_function("fdb", "f")
    with pytest.raises(hive.NoSuchObjectException):
        fdb.drop_function("fdb", "f")

    # the name can be used again
    fdb.create_function(function("fdb", "f", class_name="com.example.Again"))
    assert fdb.get_function("fdb", "f").className == "com.example.Again"


def test_get_missing_function_names_it(fdb):
    with pytest.raises(hive.NoSuchObjectException) as e:
        fdb.get_function("fdb", "nosuchfunc")
    assert "nosuchfunc" in e.value.message


def test_duplicate_function_is_already_exists(fdb):
    fdb.create_function(function("fdb", "dup"))
    with pytest.raises(hive.AlreadyExistsException) as e:
        fdb.create_function(function("fdb", "DUP", class_name="com.example.Other"))
    assert "dup" in e.value.message
    assert fdb.get_function("fdb", "dup").className == "com.example.udf.Upper"


def test_function_in_missing_database_is_no_such_object(client):
    with pytest.raises(hive.NoSuchObjectException) as e:
        client.create_function(function("nodb", "f"))
    assert "nodb" in e.value.message
    assert client.get_all_functions().functions == []


def test_invalid_function_is_invalid_object(fdb):
    with pytest.raises(hive.InvalidObjectException):
        fdb.create_function(function("fdb", "bad-name"))
    with pytest.raises(hive.InvalidObjectException):
        fdb.create_function(function("fdb", "noclass", class_name=""))
    assert fdb.get_functions("fdb", "*") == []


def test_same_function_name_in_two_databases(fdb):
    fdb.create_database(make_database("other"))
    fdb.create_function(function("fdb", "f", class_name="com.example.A"))
    fdb.create_function(function("other", "f", class_name="com.example.B"))
    assert fdb.get_function("fdb", "f").className == "com.example.A"
    assert fdb.get_function("other", "f").className == "com.example.B"
    fdb.drop_function("other", "f")
    assert fdb.get_function("fdb", "f").className == "com.example.A"
