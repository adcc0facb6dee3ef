"""Sixteen clients of mixed DDL, ``CALLS`` calls each, against ``serve --workers 2`` on MariaDB: tables of their
own created and dropped, tables of one shared name fought over, partitions added to and dropped from one
shared table. Every client makes all its calls, every acknowledged create is there and every acknowledged
drop is not, and no client saw an error but the expected ``AlreadyExistsException`` and
``NoSuchObjectException``. (A count of calls, not a duration: how many a machine makes in a given time
says how busy it is, not whether the server is right.)

``HMS_DDL_SECONDS`` makes each client go on calling for at least that long (default 0; longer runs, e.g.
600, find rarer races)."""

from __future__ import annotations

import os
import random
import subprocess
import threading
import time
from dataclasses import dataclass, field

from thriftpy2.rpc import make_client

from tests.conftest import hive
from tests.support.servers import free_port, serve_command, wait_for_port

CLIENTS = 16
CALLS = 40
"""Calls each client makes (answered, or refused with an expected exception), at the least."""
SECONDS = float(os.environ.get("HMS_DDL_SECONDS", "0"))
CEILING_SECONDS = SECONDS + 480
"""Only a bound against a hang: 640 calls take seconds on an idle machine."""
SHARED_NAMES = [f"shared_{i}" for i in range(4)]
EXPECTED = (hive.AlreadyExistsException, hive.NoSuchObjectException)


def _table(name: str, partitioned: bool = False):
    sd = hive.StorageDescriptor(
        cols=[hive.FieldSchema(name="x", type="int")], parameters={}, serdeInfo=hive.SerDeInfo(parameters={})
    )
    keys = [hive.FieldSchema(name="k", type="string")] if partitioned else []
    return hive.Table(
        tableName=name, dbName="ddl", sd=sd, partitionKeys=keys, parameters={}, tableType="EXTERNAL_TABLE"
    )


@dataclass
class Record:
    created: set[str] = field(default_factory=set)
    dropped: set[str] = field(default_factory=set)
    added: set[str] = field(default_factory=set)
    removed: set[str] = field(default_factory=set)
    expected_errors: int = 0
    other_errors: list[str] = field(default_factory=list)
    calls: int = 0


def _client_loop(port: int, number: int, until: float, ceiling: float, record: Record) -> None:
    """Calls until ``CALLS`` are answered and ``until`` has passed; ends early at an unexpected error, or
    (a hang) once ``ceiling`` passed."""
    rng = random.Random(number)
    client = make_client(hive.ThriftHiveMetastore, "127.0.0.1", port, timeout=120_000)
    own, step = [], 0
    while not record.other_errors and time.monotonic() < ceiling:
        if record.calls + record.expected_errors >= CALLS and time.monotonic() >= until:
            break
        step += 1
        action = rng.choice(["create", "create", "drop", "shared", "shared", "partition", "partition", "unpartition"])
        try:
            if action == "create":
                name = f"c{number}_{step}"
                client.create_table(_table(name))
                record.created.add(name)
                own.append(name)
            elif action == "drop" and own:
                name = own.pop(rng.randrange(len(own)))
                client.drop_table("ddl", name, False)
                record.dropped.add(name)
            elif action == "shared":
                name = rng.choice(SHARED_NAMES)
                if rng.random() < 0.5:
                    client.create_table(_table(name))
                else:
                    client.drop_table("ddl", name, False)
            elif action == "partition":
                value = f"{number}-{step}"
                client.add_partition(hive.Partition(values=[value], dbName="ddl", tableName="events", parameters={}))
                record.added.add(value)
            elif action == "unpartition" and record.added - record.removed:
                value = rng.choice(sorted(record.added - record.removed))
                client.drop_partition("ddl", "events", [value], False)
                record.removed.add(value)
            else:  # nothing of its own to drop yet: no call
                continue
            record.calls += 1
        except EXPECTED:
            record.expected_errors += 1
        except Exception as error:  # reported by the test
            record.other_errors.append(f"{action}: {type(error).__name__}: {error}")
    client.close()


def test_sixteen_clients_of_mixed_ddl_over_two_workers(mysql_db_url, tmp_path):
    port = free_port()
    log = open(tmp_path / "server.log", "w")
    server = subprocess.Popen(
        serve_command(port, db_url=mysql_db_url, warehouse=tmp_path / "wh", extra=["--workers", "2"]),
        stdout=log,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        wait_for_port(port, server, log=tmp_path / "server.log")
        setup = make_client(hive.ThriftHiveMetastore, "127.0.0.1", port, timeout=60_000)
        setup.create_database(hive.Database(name="ddl", parameters={}))
        setup.create_table(_table("events", partitioned=True))
        records = [Record() for _ in range(CLIENTS)]
        until, ceiling = time.monotonic() + SECONDS, time.monotonic() + CEILING_SECONDS
        threads = [
            threading.Thread(target=_client_loop, args=(port, n, until, ceiling, records[n])) for n in range(CLIENTS)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(CEILING_SECONDS + 120)
        tables = set(setup.get_all_tables("ddl"))
        partitions = {name.split("=", 1)[1] for name in setup.get_partition_names("ddl", "events", -1)}
        setup.close()
    finally:
        server.terminate()
        server.wait(60)
        log.close()
    errors = [e for r in records for e in r.other_errors]
    assert not errors, errors[:10]
    answered = [r.calls + r.expected_errors for r in records]
    assert min(answered) >= CALLS, f"a client did not get its {CALLS} calls answered: {answered}"
    for record in records:
        assert record.created - record.dropped <= tables
        assert not record.dropped & tables
        assert record.added - record.removed <= partitions
        assert not record.removed & partitions
    assert sum(r.expected_errors for r in records) > 0, "the shared names were fought over"
