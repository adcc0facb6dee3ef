"""The Thrift side of the server: fb303, session calls, unknown methods, errors, transports and protocols,
and concurrent connections."""

from __future__ import annotations

import threading
import time

import pytest
from thriftpy2.protocol import TBinaryProtocolFactory, TCompactProtocolFactory
from thriftpy2.thrift import TApplicationException, TMessageType
from thriftpy2.transport import TBufferedTransportFactory, TFramedTransportFactory

from tests.conftest import RunningServer, hive
from tests.hms_adapter.helpers import cols, make_database, make_partition, make_table

UNKNOWN_METHOD = TApplicationException.UNKNOWN_METHOD


def raw_call(client, name: str, args) -> tuple[str, int, object]:
    """Send ``args`` as a call of method ``name`` on the client's connection; returns (name, type, payload).

    The payload is a ``TApplicationException`` for an exception answer, else the raw result is skipped.
    """
    oprot, iprot = client._oprot, client._iprot
    oprot.write_message_begin(name, TMessageType.CALL, 7)
    args.write(oprot)
    oprot.write_message_end()
    oprot.trans.flush()
    api, message_type, seqid = iprot.read_message_begin()
    assert seqid == 7
    if message_type == TMessageType.EXCEPTION:
        payload = TApplicationException()
        payload.read(iprot)
    else:
        payload = getattr(hive.ThriftHiveMetastore, name + "_result")()
        payload.read(iprot)
    iprot.read_message_end()
    return api, message_type, payload


# -- fb303 and session --------------------------------------------------------------------------------


def test_fb303_calls(client):
    before = int(time.time())
    assert client.getName() == "hudi-metastore"
    assert client.getVersion()
    assert client.getStatus() == hive.fb303.fb_status.ALIVE
    alive_since = client.aliveSince()
    assert 0 < alive_since <= before + 1
    assert client.getStatusDetails() == "ALIVE"
    assert client.getCounters() == {}


def test_set_ugi_returns_the_groups(client):
    assert client.set_ugi("alice", ["staff", "hadoop"]) == ["staff", "hadoop"]
    assert client.set_ugi("bob", []) == []


def test_get_config_value(client, catalog):
    assert client.get_config_value("hive.metastore.warehouse.dir", "") == catalog.warehouse.root
    assert client.get_config_value("hive.some.unset.key", "fallback") == "fallback"
    assert client.get_config_value("hdfs.anything", "d") == "d"
    assert client.get_config_value("mapred.anything", "d") == "d"


@pytest.mark.parametrize("key", ["metastore.txn.timeout", "hive.txn.timeout"])
def test_get_config_value_answers_the_txn_timeout(client, key):
    """Trino 476 asks ``metastore.txn.timeout`` without a default before a transactional write (to heartbeat
    at half of it); an answer without a value is a missing result, which it retries and then fails on."""
    assert client.get_config_value(key, None) == "300s"


@pytest.mark.parametrize("key", ["javax.jdo.option.ConnectionPassword", "fs.s3a.secret.key", "xhive.x"])
def test_get_config_value_refuses_other_keys(client, key):
    with pytest.raises(hive.ConfigValSecurityException) as e:
        client.get_config_value(key, "default")
    assert key in e.value.message
    assert client.getName() == "hudi-metastore"


# -- unknown methods and errors -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "method, args",
    [
        ("compact", (hive.CompactionRequest(dbname="default", tablename="t", type=hive.CompactionType.MAJOR),)),
        ("get_index_names", ("default", "t", -1)),
        ("get_type", ("t",)),
    ],
)
def test_method_in_the_idl_but_not_served_is_unknown_method(client, method, args):
    with pytest.raises(TApplicationException) as e:
        getattr(client, method)(*args)
    assert e.value.type == UNKNOWN_METHOD
    assert method in e.value.message
    # the same connection keeps working
    assert client.get_all_databases() == ["default"]
    with pytest.raises(TApplicationException) as e:
        getattr(client, method)(*args)
    assert e.value.type == UNKNOWN_METHOD
    assert client.getName() == "hudi-metastore"


