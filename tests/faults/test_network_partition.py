"""Two metastore servers on two hosts (network namespaces made by the test, each linked to this host, where a
private MariaDB serves both) under load; one host's link is cut for a few seconds mid-load. The other keeps
serving: its reads are answered during the cut, and its writes succeed, at worst once the row locks the cut
server's open transaction held are released (the link back, or MariaDB ending that idle transaction after
``IDLE_TRANSACTION_SECONDS``). Nothing is half-written, and once the link is back the cut
server serves again without a restart."""

from __future__ import annotations

import shutil
import subprocess
import threading
import time
import uuid
from dataclasses import dataclass, field

import pytest
from thriftpy2.rpc import make_client

from tests.conftest import hive, skip_or_fail
from tests.support.servers import free_port, serve_command, wait_for_port, wait_until

BATCH = 10
CUT_SECONDS = 5.0


@dataclass
class Host:
    namespace: str
    link: str
    address: str
    gateway: str


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, timeout=30)


@pytest.fixture
def hosts():
    if shutil.which("ip") is None:
        skip_or_fail("the network partition test needs iproute2 (ip netns)")
    tag = uuid.uuid4().hex[:4]
    made = []
    try:
        for number, name in enumerate(("a", "b"), start=1):
            namespace, link, peer = f"hms{name}{tag}", f"hms{name}{tag}r", f"hms{name}{tag}n"
            subnet = 100 + number
            _ip("netns", "add", namespace)
            made.append(Host(namespace, link, f"10.77.{subnet}.2", f"10.77.{subnet}.1"))
            _ip("link", "add", link, "type", "veth", "peer", "name", peer)
            _ip("link", "set", peer, "netns", namespace)
            _ip("addr", "add", f"10.77.{subnet}.1/24", "dev", link)
            _ip("link", "set", link, "up")
            _ip("netns", "exec", namespace, "ip", "addr", "add", f"10.77.{subnet}.2/24", "dev", peer)
            _ip("netns", "exec", namespace, "ip", "link", "set", peer, "up")
            _ip("netns", "exec", namespace, "ip", "link", "set", "lo", "up")
    except (OSError, subprocess.CalledProcessError) as error:
        for host in made:
            subprocess.run(["ip", "netns", "del", host.namespace], capture_output=True)
        skip_or_fail(f"network namespaces cannot be made here: {error}")
    yield made
    for host in made:
        subprocess.run(["ip", "link", "del", host.link], capture_output=True)
        subprocess.run(["ip", "netns", "del", host.namespace], capture_output=True)


@dataclass
class Load:
    acknowledged: list[int] = field(default_factory=list)
    errors: list[tuple[float, str]] = field(default_factory=list)
    calls: list[tuple[float, float]] = field(default_factory=list)


def _load(address: str, port: int, table: str, first: int, stop: threading.Event, load: Load) -> None:
    step = first
    client = None
    while not stop.is_set():
        step += 1
        started = time.monotonic()
        try:
            if client is None:
                client = make_client(hive.ThriftHiveMetastore, address, port, timeout=40_000)
            client.add_partitions(
                [
                    hive.Partition(values=[f"{step:06d}-{j}"], dbName="net", tableName=table, parameters={})
                    for j in range(BATCH)
                ]
            )
            load.acknowledged.append(step)
            load.calls.append((started, time.monotonic()))
        except Exception as error:  # a cut link: recorded; a new connection next time
            load.errors.append((started, f"{type(error).__name__}: {error}"))
            client = None
            time.sleep(0.5)


def _read(address: str, port: int, stop: threading.Event, load: Load) -> None:
    client = make_client(hive.ThriftHiveMetastore, address, port, timeout=40_000)
    while not stop.is_set():
        started = time.monotonic()
        try:
            client.get_table("net", "ta")
            client.get_partition_names("net", "tb", 5)
            load.calls.append((started, time.monotonic()))
        except Exception as error:  # reported by the test
            load.errors.append((started, f"{type(error).__name__}: {error}"))
        time.sleep(0.05)
    client.close()


