"""Concurrent writers through two ``hudi-metastore serve`` on one MariaDB database (one of them with two
worker processes): four REST writer processes appending to one table, and REST writers racing Thrift writers
(PyIceberg's Hive catalog, which takes Hive's table lock) on one table. Every acknowledged commit is in the
table exactly once, on one line of history, and no lock is left behind."""

from __future__ import annotations

import subprocess

import pyarrow as pa
import pytest
from pyiceberg.catalog.hive import HiveCatalog
from pyiceberg.catalog.rest import RestCatalog
from thriftpy2.rpc import make_client

from tests.conftest import hive, mysql_database
from tests.support.iceberg_writers import check_every_commit_once, run_writers
from tests.support.servers import free_port, serve_command, stop_servers, wait_for_port

APPENDS, BATCH_ROWS = 5, 3
SCHEMA = pa.schema([("id", pa.int64()), ("marker", pa.string()), ("writer", pa.int32())])


@pytest.fixture(scope="module")
def two_servers(mysql_server_url, tmp_path_factory):
    """Two servers on one MariaDB database, each serving Thrift and the Iceberg REST catalog, the second with
    ``--workers 2``: ``[(thrift_uri, rest_uri), ...]`` and the shared warehouse."""
    home = tmp_path_factory.mktemp("rest-writers")
    warehouse = home / "warehouse"
    warehouse.mkdir()
    with mysql_database(mysql_server_url) as db_url:
        processes, uris, logs = [], [], [home / "serve0.log", home / "serve1.log"]
        try:
            for index, log in enumerate(logs):
                port, rest_port = free_port(), free_port()
                extra = ["--log-level", "WARNING", "--iceberg-rest-port", str(rest_port)]
                extra += ["--workers", "2"] if index else []  # the second server's ports are two processes
                with log.open("w") as stderr:
                    process = subprocess.Popen(
                        serve_command(port, db_url=db_url, warehouse=warehouse, extra=extra),
                        stdout=subprocess.DEVNULL,
                        stderr=stderr,
                    )
                processes.append(process)
                wait_for_port(port, process, log=log)
                wait_for_port(rest_port, process, log=log)
                uris.append((f"thrift://127.0.0.1:{port}", f"http://127.0.0.1:{rest_port}"))
            yield uris, warehouse
        finally:
            stop_servers(processes, logs)


def no_locks_left(thrift_uri: str) -> bool:
    client = make_client(hive.ThriftHiveMetastore, "127.0.0.1", int(thrift_uri.rsplit(":", 1)[1]), timeout=30_000)
    try:
        return not client.show_locks(hive.ShowLocksRequest()).locks
    finally:
        client.close()


@pytest.mark.mysql
@pytest.mark.parametrize("mix", ["rest", "rest-and-thrift"], ids=["four-rest-writers", "rest-racing-thrift"])
def test_concurrent_writers_lose_no_acknowledged_commit(two_servers, mix):
    servers, warehouse = two_servers
    (thrift0, rest0), (thrift1, rest1) = servers
    table_name = f"jobs.{mix.replace('-', '_')}"
    rest = RestCatalog("setup", uri=rest0)
    if ("jobs",) not in rest.list_namespaces():
        rest.create_namespace("jobs")
    rest.create_table(table_name, SCHEMA)
    uris = [rest0, rest1] if mix == "rest" else [rest0, thrift1, rest1, thrift0]
    hive_properties = {
        "warehouse": f"file://{warehouse}",
        "lock-check-max-wait-time": "0.25",
        "lock-check-retries": "1200",  # minutes of waiting for a lock a loaded machine holds long; ends once granted
    }
    spec = {
        "uris": uris,
        "table": table_name,
        "writers": 4,
        "appends": APPENDS,
        "rows": BATCH_ROWS,
        "catalog": hive_properties,
        "attempts": 15,
        "timeout": 450,  # only a ceiling against a hang, as the one of run_writers
    }
    reports = run_writers(spec)
    assert {r["uri"] for r in reports} == set(uris)
    check_every_commit_once(RestCatalog("check", uri=rest1).load_table(table_name), reports, BATCH_ROWS)
    over_thrift = HiveCatalog("hms", uri=thrift0, **hive_properties).load_table(table_name)
    assert over_thrift.metadata_location == RestCatalog("check", uri=rest0).load_table(table_name).metadata_location
    assert no_locks_left(thrift0)
    errors = [error for report in reports for error in report["errors"]]
    assert not errors, "\n".join(e["error"] for e in errors)
    assert not [commit for report in reports for commit in report["gave_up"]]
    assert sum(len(report["acked"]) for report in reports) == 4 * APPENDS
