"""Names and messages over a real Thrift socket, on every store.

Hive's name limits hold the same way on SQLite, MariaDB and PostgreSQL, with Hive's exception and words; every
other client value too long for its field is refused with a typed error before any SQL (never MariaDB's raw
``Data too long``). What a client reads names no server path, catalog database table, constraint, SQL or host:
that detail goes to the server's log.
"""

from __future__ import annotations

import logging
import re
import socket

import pytest
from thriftpy2.thrift import TApplicationException

from hudi_catalog import Catalog
from hudi_catalog.names import COLUMN_NAME_LIMIT, NAME_LIMIT, PARTITION_NAME_LIMIT, PARTITION_VALUE_LIMIT
from hudi_catalog.retries import RetryPolicy
from tests.conftest import STORES, RunningServer, hive
from tests.hms_adapter.helpers import cols, file_uri, make_database, make_partition, make_table

INTERNALS = (
    "Data too long",
    "value too long for type",
    "UNIQUE constraint",
    "Duplicate entry",
    "duplicate key",
    "uniq_",
    "INSERT",
    "UPDATE ",
    "SELECT",
    "sqlalchemy",
    "pymysql",
    "psycopg",
    "sqlite3",
    "Errno",
    "127.0.0.1",
)
"""What a client's message must never hold: the catalog database's texts, names and host, file system errors."""


def assert_client_safe(message: str, *also: str) -> None:
    for text in INTERNALS + also:
        assert text not in message, f"{text!r} in {message!r}"


def long_name(length: int, prefix: str = "n") -> str:
    return (prefix + "x" * length)[:length]


# -- Hive's name limits -----------------------------------------------------------------------------------------


def test_database_table_and_function_names_end_at_128_characters(client):
    client.create_database(make_database(long_name(NAME_LIMIT)))
    assert client.get_database(long_name(NAME_LIMIT)).name == long_name(NAME_LIMIT)
    with pytest.raises(hive.InvalidObjectException, match="is not a valid database name") as error:
        client.create_database(make_database(long_name(NAME_LIMIT + 1)))
    assert_client_safe(error.value.message)

    client.create_database(make_database("names"))
    client.create_table(make_table("names", long_name(NAME_LIMIT, "t")))
    assert client.get_table("names", long_name(NAME_LIMIT, "t")).tableName == long_name(NAME_LIMIT, "t")
    with pytest.raises(hive.InvalidObjectException, match="is not a valid object name") as error:
        client.create_table(make_table("names", long_name(NAME_LIMIT + 1, "t")))
    assert_client_safe(error.value.message)
    with pytest.raises(hive.InvalidOperationException, match="is not a valid object name"):
        client.alter_table("names", long_name(NAME_LIMIT, "t"), make_table("names", long_name(NAME_LIMIT + 1, "t")))
    assert client.get_tables("names", "*") == [long_name(NAME_LIMIT, "t")]

    function = hive.Function(
        functionName=long_name(NAME_LIMIT + 1, "f"),
        dbName="names",
        className="com.example.Upper",
        ownerName="alice",
        ownerType=hive.PrincipalType.USER,
        createTime=0,
        functionType=hive.FunctionType.JAVA,
        resourceUris=[],
    )
    with pytest.raises(hive.InvalidObjectException, match="is not a valid object name"):
        client.create_function(function)
    function.functionName = long_name(NAME_LIMIT, "f")
    client.create_function(function)
    assert client.get_functions("names", "*") == [long_name(NAME_LIMIT, "f")]
    assert client.get_all_databases() == sorted(["default", "names", long_name(NAME_LIMIT)])


