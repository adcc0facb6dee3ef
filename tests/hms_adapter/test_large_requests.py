"""Large requests against a ``serve`` process: distinct multi-megabyte filters leave its memory bounded
(``--cache-max-bytes``: the read caches weigh keys and answers in bytes, and key on a digest of a filter);
a batch of more partitions than ``--max-batch-partitions`` is refused with a MetaException and writes
nothing; and on SQLite a batch of 20,000 partitions does not make another client's writes fail."""

from __future__ import annotations

import os
import subprocess
import threading
import time
from pathlib import Path

import pytest
from thriftpy2.rpc import make_client

from tests.conftest import hive
from tests.support.servers import free_port, serve_command, wait_for_port


@pytest.fixture
def serve(tmp_path):
    """Starts ``hudi-metastore serve`` on SQLite with extra options; returns its process and port."""
    started = []

    def start(*options: str):
        port = free_port()
        process = subprocess.Popen(
            serve_command(port, db_url=f"sqlite:///{tmp_path / 'c.db'}", warehouse=tmp_path / "wh", extra=options),
            stdout=open(tmp_path / "server.log", "w"),
            stderr=subprocess.STDOUT,
            # glibc gives each thread that allocates its own arena (up to 8 per core): on a loaded machine the
            # requests land on more threads and the RSS these tests bound grows with the arenas, not with what
            # the server holds (the long-IN-list test: 56 MiB quiet; with two busy loops beside it 124 MiB, and
            # 85 with two arenas; 114 in a CI run)
            env={**os.environ, "MALLOC_ARENA_MAX": "2"},
        )
        started.append(process)
        wait_for_port(port, process)
        return process, port

    yield start
    for process in started:
        process.terminate()
        process.wait(30)


def _client(port: int):
    return make_client(hive.ThriftHiveMetastore, "127.0.0.1", port, timeout=120_000)


def _rss_mib(pid: int, field: str = "VmRSS") -> float:
    """The process's resident memory (``VmHWM``: its peak since the last ``_reset_peak``) in MiB."""
    status = Path(f"/proc/{pid}/status").read_text()
    return next(int(line.split()[1]) / 1024 for line in status.splitlines() if line.startswith(f"{field}:"))


def _reset_peak(pid: int) -> None:
    Path(f"/proc/{pid}/clear_refs").write_text("5")


def _table(client, location: str) -> Path:
    """Table ``big.t`` partitioned by ``ds``; returns its directory."""
    client.create_database(hive.Database(name="big", locationUri=location, parameters={}))
    sd = hive.StorageDescriptor(
        cols=[hive.FieldSchema("a", "string", "")],
        location=f"{location}/t",
        serdeInfo=hive.SerDeInfo(parameters={}),
        parameters={},
    )
    client.create_table(
        hive.Table(
            dbName="big",
            tableName="t",
            sd=sd,
            partitionKeys=[hive.FieldSchema("ds", "string", "")],
            parameters={},
            tableType="MANAGED_TABLE",
        )
    )
    return Path(location[len("file://") :]) / "t"


def _parts(count: int) -> list[hive.Partition]:
    return [hive.Partition(dbName="big", tableName="t", values=[f"{i:06d}"], parameters={}) for i in range(count)]


def _served_table(serve, tmp_path):
    """A server with table ``big.t`` of 100 partitions, read once; its process and a client."""
    process, port = serve()
    client = _client(port)
    _table(client, f"file://{tmp_path}/data")
    client.add_partitions(_parts(100))
    client.get_partitions_by_filter("big", "t", "ds = '000001'", -1)
    return process, client


def test_distinct_large_filters_leave_the_servers_memory_bounded(serve, tmp_path):
    process, client = _served_table(serve, tmp_path)
    before = _rss_mib(process.pid)
    for i in range(40):  # 5 MB each, matching nothing: the cache used to keep every one of them
        assert client.get_partitions_by_filter("big", "t", f"ds = '{i:04d}{'x' * 5_000_000}'", -1) == []
    grown = _rss_mib(process.pid) - before
    assert grown < 150, f"RSS grew {grown:.0f} MiB"
    assert [p.values for p in client.get_partitions_by_filter("big", "t", "ds = '000042'", -1)] == [["000042"]]