def test_cutting_one_hosts_link_leaves_the_other_serving(hosts, private_mariadb, tmp_path):
    private_mariadb.stop()
    private_mariadb.bind_address = "0.0.0.0"
    private_mariadb.start()
    port = free_port()
    servers, logs = [], []
    try:
        for host in hosts:
            log = open(tmp_path / f"server-{host.namespace}.log", "w")
            logs.append(log)
            db_url = f"mysql+pymysql://root@{host.gateway}:{private_mariadb.port}/faults"
            servers.append(
                subprocess.Popen(
                    # the server runs inside the host's namespace, listening on the host's own address
                    ["ip", "netns", "exec", host.namespace]
                    + serve_command(port, host=host.address, db_url=db_url, warehouse=tmp_path / "wh"),
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    text=True,
                )
            )
        for host, server in zip(hosts, servers):
            wait_for_port(port, server, host=host.address, log=tmp_path / f"server-{host.namespace}.log")
        setup = make_client(hive.ThriftHiveMetastore, hosts[1].address, port, timeout=60_000)
        setup.create_database(hive.Database(name="net", parameters={}))
        for table in ("ta", "tb"):
            sd = hive.StorageDescriptor(
                cols=[hive.FieldSchema(name="x", type="int")], parameters={}, serdeInfo=hive.SerDeInfo(parameters={})
            )
            setup.create_table(
                hive.Table(
                    tableName=table,
                    dbName="net",
                    sd=sd,
                    parameters={},
                    partitionKeys=[hive.FieldSchema(name="k", type="string")],
                    tableType="EXTERNAL_TABLE",
                )
            )

        stop = threading.Event()
        loads = {"a": [Load(), Load()], "b": [Load(), Load()]}
        reads = Load()
        threads = [threading.Thread(target=_read, args=(hosts[1].address, port, stop, reads))]
        for name, host in zip("ab", hosts):
            for i, load in enumerate(loads[name]):
                table = "ta" if i == 0 else "tb"  # both hosts write both tables
                first = {"a": 0, "b": 500_000}[name] + i * 100_000
                threads.append(threading.Thread(target=_load, args=(host.address, port, table, first, stop, load)))
        for thread in threads:
            thread.start()
        try:
            # the cut lands once every writer and the reader made a call (not after a fixed pause: a loaded
            # machine may not have made one by then); a client thread that died ends the wait (reported below)
            wait_until(
                lambda: (
                    all(load.calls for load in (*loads["a"], *loads["b"], reads))
                    or not all(thread.is_alive() for thread in threads)
                ),
                "a call of every client",
            )
            _ip("link", "set", hosts[0].link, "down")
            cut = time.monotonic()
            time.sleep(CUT_SECONDS)
            _ip("link", "set", hosts[0].link, "up")
            restored = time.monotonic()
            # until both hosts served a write that started after the link came back (asserted below)
            wait_until(
                lambda: (
                    all(any(start > restored for load in loads[name] for start, _ in load.calls) for name in "ab")
                    or not all(thread.is_alive() for thread in threads)
                ),
                "a write started after the cut on each host",
            )
        finally:
            stop.set()
            for thread in threads:
                thread.join(90)
        assert all(server.poll() is None for server in servers), "neither server was restarted"
        names = {table: setup.get_partition_names("net", table, -1) for table in ("ta", "tb")}
        setup.close()
    finally:
        for server in servers:
            server.terminate()
            server.wait(60)
        for log in logs:
            log.close()

    b_errors = [e for load in (*loads["b"], reads) for e in load.errors]
    assert not b_errors, b_errors[:5]
    assert [end for start, end in reads.calls if cut <= start and end <= restored], "reads answered during the cut"
    assert any(start > restored for load in loads["b"] for start, _ in load.calls), "the other host writes on"
    assert any(start > restored for load in loads["a"] for start, _ in load.calls), "the cut host serves again"
    per_batch: dict[str, int] = {}
    for table, table_names in names.items():
        for name in table_names:
            batch = f"{table}:{name.split('=')[1].split('-')[0]}"
            per_batch[batch] = per_batch.get(batch, 0) + 1
    assert all(count == BATCH for count in per_batch.values()), "a batch was half-written"
    for table_loads in loads.values():
        for i, load in enumerate(table_loads):
            table = "ta" if i == 0 else "tb"
            assert {f"{table}:{step:06d}" for step in load.acknowledged} <= set(per_batch)