def test_method_absent_from_the_idl_is_unknown_method(client):
    api, message_type, payload = raw_call(client, "no_such_method", hive.ThriftHiveMetastore.getName_args())
    assert (api, message_type) == ("no_such_method", TMessageType.EXCEPTION)
    assert payload.type == UNKNOWN_METHOD
    assert "no_such_method" in payload.message

    # arguments of an unknown method are skipped whole, however nested
    table = make_table("default", "x", partition_keys=cols("ds:string"))
    args = hive.ThriftHiveMetastore.create_table_args(tbl=table)
    api, message_type, payload = raw_call(client, "create_table_v99", args)
    assert message_type == TMessageType.EXCEPTION and payload.type == UNKNOWN_METHOD

    assert client.get_all_databases() == ["default"]
    assert client.get_all_tables("default") == []


def test_failing_calls_do_not_break_the_connection(client):
    client.create_table(make_table("default", "p", partition_keys=cols("ds:string")))
    for _ in range(3):
        with pytest.raises(hive.NoSuchObjectException):
            client.get_table("default", "missing")
        with pytest.raises(hive.MetaException):
            client.get_partitions_by_filter("default", "p", "((", -1)
        with pytest.raises(hive.AlreadyExistsException):
            client.create_table(make_table("default", "p"))
        with pytest.raises(hive.NoSuchObjectException):
            client.get_database("missing")
    client.create_table(make_table("default", "ok"))
    assert client.get_all_tables("default") == ["ok", "p"]


def test_a_client_that_disconnects_does_not_affect_others(server):
    first = server.client()
    second = server.client()
    try:
        assert first.getName() == "hudi-metastore"
        first.close()
        assert second.get_all_databases() == ["default"]
        third = server.client()
        assert third.getName() == "hudi-metastore"
        third.close()
    finally:
        second.close()


# -- transports and protocols -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "transport, protocol",
    [
        ("framed", "compact"),
        ("framed", "binary"),
        ("buffered", "compact"),
    ],
)
def test_other_transports_and_protocols(catalog, warehouse, transport, protocol):
    running = RunningServer(catalog, transport=transport, protocol=protocol)
    client = running.client(
        proto_factory=TCompactProtocolFactory() if protocol == "compact" else TBinaryProtocolFactory(),
        trans_factory=TFramedTransportFactory() if transport == "framed" else TBufferedTransportFactory(),
    )
    try:
        assert client.getName() == "hudi-metastore"
        client.create_database(make_database("wire", params={"k": "v"}))
        client.create_table(make_table("wire", "t", partition_keys=cols("ds:string", "hr:int")))
        client.add_partitions([make_partition("wire", "t", ["2024-01-01", str(h)]) for h in range(3)])
        table = client.get_table("wire", "t")
        assert [c.name for c in table.partitionKeys] == ["ds", "hr"]
        assert client.get_database("wire").parameters == {"k": "v"}
        assert client.get_partition_names("wire", "t", -1) == [f"ds=2024-01-01/hr={h}" for h in range(3)]
        assert len(client.get_partitions_by_filter("wire", "t", "hr >= 1", -1)) == 2
        with pytest.raises(hive.NoSuchObjectException):
            client.get_table("wire", "missing")
        with pytest.raises(TApplicationException) as e:
            client.compact(hive.CompactionRequest(dbname="wire", tablename="t", type=hive.CompactionType.MAJOR))
        assert e.value.type == UNKNOWN_METHOD
        assert client.get_all_tables("wire") == ["t"]
    finally:
        client.close()
        running.stop()


def test_wrong_protocol_client_does_not_break_the_server(catalog):
    running = RunningServer(catalog, transport="framed", protocol="compact")
    try:
        wrong = running.client()  # buffered binary against framed compact
        with pytest.raises(Exception):
            wrong.getName()
        wrong.close()
        right = running.client(proto_factory=TCompactProtocolFactory(), trans_factory=TFramedTransportFactory())
        assert right.getName() == "hudi-metastore"
        right.close()
    finally:
        running.stop()


# -- concurrency --------------------------------------------------------------------------------------


THREADS = 8
PARTITIONS_PER_THREAD = 12