def test_column_names_end_at_767_and_partition_keys_at_128_characters(client):
    client.create_database(make_database("cols"))
    wide = long_name(COLUMN_NAME_LIMIT, "c")
    client.create_table(
        make_table("cols", "fits", cols(f"{wide}:string"), cols(f"{long_name(NAME_LIMIT, 'k')}:string"))
    )
    fits = client.get_table("cols", "fits")
    assert [c.name for c in fits.sd.cols] == [wide]
    assert [k.name for k in fits.partitionKeys] == [long_name(NAME_LIMIT, "k")]

    with pytest.raises(hive.InvalidObjectException, match="Invalid column name") as error:
        client.create_table(make_table("cols", "wide", cols(f"{long_name(COLUMN_NAME_LIMIT + 1, 'c')}:string")))
    assert_client_safe(error.value.message)
    with pytest.raises(hive.InvalidObjectException, match="Invalid partition column name"):
        client.create_table(
            make_table("cols", "keyed", cols("id:int"), cols(f"{long_name(NAME_LIMIT + 1, 'k')}:string"))
        )
    altered = client.get_table("cols", "fits")
    altered.sd.cols = cols(f"{long_name(COLUMN_NAME_LIMIT + 1, 'c')}:string")
    with pytest.raises(hive.InvalidOperationException, match="Invalid column name"):  # Hive's type in alter_table
        client.alter_table("cols", "fits", altered)
    assert client.get_tables("cols", "*") == ["fits"]
    assert [c.name for c in client.get_table("cols", "fits").sd.cols] == [wide]


def test_partition_values_end_at_256_and_names_at_750_characters(client, warehouse):
    client.create_database(make_database("parts"))
    client.create_table(make_table("parts", "t", cols("id:int"), cols("a:string", "b:string", "c:string")))
    fits = [long_name(PARTITION_VALUE_LIMIT, v) for v in "xyz"][:2] + ["z"]
    # a location of its own: "a=<256 characters>" is longer than a local file system's file names
    client.add_partition(make_partition("parts", "t", fits, location=file_uri(warehouse / "parts.db" / "t" / "p1")))
    assert client.get_partition("parts", "t", fits).values == fits

    with pytest.raises(hive.InvalidObjectException, match="Partition value .* is too long: 257 characters") as error:
        client.add_partition(make_partition("parts", "t", ["1", long_name(PARTITION_VALUE_LIMIT + 1), "3"]))
    assert_client_safe(error.value.message)
    three_long = [long_name(PARTITION_VALUE_LIMIT, v) for v in "xyz"]  # "a=...256/b=...256/c=...256": 776 characters
    with pytest.raises(hive.InvalidObjectException, match=f"Partition name .* at most {PARTITION_NAME_LIMIT}"):
        client.add_partitions([make_partition("parts", "t", ["1", "2", "3"]), make_partition("parts", "t", three_long)])
    with pytest.raises(hive.InvalidOperationException, match="is too long"):
        client.rename_partition("parts", "t", fits, make_partition("parts", "t", ["1", "2", long_name(257)]))
    assert client.get_partition_names("parts", "t", -1) == [f"a={fits[0]}/b={fits[1]}/c=z"]  # nothing half-added


# -- every other field too long for its column --------------------------------------------------------------------


def test_values_too_long_for_their_fields_get_a_typed_error_before_any_sql(client):
    too_long_owner = make_database("owned", owner=long_name(NAME_LIMIT + 1))
    with pytest.raises(hive.InvalidObjectException, match="owner name .* 129 characters, at most 128") as error:
        client.create_database(too_long_owner)
    assert_client_safe(error.value.message, "owner_name", "db")
    with pytest.raises(hive.InvalidObjectException, match="description .* 65536 bytes, at most 65535"):
        client.create_database(make_database("described", description="é" * 32768))
    with pytest.raises(hive.NoSuchObjectException):
        client.get_database("owned")

    client.create_database(make_database("fields"))
    serde = make_table("fields", "serde")
    serde.sd.serdeInfo.name = long_name(NAME_LIMIT + 1)
    with pytest.raises(hive.InvalidObjectException, match="serde name") as error:
        client.create_table(serde)
    assert_client_safe(error.value.message, "serde_name", "tbl")
    with pytest.raises(hive.InvalidObjectException, match="parameter key .* at most 256") as error:
        client.create_table(make_table("fields", "params", params={long_name(257): "v"}))
    assert_client_safe(error.value.message, "param_key", "tbl_params")
    assert client.get_tables("fields", "*") == []

    with pytest.raises(hive.MetaException, match="role name .* at most 128") as error:  # create_role declares only it
        client.create_role(hive.Role(roleName=long_name(NAME_LIMIT + 1), ownerName="alice"))
    assert_client_safe(error.value.message)
    request = hive.LockRequest(
        component=[hive.LockComponent(type=hive.LockType.SHARED_READ, level=hive.LockLevel.DB, dbname="fields")],
        user=long_name(NAME_LIMIT + 1),
        hostname="host-a",
    )
    with pytest.raises(TApplicationException, match="user name .* at most 128") as error:  # lock declares none
        client.lock(request)
    assert_client_safe(error.value.message)
    assert client.show_locks(hive.ShowLocksRequest()).locks == []