def test_refused_filters_leave_nothing_behind(serve, tmp_path):
    """A filter over ``--max-filter-terms`` is refused after one pass over its text, and leaves nothing: the
    terms used to be taken apart first (a peak of 23 times the request's size), and the refused call's error
    held the request's arguments in a cycle with its traceback until the cyclic collector ran (the RSS grew
    by 250 MiB over 60 such calls)."""
    process, client = _served_table(serve, tmp_path)
    before = _rss_mib(process.pid)
    _reset_peak(process.pid)
    values = ", ".join(f'"{j:07d}"' for j in range(1, 400_000))
    for i in range(60):  # 400,000 values, 5.6 MB, each request's own: refused
        text = f'ds in ("x{i:02d}", {values})'
        with pytest.raises(hive.MetaException, match="the filter has 400000 terms, over the limit of 200000"):
            client.get_partitions_by_filter("big", "t", text, -1)
        if i == 0:
            peak = _rss_mib(process.pid, "VmHWM") - before
            assert peak < 20 * len(text) / 2**20, (
                f"one refused {len(text) / 2**20:.1f} MiB filter peaked at {peak:.0f} MiB"
            )
    grown = _rss_mib(process.pid) - before
    assert grown < 50, f"RSS grew {grown:.0f} MiB"
    assert [p.values for p in client.get_partitions_by_filter("big", "t", "ds = '000042'", -1)] == [["000042"]]


def test_distinct_long_value_lists_leave_the_servers_memory_bounded(serve, tmp_path):
    """Long IN lists of distinct lengths: on SQLite each used to leave a prepared statement of a parameter per
    value in the connection's statement cache (about 9 MiB for 100,000 values)."""
    process, port = serve()
    client = _client(port)
    _table(client, f"file://{tmp_path}/data")
    client.add_partitions(_parts(100))
    values = [f"'{i:06d}'" for i in range(100_000)]

    def distinct_lists(lengths: range) -> None:
        for length in lengths:  # about 1 MB each
            answer = client.get_partitions_by_filter("big", "t", f"ds in ({', '.join(values[:length])})", -1)
            assert len(answer) == 100

    # the first lists take the RSS to the peak of parsing one (about 60 MiB); from there 20 more grew it by
    # 9 to 13 MiB on a quiet machine and 10 to 40 beside two busy loops, where one request's parse may still
    # be freed as the next begins; a cache keeping each list would add 9 MiB a list, 180 in all
    distinct_lists(range(100_000, 99_995, -1))
    before = _rss_mib(process.pid)
    distinct_lists(range(99_995, 99_975, -1))
    grown = _rss_mib(process.pid) - before
    assert grown < 90, f"RSS grew {grown:.0f} MiB"


def test_a_batch_over_the_limit_is_refused_and_writes_nothing(serve, tmp_path):
    _process, port = serve("--max-batch-partitions", "1000")
    client = _client(port)
    directory = _table(client, f"file://{tmp_path}/data")
    with pytest.raises(hive.MetaException, match=r"\(=1001\) on table 'big.t' exceeds limit \(=1000\).*--max-batch"):
        client.add_partitions(_parts(1001))
    with pytest.raises(hive.MetaException, match="exceeds limit"):
        client.add_partitions_req(
            hive.AddPartitionsRequest("big", "t", _parts(1001), ifNotExists=True, needResult=True)
        )
    assert client.get_partitions("big", "t", -1) == []
    assert not directory.exists() or not any(directory.iterdir())

    assert client.add_partitions(_parts(1000)) == 1000  # the limit itself is allowed
    names = [f"ds={i:06d}" for i in range(1001)]
    with pytest.raises(hive.MetaException, match="exceeds limit"):
        client.get_partitions_by_names("big", "t", names)
    with pytest.raises(hive.MetaException, match="exceeds limit"):
        client.drop_partitions_req(
            hive.DropPartitionsRequest("big", "t", hive.RequestPartsSpec(names=names), deleteData=True, ifExists=True)
        )
    with pytest.raises(hive.MetaException, match="exceeds limit"):
        client.alter_partitions("big", "t", _parts(1001))
    assert len(client.get_partition_names("big", "t", -1)) == 1000
    assert len(client.get_partitions_by_names("big", "t", names[:1000])) == 1000


def test_a_large_batch_does_not_make_another_writer_fail_on_sqlite(serve, tmp_path):
    _process, port = serve()
    client = _client(port)
    _table(client, f"file://{tmp_path}/data")
    client.create_database(hive.Database(name="other", parameters={}))
    other = _client(port)
    done, failures, calls = threading.Event(), [], []

    def write_elsewhere() -> None:
        while not done.is_set():
            started = time.perf_counter()
            try:
                other.alter_database("other", hive.Database(name="other", parameters={"n": str(len(calls))}))
            except Exception as error:  # counted below
                failures.append(repr(error))
            calls.append(time.perf_counter() - started)
            done.wait(0.05)

    writer = threading.Thread(target=write_elsewhere)
    writer.start()
    try:
        assert client.add_partitions(_parts(20_000)) == 20_000
    finally:
        done.set()
        writer.join(120)
    assert failures == []
    assert len(calls) > 1
    assert other.get_database("other").parameters["n"] == str(len(calls) - 1)
    assert len(client.get_partition_names("big", "t", -1)) == 20_000