def test_concurrent_connections_creating_and_reading(server, warehouse):
    setup = server.client()
    setup.create_database(make_database("conc"))
    setup.close()

    errors: list[BaseException] = []
    barrier = threading.Barrier(THREADS)

    def work(i: int) -> None:
        client = server.client()
        try:
            barrier.wait(30)
            name = f"t{i}"
            client.create_table(make_table("conc", name, partition_keys=cols("ds:string")))
            for p in range(PARTITIONS_PER_THREAD):
                client.add_partition(make_partition("conc", name, [f"d{p:02d}"]))
                assert client.get_table("conc", name).tableName == name
            client.alter_table("conc", name, _with_param(client.get_table("conc", name), "owner_thread", str(i)))
            assert len(client.get_partitions("conc", name, -1)) == PARTITIONS_PER_THREAD
            assert name in client.get_all_tables("conc")
            assert client.get_database("conc").name == "conc"
        except BaseException as e:  # collected and reported by the main thread
            errors.append(e)
        finally:
            client.close()

    threads = [threading.Thread(target=work, args=(i,)) for i in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not any(t.is_alive() for t in threads)
    assert errors == []

    check = server.client()
    try:
        assert check.get_all_tables("conc") == sorted(f"t{i}" for i in range(THREADS))
        for i in range(THREADS):
            table = check.get_table("conc", f"t{i}")
            assert table.parameters["owner_thread"] == str(i)
            assert check.get_partition_names("conc", f"t{i}", -1) == [
                f"ds=d{p:02d}" for p in range(PARTITIONS_PER_THREAD)
            ]
            assert (warehouse / "conc.db" / f"t{i}" / "ds=d00").is_dir()
    finally:
        check.close()


def race(server, call) -> list[object]:
    """Run ``call(client)`` on THREADS connections at once; the outcomes: ``"ok"`` or the exception."""
    outcomes: list[object] = []
    lock = threading.Lock()
    barrier = threading.Barrier(THREADS)

    def work() -> None:
        client = server.client()
        try:
            barrier.wait(30)
            try:
                call(client)
                outcome: object = "ok"
            except Exception as e:  # every outcome is recorded
                outcome = e
            with lock:
                outcomes.append(outcome)
        finally:
            client.close()

    threads = [threading.Thread(target=work) for _ in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert len(outcomes) == THREADS
    return outcomes


def assert_one_winner(outcomes: list[object]) -> None:
    assert outcomes.count("ok") == 1, outcomes
    assert all(isinstance(o, hive.AlreadyExistsException) for o in outcomes if o != "ok"), outcomes


@pytest.mark.parametrize("attempt", range(3))
def test_concurrent_creates_of_the_same_objects(server, warehouse, attempt):
    assert_one_winner(race(server, lambda c: c.create_database(make_database("race"))))
    assert (warehouse / "race.db").is_dir(), "a losing create must not delete the winner's directory"

    assert_one_winner(race(server, lambda c: c.create_table(make_table("race", "same", partition_keys=cols("ds")))))
    assert (warehouse / "race.db" / "same").is_dir()

    assert_one_winner(race(server, lambda c: c.add_partition(make_partition("race", "same", ["a"]))))
    assert (warehouse / "race.db" / "same" / "ds=a").is_dir()

    function = hive.Function(
        functionName="f",
        dbName="race",
        className="com.example.F",
        ownerType=hive.PrincipalType.USER,
        functionType=hive.FunctionType.JAVA,
        resourceUris=[],
    )
    assert_one_winner(race(server, lambda c: c.create_function(function)))

    check = server.client()
    try:
        assert check.get_databases("race") == ["race"]
        assert check.get_all_tables("race") == ["same"]
        assert check.get_partition_names("race", "same", -1) == ["ds=a"]
        assert check.get_functions("race", "*") == ["f"]
    finally:
        check.close()


def test_concurrent_add_partitions_if_not_exists_all_succeed(server, warehouse):
    setup = server.client()
    setup.create_database(make_database("sync"))
    setup.create_table(make_table("sync", "t", partition_keys=cols("ds")))
    setup.close()
    wanted = [f"2024-01-{d:02d}" for d in range(1, 11)]

    def add(client):
        parts = [make_partition("sync", "t", [v]) for v in wanted]
        client.add_partitions_req(
            hive.AddPartitionsRequest(dbName="sync", tblName="t", parts=parts, ifNotExists=True, needResult=True)
        )

    assert race(server, add) == ["ok"] * THREADS

    check = server.client()
    try:
        assert check.get_partition_names("sync", "t", -1) == [f"ds={v}" for v in wanted]
    finally:
        check.close()
    assert all((warehouse / "sync.db" / "t" / f"ds={v}").is_dir() for v in wanted)


def _with_param(table, key, value):
    table.parameters[key] = value
    return table


def test_get_config_value_without_a_name_returns_the_default(client):
    assert client.get_config_value(None, "fallback") == "fallback"