# -- what a client is told, and what the log holds ------------------------------------------------------------


def test_a_duplicate_key_race_tells_already_exists_without_the_constraint(server, client, monkeypatch, caplog):
    client.create_database(make_database("raced"))
    # the loser of a race passed the existence check before the winner committed: the unique key refuses it
    monkeypatch.setattr("hudi_catalog.store.databases.exists", lambda conn, name: False)
    with caplog.at_level(logging.INFO), pytest.raises(hive.AlreadyExistsException) as error:
        client.create_database(make_database("raced"))  # a routine outcome: logged at INFO, detail included
    assert "already exists" in error.value.message
    assert_client_safe(error.value.message)
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert any(text in logged for text in ("UNIQUE constraint", "Duplicate entry", "duplicate key")), logged


def _refused_port() -> int:
    """A port of 127.0.0.1 nothing listens on (bound, then closed)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.parametrize("store", STORES)
def test_a_database_outage_names_no_host_or_path(store, tmp_path, caplog):
    port = _refused_port()
    url = {
        "sqlite": f"sqlite:///{tmp_path / 'gone' / 'catalog.db'}",
        "mysql": f"mysql+pymysql://root@127.0.0.1:{port}/metastore",
        "postgresql": f"postgresql://root@127.0.0.1:{port}/metastore",
    }[store]
    catalog = Catalog.open(url, str(tmp_path / "warehouse"), init=False, retry_policy=RetryPolicy(budget_seconds=0))
    running = RunningServer(catalog)
    client = running.client()
    try:
        with caplog.at_level(logging.WARNING), pytest.raises(hive.MetaException) as error:
            client.get_all_databases()
        assert "catalog database" in error.value.message
        # a server that cannot reach its database (and so changed nothing) answers in the words Hive's client
        # (RetryingMetaStoreClient) matches to retry on its next URI; a SQLite file that cannot be opened is no
        # outage another server would escape
        retried_by_hive = re.fullmatch(r"(?s).*(JDO[a-zA-Z]*|TProtocol|TTransport)Exception.*", error.value.message)
        assert (retried_by_hive is not None) == (store != "sqlite"), error.value.message
        assert_client_safe(error.value.message, str(port), str(tmp_path), "unable to open", "refused")
        logged = "\n".join(r.getMessage() for r in caplog.records)
        assert "127.0.0.1" in logged or "unable to open" in logged, logged  # the detail stays in the log
    finally:
        client.close()
        running.stop()
        catalog.close()


def test_a_directory_that_cannot_be_made_is_named_without_the_file_system_error(client, warehouse, caplog):
    (warehouse / "a_file").write_text("not a directory")
    location = file_uri(warehouse / "a_file" / "inside")
    with caplog.at_level(logging.WARNING), pytest.raises(hive.MetaException) as error:
        client.create_database(make_database("blocked", location=location))
    assert location in error.value.message  # the client's own location is echoed, as Hive does
    assert_client_safe(error.value.message, "Not a directory", "File exists")
    assert "blocked" not in client.get_all_databases()
    assert any(r.getMessage().count("detail") for r in caplog.records)


def test_an_unexpected_error_is_answered_with_a_reference_to_the_log(server, client, monkeypatch, caplog):
    secret = "/srv/metastore/private/catalog.db"

    def fail(*_args, **_kwargs):
        raise OSError(f"[Errno 13] Permission denied: '{secret}'")

    monkeypatch.setattr(server.catalog.databases, "names", fail)
    with caplog.at_level(logging.ERROR), pytest.raises(hive.MetaException, match="Internal error") as error:
        client.get_all_databases()
    assert_client_safe(error.value.message, secret, "Permission denied", "OSError")
    reference = error.value.message.split("reference ")[1].split()[0]
    assert any(reference in r.getMessage() and secret in r.getMessage() for r in caplog.records)
