"""Routine outcomes of client calls are logged at INFO, over a real Thrift socket: a missing table asked for
(PyIceberg's ``table_exists``), a create of what exists, a compare-and-set alter losing to another writer. A
real failure (dropping a database that is not empty) still logs a WARNING."""

from __future__ import annotations

import logging

import pytest
from pyiceberg.catalog.hive import HiveCatalog

from tests.conftest import hive
from tests.hms_adapter.helpers import cols, make_table

pytestmark = pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)


def _warnings(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]


def _failures(caplog, level: int) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno == level and " failed: " in r.getMessage()]


def test_routine_outcomes_log_no_warning(client, server, caplog):
    client.create_database(hive.Database(name="lake"))
    client.create_table(make_table("lake", "t", columns=cols("x:int"), params={"metadata_location": "m1"}))
    caplog.set_level(logging.INFO)

    assert HiveCatalog("hms", uri=server.uri).table_exists("lake.missing") is False
    with pytest.raises(hive.NoSuchObjectException):
        client.get_table("lake", "missing")
    with pytest.raises(hive.AlreadyExistsException):
        client.create_database(hive.Database(name="lake"))
    with pytest.raises(hive.AlreadyExistsException):
        client.create_table(make_table("lake", "t", columns=cols("x:int")))
    stale = client.get_table("lake", "t")
    stale.parameters["metadata_location"] = "m3"
    expect = {"expected_parameter_key": "metadata_location", "expected_parameter_value": "m0"}
    with pytest.raises(hive.MetaException, match="The table has been modified"):
        client.alter_table_with_environment_context("lake", "t", stale, hive.EnvironmentContext(properties=expect))

    assert _warnings(caplog) == []
    routine = _failures(caplog, logging.INFO)
    assert [m.split(":")[0] for m in routine] == [
        "get_table failed",  # PyIceberg's table_exists
        "get_table failed",
        "create_database failed",
        "create_table failed",
        "alter_table_with_environment_context failed",
    ]


def test_a_real_failure_still_warns(client, caplog):
    client.create_database(hive.Database(name="lake"))
    client.create_table(make_table("lake", "t", columns=cols("x:int")))
    caplog.set_level(logging.INFO)
    with pytest.raises(hive.InvalidOperationException):
        client.drop_database("lake", True, False)
    assert _failures(caplog, logging.WARNING) == [
        "drop_database failed: DatabaseNotEmptyError: Database lake is not empty. One or more tables exist."
    ]
