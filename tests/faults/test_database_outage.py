"""A metastore whose catalog database crashes under load: a private MariaDB is killed with SIGKILL while
four clients add partition batches and create and drop tables through ``hudi-metastore serve``, stays
down for a few seconds and comes back. The server is not restarted. Afterwards every acknowledged change
is there, no batch is half-written, the calls made during the outage succeeded after retrying (only a
call whose commit was cut off may fail, saying so, and its batch is then all there or all absent), and
every client worked before the crash and after it.

The crash comes once every client had a batch acknowledged, and the load stops once every client had one
acknowledged that it began after the database was back: events, not fixed pauses, which a loaded machine
may not fill. The server's retry budget is generous for the same reason: a MariaDB restarting on a loaded
machine can take longer than the default 10 s; a budget that outlasts the outage is what the test is about,
not its length."""

from __future__ import annotations

import subprocess
import threading
import time
from dataclasses import dataclass, field

from thriftpy2.rpc import make_client

from tests.conftest import hive
from tests.support.servers import READY_SECONDS, free_port, serve_command, wait_for_port, wait_until

BATCH = 20
WORKERS = 4
OUTAGE_SECONDS = 5.0


def _columns():
    return [hive.FieldSchema(name="x", type="int")]


def _table(db: str, name: str, location: str):
    sd = hive.StorageDescriptor(
        cols=_columns(),
        location=location,
        serdeInfo=hive.SerDeInfo(parameters={}),
        inputFormat="org.apache.hadoop.mapred.TextInputFormat",
        outputFormat="org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat",
        parameters={},
    )
    return hive.Table(
        tableName=name,
        dbName=db,
        sd=sd,
        partitionKeys=[hive.FieldSchema(name="k", type="string")],
        parameters={},
        tableType="MANAGED_TABLE",
    )


@dataclass
class Ledger:
    """What one client did: batches and tables the server acknowledged, and calls that failed."""

    batches: list[int] = field(default_factory=list)
    created: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)
    uncertain: list[str] = field(default_factory=list)
    """Tables whose create or drop failed while committing: it may or may not have been applied."""
    failed: list[tuple[str, str]] = field(default_factory=list)
    succeeded: list[tuple[float, float]] = field(default_factory=list)
    """Start and end of each step (a batch, and a create and drop) that succeeded."""


def _work(port: int, worker: int, warehouse: str, stop: threading.Event, ledger: Ledger):
    client = make_client(hive.ThriftHiveMetastore, "127.0.0.1", port, timeout=120_000)
    table, step = f"t{worker}", 0
    while not stop.is_set():
        step += 1
        started = time.monotonic()
        parts = [
            hive.Partition(
                values=[f"{step:05d}-{j:02d}"],
                dbName="load",
                tableName=table,
                parameters={},
                sd=_table("load", table, f"{warehouse}/load.db/{table}").sd,
            )
            for j in range(BATCH)
        ]
        changing = None  # the table being created or dropped
        try:
            client.add_partitions(parts)
            ledger.batches.append(step)
            if step % 4 == 0:
                changing = f"ddl_{worker}_{step}"
                client.create_table(_table("load", changing, f"{warehouse}/load.db/{changing}"))
                ledger.created.append(changing)
                if step % 8 == 0:
                    client.drop_table("load", changing, True)
                    ledger.dropped.append(changing)
            ledger.succeeded.append((started, time.monotonic()))
        except hive.MetaException as error:
            ledger.failed.append((f"{table}:{step}", error.message))
            if changing is not None and "while committing" in error.message:
                ledger.uncertain.append(changing)
    client.close()


def test_a_database_crash_mid_load_costs_latency_not_errors(private_mariadb, tmp_path):
    port, warehouse = free_port(), str(tmp_path / "warehouse")
    log = open(tmp_path / "server.log", "w")
    server = subprocess.Popen(
        serve_command(
            port, db_url=private_mariadb.url, warehouse=warehouse, extra=["--db-retry-budget", str(READY_SECONDS)]
        ),
        stdout=log,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        wait_for_port(port, server, log=tmp_path / "server.log")
        setup = make_client(hive.ThriftHiveMetastore, "127.0.0.1", port, timeout=60_000)
        setup.create_database(hive.Database(name="load", parameters={}))
        for worker in range(WORKERS):
            setup.create_table(_table("load", f"t{worker}", f"{warehouse}/load.db/t{worker}"))

        stop, outage = threading.Event(), []
        ledgers = [Ledger() for _ in range(WORKERS)]
        threads = [threading.Thread(target=_work, args=(port, w, warehouse, stop, ledgers[w])) for w in range(WORKERS)]
        for thread in threads:
            thread.start()

        def every_client(done) -> bool:  # or a client thread ended (an error it did not expect): reported below
            return all(done(ledger) for ledger in ledgers) or not all(thread.is_alive() for thread in threads)

        try:
            wait_until(lambda: every_client(lambda ledger: ledger.succeeded), "a step of every client before the crash")
            private_mariadb.kill()
            outage.append(time.monotonic())
            time.sleep(OUTAGE_SECONDS)
            private_mariadb.start()
            outage.append(time.monotonic())
            wait_until(
                lambda: every_client(lambda ledger: any(start > outage[1] for start, _ in ledger.succeeded)),
                "a step of every client begun after the database was back",
            )
        finally:
            stop.set()
            for thread in threads:
                thread.join(READY_SECONDS)

        assert server.poll() is None, "the server is still the one started before the crash"
        names = {f"t{w}": set(setup.get_partition_names("load", f"t{w}", -1)) for w in range(WORKERS)}
        tables = set(setup.get_all_tables("load"))
        setup.close()
    finally:
        server.terminate()
        server.wait(60)
        log.close()

    unexpected = [
        (call, message) for ledger in ledgers for call, message in ledger.failed if "while committing" not in message
    ]
    assert not unexpected, unexpected
    for worker, ledger in enumerate(ledgers):
        table = f"t{worker}"
        present_steps = {}
        for name in names[table]:
            step = int(name.split("=")[1].split("-")[0])
            present_steps[step] = present_steps.get(step, 0) + 1
        assert all(count == BATCH for count in present_steps.values()), "a batch was half-written"
        assert set(ledger.batches) <= set(present_steps), "an acknowledged batch is missing"
        assert set(ledger.created) - set(ledger.dropped) - set(ledger.uncertain) <= tables
        assert not set(ledger.dropped) & tables
    spanning = [
        (start, end) for ledger in ledgers for start, end in ledger.succeeded if start <= outage[1] and end >= outage[0]
    ]
    assert len(spanning) >= WORKERS, "every client had a call in the outage, and it succeeded"
    for ledger in ledgers:
        assert any(end < outage[0] for _, end in ledger.succeeded), "every client worked before the crash"
        assert any(start > outage[1] for start, _ in ledger.succeeded), "every client works on after it"
    assert "attempt 2 again" in (tmp_path / "server.log").read_text()
