"""Hudi's metaserver protocol over a real Thrift socket, on SQLite and MariaDB.

The replay drives every instant of each real table through the protocol in the order a writer made them
(the bytes of the table's own instant files as metadata, the server's clock at the instant's times) into
an empty catalog; the resulting timeline and snapshot equal those of ``hudi-metastore import``.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from thriftpy2.rpc import make_client

from hms_adapter.idl import metaserver as ms
from hms_adapter.serving import make_metaserver
from hudi_catalog.hudi.properties import read_table_config
from hudi_catalog.hudi.storage import open_path
from hudi_catalog.services.hudi_import import HudiImporter
from tests.hudi.tables import tables_on_stores, unpack
from tests.support.metaserver_replay import COMPLETED, INFLIGHT, REQUESTED, replay, thrift_instant, wire_state


@pytest.fixture
def metaserver(catalog):
    server = make_metaserver(catalog, "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.stop()
    thread.join(10)


@pytest.fixture
def client(metaserver):
    client = make_client(ms.ThriftHoodieMetaserver, "127.0.0.1", metaserver.port, timeout=60_000)
    yield client
    client.close()


def slices(catalog, database: str) -> set[tuple]:
    return {
        (s.partition_path, s.file_id, s.base_file, tuple(s.log_files))
        for found in catalog.snapshot.latest_file_slices(database, "t").values()
        for s in found
    }


@pytest.mark.parametrize(("db_url", "name"), tables_on_stores(), indirect=["db_url"])
def test_replay_through_the_metaserver_equals_the_import(catalog, client, tmp_path, name):
    base = unpack(name, tmp_path)
    HudiImporter(catalog).run(str(base), database="imported", table="t")
    imported = catalog.tables.get("imported", "t")
    replay(catalog, client, base, "replayed", imported.partition_keys)
    assert slices(catalog, "replayed") == slices(catalog, "imported")
    ours = [(i.requested_time, i.action, i.state) for i in catalog.timeline.instants("replayed", "t")]
    assert ours == [(i.requested_time, i.action, i.state) for i in catalog.timeline.instants("imported", "t")]
    listed = client.listInstants("replayed", "t", 0)
    assert [(i.timestamp, i.state) for i in listed] == [(ts, wire_state(state)) for ts, _, state in ours]
    partitions = client.listPartitions("replayed", "t")
    assert sorted(partitions) == sorted(catalog.snapshot.partition_paths("imported", "t"))
    over_thrift = {
        (s.partition, s.fileId, s.baseFile, tuple(s.logFiles))
        for p in partitions
        for s in client.getLatestFileSlices("replayed", "t", p, None)
    }
    assert over_thrift == slices(catalog, "imported")


def test_instant_lifecycle_and_errors(catalog, client):
    client.createDatabase("w")
    client.createTable(
        ms.Table(
            tableName="t",
            databaseName="w",
            owner="o",
            createTime=0,
            location="file:/tmp/w/t",
            tableType="COPY_ON_WRITE",
            partitionKeys=[],
            parameters={},
        )
    )
    assert client.getTable("w", "t").tableType == "COPY_ON_WRITE"
    ts = client.createNewInstantTime("w", "t")
    assert len(ts) == 17 and client.createNewInstantTime("w", "t") > ts
    created = client.createNewInstantWithTime("w", "t", thrift_instant(ts, "commit", REQUESTED), b"plan")
    assert created.success
    assert client.getInstantMetadata("w", "t", thrift_instant(ts, "commit", REQUESTED)) == b"plan"
    with pytest.raises(ms.MetaserverException, match="is requested, not inflight"):
        client.transitionInstantState(
            "w", "t", thrift_instant(ts, "commit", INFLIGHT), thrift_instant(ts, "commit", COMPLETED), b""
        )
    client.transitionInstantState(
        "w", "t", thrift_instant(ts, "commit", REQUESTED), thrift_instant(ts, "commit", INFLIGHT), b""
    )
    with pytest.raises(ms.NoSuchObjectException):
        client.listInstants("w", "missing", 0)
    with pytest.raises(ms.AlreadyExistException):
        client.createDatabase("w")
    with pytest.raises(ms.MetaserverException):
        client.getLatestFileSlices("w", "t", "", "yesterday")
    assert client.deleteInstant("w", "t", thrift_instant(ts, "commit", INFLIGHT)).success
    assert client.listInstants("w", "t", 0) == []


def test_concurrent_completions_over_the_wire_have_one_winner(catalog, metaserver):
    setup = make_client(ms.ThriftHoodieMetaserver, "127.0.0.1", metaserver.port, timeout=60_000)
    setup.createDatabase("c")
    setup.createTable(
        ms.Table(
            tableName="t",
            databaseName="c",
            owner="o",
            createTime=0,
            location="file:/tmp/c/t",
            tableType="MERGE_ON_READ",
            partitionKeys=[],
            parameters={},
        )
    )
    ts = setup.createNewInstantTime("c", "t")
    setup.createNewInstantWithTime("c", "t", thrift_instant(ts, "deltacommit", INFLIGHT), b"")
    setup.close()
    barrier = threading.Barrier(4)

    def complete(_: int) -> str:
        writer = make_client(ms.ThriftHoodieMetaserver, "127.0.0.1", metaserver.port, timeout=60_000)
        barrier.wait()
        try:
            writer.transitionInstantState(
                "c", "t", thrift_instant(ts, "deltacommit", INFLIGHT), thrift_instant(ts, "deltacommit", COMPLETED), b""
            )
            return "won"
        except ms.MetaserverException:
            return "lost"
        finally:
            writer.close()

    with ThreadPoolExecutor(4) as pool:
        assert sorted(pool.map(complete, range(4))) == ["lost", "lost", "lost", "won"]


def test_two_server_processes_over_one_mariadb(mysql_db_url, tmp_path):
    """Writers spread over two server processes sharing one MariaDB database: instant times stay unique and
    increasing, each contended transition has one winner, and no completed commit loses its files."""
    import json
    import subprocess

    from tests.support.servers import free_port, serve_command, wait_for_port

    ports, processes = [], []
    for _ in range(2):
        hms, port = free_port(), free_port()
        command = serve_command(
            hms, metaserver_port=port, db_url=mysql_db_url, warehouse=tmp_path / "wh", extra=["--log-level", "WARNING"]
        )
        processes.append(subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
        ports.append(port)
    try:
        for port, process in zip(ports, processes):
            wait_for_port(port, process)
        setup = make_client(ms.ThriftHoodieMetaserver, "127.0.0.1", ports[0], timeout=60_000)
        setup.createDatabase("m")
        setup.createTable(
            ms.Table(
                tableName="t",
                databaseName="m",
                owner="o",
                createTime=0,
                location=f"file:{tmp_path}/t",
                tableType="COPY_ON_WRITE",
                partitionKeys=[ms.FieldSchema(name="p", type="string", comments=None)],
                parameters={},
            )
        )
        setup.close()

        def writer(index: int) -> list[tuple[str, str]]:
            client = make_client(ms.ThriftHoodieMetaserver, "127.0.0.1", ports[index % 2], timeout=60_000)
            written = []
            for round_ in range(5):
                ts = client.createNewInstantTime("m", "t")
                file_id = f"w{index}-r{round_}"
                commit = {
                    "partitionToWriteStats": {
                        "p=a": [
                            {
                                "fileId": file_id,
                                "path": f"p=a/{file_id}_0-1-1_{ts}.parquet",
                                "prevCommit": "null",
                                "numWrites": 1,
                                "fileSizeInBytes": 10,
                                "partitionPath": "p=a",
                            }
                        ]
                    },
                    "extraMetadata": {},
                    "operationType": "INSERT",
                }
                client.createNewInstantWithTime("m", "t", thrift_instant(ts, "commit", INFLIGHT), b"")
                client.transitionInstantState(
                    "m",
                    "t",
                    thrift_instant(ts, "commit", INFLIGHT),
                    thrift_instant(ts, "commit", COMPLETED),
                    json.dumps(commit).encode(),
                )
                written.append((ts, file_id))
            client.close()
            return written

        with ThreadPoolExecutor(6) as pool:
            per_writer = list(pool.map(writer, range(6)))
        times = [ts for written in per_writer for ts, _ in written]
        assert len(set(times)) == 30
        assert all([ts for ts, _ in written] == sorted(ts for ts, _ in written) for written in per_writer)
        reader = make_client(ms.ThriftHoodieMetaserver, "127.0.0.1", ports[1], timeout=60_000)
        assert reader.listPartitions("m", "t") == ["p=a"]
        groups = {s.fileId for s in reader.getLatestFileSlices("m", "t", "p=a", None)}
        assert groups == {file_id for written in per_writer for _, file_id in written}
        assert len(reader.listInstants("m", "t", 0)) == 30
        reader.close()
    finally:
        for process in processes:
            process.terminate()
            process.wait(30)


def test_bad_instants_are_refused_naming_them_and_change_nothing(catalog, client):
    from tests.support.hudi_metadata import CLEAN_PARTITION, _avro_file, _schema

    client.createDatabase("b")
    client.createTable(
        ms.Table(
            tableName="t",
            databaseName="b",
            owner="o",
            createTime=0,
            location="file:/tmp/b/t",
            tableType="COPY_ON_WRITE",
            parameters={"hoodie.table.version": "8"},
            partitionKeys=[ms.FieldSchema(name="p", type="string", comments=None)],
        )
    )
    # createNewInstantWithTime declares no MetaserverException upstream: bad input comes as the storage one
    with pytest.raises(ms.MetaserverStorageException, match="not a valid instant"):
        client.createNewInstantWithTime(
            "b", "t", ms.THoodieInstant(timestamp=client.createNewInstantTime("b", "t"), action=99, state=1), b""
        )
    corrupt = client.createNewInstantTime("b", "t")
    client.createNewInstantWithTime("b", "t", thrift_instant(corrupt, "commit", INFLIGHT), b"")
    with pytest.raises(ms.MetaserverException, match=f"{corrupt}.*commit"):
        client.transitionInstantState(
            "b",
            "t",
            thrift_instant(corrupt, "commit", INFLIGHT),
            thrift_instant(corrupt, "commit", COMPLETED),
            b"Obj\x01 truncated",
        )

    clean_time = client.createNewInstantTime("b", "t")
    clean = _avro_file(
        _schema(
            "HoodieCleanMetadata",
            [
                ("startCleanTime", "string"),
                ("earliestCommitToRetain", "string"),
                ("partitionMetadata", {"type": "map", "values": CLEAN_PARTITION}),
            ],
        ),
        [
            {
                "startCleanTime": clean_time,
                "earliestCommitToRetain": corrupt,
                "partitionMetadata": {
                    "p=missing": {
                        "partitionPath": "p=missing",
                        "policy": "KEEP_LATEST_COMMITS",
                        "deletePathPatterns": [],
                        "successDeleteFiles": ["f-0_0-1-1_1.parquet"],
                        "failedDeleteFiles": [],
                        "isPartitionDeleted": None,
                    }
                },
            }
        ],
    )
    client.createNewInstantWithTime("b", "t", thrift_instant(clean_time, "clean", INFLIGHT), b"")
    with pytest.raises(ms.MetaserverException, match=f"{clean_time}.*p=missing"):
        client.transitionInstantState(
            "b",
            "t",
            thrift_instant(clean_time, "clean", INFLIGHT),
            thrift_instant(clean_time, "clean", COMPLETED),
            clean,
        )

    assert [(i.timestamp, i.state) for i in client.listInstants("b", "t", 0)] == [
        (corrupt, wire_state(INFLIGHT)),
        (clean_time, wire_state(INFLIGHT)),
    ]
    assert client.listPartitions("b", "t") == []
    assert catalog.snapshot.latest_file_slices("b", "t") == {}


def test_create_table_as_hudis_client_sends_it(catalog, client, tmp_path):
    """Hudi's client sends no database first, and neither version, type nor partition keys: the database is
    made with the table, and the rest comes from the ``hoodie.properties`` at the table's location."""
    base = unpack("sample_table_cow_v8_complexkeygen_hivestyle", tmp_path)
    sent = {"tableName": "t", "databaseName": "fresh", "owner": "writer", "createTime": 0, "partitionKeys": []}
    client.createTable(ms.Table(location=f"file:{base}", parameters={}, **sent))

    assert catalog.databases.get("fresh").name == "fresh"
    table = catalog.tables.get("fresh", "t")
    config = read_table_config(*open_path(str(base)))
    assert table.parameters["hoodie.table.version"] == str(config.version) == "8"
    assert table.parameters["hoodie.table.type"] == "COPY_ON_WRITE"
    assert [(k.name, k.type) for k in table.partition_keys] == [(f, "string") for f in config.partition_fields]
    assert client.getTable("fresh", "t").tableType == "COPY_ON_WRITE"

    # a location without a Hudi table: what was sent, and the version of tables made through the metaserver
    client.createTable(ms.Table(location=f"file:{tmp_path}/empty", parameters={}, **{**sent, "tableName": "u"}))
    bare = catalog.tables.get("fresh", "u")
    assert (bare.parameters["hoodie.table.version"], bare.partition_keys) == ("6", [])
    assert client.getTable("fresh", "u").tableType == "COPY_ON_WRITE"  # as Hudi's own metaserver answers
    with pytest.raises(ms.AlreadyExistException):
        client.createTable(ms.Table(location=f"file:{base}", parameters={}, **sent))
