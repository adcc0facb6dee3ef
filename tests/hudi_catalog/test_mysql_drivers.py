"""Both MySQL drivers behave alike: ``mysql://`` URLs use mysqlclient when it is installed (the ``mysql`` extra)
and PyMySQL otherwise, and a URL may name either. The rest of the suite runs on the default one; here a
catalog on each is driven over the Thrift socket through what differs between drivers: text in every plane
of Unicode, binary values (the cached wire encodings of partitions), the error numbers the store classifies
(a duplicate key, a value out of range). A connection the server ended, mid-transaction or in the pool, is
tested on both drivers in ``test_connections.py``."""

from __future__ import annotations

import importlib.util

import pytest
from sqlalchemy import update
from sqlalchemy.engine import make_url

from hms_adapter.event_messages import HiveJsonMessages
from hudi_catalog import Catalog
from hudi_catalog.errors import AlreadyExistsError, InvalidInputError
from hudi_catalog.model import Database
from hudi_catalog.store import schema
from hudi_catalog.store.engine import Store, mysql_driver
from tests.conftest import IN_CI, RunningServer
from tests.hms_adapter.helpers import cols, make_database, make_partition, make_table

DRIVERS = ("pymysql", "mysqldb")


def test_mysql_urls_use_mysqlclient_when_it_is_installed():
    installed = importlib.util.find_spec("MySQLdb") is not None
    assert mysql_driver() == ("mysqldb" if installed else "pymysql")
    if IN_CI:
        assert installed, "the test extra installs mysqlclient (tools/services.sh installs what it builds with)"
    assert Store("mysql://root@127.0.0.1:1/none").engine.dialect.driver == mysql_driver()
    assert Store("mysql+pymysql://root@127.0.0.1:1/none").engine.dialect.driver == "pymysql"


@pytest.fixture(params=DRIVERS)
def driver_url(request, mysql_db_url) -> str:
    if request.param == "mysqldb" and importlib.util.find_spec("MySQLdb") is None:
        if IN_CI:
            pytest.fail("mysqlclient is not installed (CI=true: required)")
        pytest.skip("mysqlclient is not installed (pip install -e '.[mysql]')")
    url = make_url(mysql_db_url)
    return url.set(drivername=f"mysql+{request.param}").render_as_string(hide_password=False)


@pytest.fixture
def driver_catalog(driver_url, tmp_path):
    catalog = Catalog.open(driver_url, str(tmp_path / "warehouse"), event_format=HiveJsonMessages())
    assert catalog.store.engine.dialect.driver == make_url(driver_url).get_driver_name()
    yield catalog
    catalog.close()


TEXT = "naïve 日本語 🦄 \u00a0tab\there"
"""Latin-1, CJK, a character outside the Basic Multilingual Plane (4 bytes of UTF-8), a no-break space, a tab."""


def test_text_and_binary_values_round_trip(driver_catalog):
    running = RunningServer(driver_catalog)
    client = running.client()
    try:
        client.create_database(make_database("d", params={"note": TEXT}))
        client.create_table(make_table("d", "t", partition_keys=cols("ds:string")))
        values = [f"2024-01-{day:02d}" for day in range(1, 31)] + [TEXT]
        client.add_partitions([make_partition("d", "t", [v], params={"k": TEXT}) for v in values])

        assert client.get_database("d").parameters["note"] == TEXT
        for _ in range(2):  # encoded and cached by the first read, answered from the cached bytes by the second
            parts = client.get_partitions("d", "t", -1)
            assert sorted(p.values[0] for p in parts) == sorted(values)
            assert {p.parameters["k"] for p in parts} == {TEXT}
        assert [p.values for p in client.get_partitions_by_filter("d", "t", f'ds = "{TEXT}"', -1)] == [[TEXT]]
        assert len(client.get_partition_names("d", "t", -1)) == len(values)
    finally:
        client.close()
        running.stop()


def test_errors_are_classified_alike(driver_catalog):
    driver_catalog.databases.create(Database("dup"))
    with pytest.raises(AlreadyExistsError):
        driver_catalog.databases.create(Database("dup"))
    with pytest.raises(InvalidInputError):  # a number out of the column's range: the database refuses it
        with driver_catalog.store.write() as conn:
            conn.execute(update(schema.db).where(schema.db.c.name == "dup").values(create_time=2**70))
