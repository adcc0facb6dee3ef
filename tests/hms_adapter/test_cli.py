"""The ``hudi-metastore`` command as a user runs it: ``init-db`` and ``serve`` in their own processes."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
from pathlib import Path

import pytest
from sqlalchemy import create_engine, inspect
from thriftpy2.rpc import make_client

from hms_adapter.idl import metaserver as metaserver_idl
from hudi_catalog.store.schema import SCHEMA_VERSION
from tests.conftest import hive
from tests.hudi.tables import unpack
from tests.support.servers import CLI, free_port, serve_command, wait_for_port


def test_init_db_creates_the_schema_and_is_idempotent(db_url, tmp_path):
    for _ in range(2):
        done = subprocess.run(
            CLI + ["init-db", "--db-url", db_url, "--warehouse", str(tmp_path / "wh")],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        assert f"catalog schema layout {SCHEMA_VERSION} ready" in done.stdout
    tables = set(inspect(create_engine(db_url)).get_table_names())
    assert {
        "db",
        "db_params",
        "tbl",
        "tbl_params",
        "schema",
        "partitions",
        "partition_params",
        "partition_key_val",
        "tbl_timestamp",
        "instant",
        "instant_meta",
        "tbl_version",
        "files",
        "functions",
        "schema_version",
    } <= tables


@pytest.mark.parametrize("transport,protocol", [("buffered", "binary"), ("framed", "compact")])
def test_serve_answers_and_stops_on_sigterm(db_url, tmp_path, transport, protocol):
    from thriftpy2.protocol import TBinaryProtocolFactory, TCompactProtocolFactory
    from thriftpy2.rpc import make_client
    from thriftpy2.transport import TBufferedTransportFactory, TFramedTransportFactory

    port, metaserver_port = free_port(), free_port()
    process = subprocess.Popen(
        serve_command(
            port,
            metaserver_port=metaserver_port,
            db_url=db_url,
            warehouse=tmp_path / "wh",
            extra=["--transport", transport, "--protocol", protocol],
        ),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_for_port(port, process)
        hudi = make_client(metaserver_idl.ThriftHoodieMetaserver, "127.0.0.1", metaserver_port, timeout=30_000)
        hudi.createDatabase("from_hudi")
        with pytest.raises(metaserver_idl.NoSuchObjectException):
            hudi.getTable("from_hudi", "missing")
        hudi.close()
        client = make_client(
            hive.ThriftHiveMetastore,
            "127.0.0.1",
            port,
            timeout=30_000,
            proto_factory=TCompactProtocolFactory() if protocol == "compact" else TBinaryProtocolFactory(),
            trans_factory=TFramedTransportFactory() if transport == "framed" else TBufferedTransportFactory(),
        )
        assert client.get_all_databases() == ["default", "from_hudi"]
        assert (tmp_path / "wh").is_dir()
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=60) == 0
        client.close()
    finally:
        if process.poll() is None:
            process.kill()


def test_serve_on_a_port_in_use_says_so(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        done = subprocess.run(
            serve_command(
                free_port(), metaserver_port=port, db_url=f"sqlite:///{tmp_path / 'c.db'}", warehouse=tmp_path / "wh"
            ),
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert done.returncode == 1
    assert "hudi-metastore: cannot listen on 127.0.0.1" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("host, warned", [("0.0.0.0", True), ("127.0.0.1", False), ("localhost", False)])
def test_serve_warns_when_it_listens_beyond_loopback_without_authentication(tmp_path, host, warned):
    port = free_port()
    process = subprocess.Popen(
        serve_command(port, host=host, db_url=f"sqlite:///{tmp_path / 'c.db'}", warehouse=tmp_path / "wh"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        # The server's own line, not the port: another test's process may have taken the port meanwhile.
        ready = process.stdout.readline()
    finally:
        process.terminate()
        _, stderr = process.communicate(timeout=60)
    assert f"listening on thrift://{host}:{port}" in ready, stderr
    assert ("without authentication: anyone who can reach the port" in stderr) == warned, stderr


def test_serve_creates_a_catalog_only_as_told(tmp_path):
    """``--create-catalog`` (the default of ``serve``) and ``--no-create-catalog``, or the variable: a missing
    catalog is refused with one line and nothing created, also under ``--workers``; one that exists serves."""
    catalog = tmp_path / "c.db"
    url = f"sqlite:///{catalog}"
    refused = [
        (serve_command(free_port(), db_url=url, warehouse=tmp_path / "wh", extra=["--no-create-catalog"]), {}),
        (serve_command(free_port(), db_url=url, extra=["--workers", "2"]), {"HUDI_METASTORE_CREATE_CATALOG": "false"}),
        (serve_command(free_port(), db_url=url, extra=["--no-create-catalog", "--workers", "2"]), {}),
    ]
    for command, env in refused:
        done = subprocess.run(command, capture_output=True, text=True, timeout=120, env={**os.environ, **env})
        assert done.returncode == 1, done.stderr
        assert f"hudi-metastore: no catalog at {catalog} (the file does not exist)" in done.stderr
        assert "serve --create-catalog" in done.stderr and "Traceback" not in done.stderr
        assert not catalog.exists()
    bad = subprocess.run(
        serve_command(free_port(), db_url=url),
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "HUDI_METASTORE_CREATE_CATALOG": "maybe"},
    )
    assert bad.returncode == 2 and "HUDI_METASTORE_CREATE_CATALOG='maybe' is neither true nor false" in bad.stderr
    assert not catalog.exists()
    for options in (["--create-catalog"], ["--no-create-catalog"]):  # made by the first, served by the second
        port = free_port()
        process = subprocess.Popen(
            serve_command(port, db_url=url, warehouse=tmp_path / "wh", extra=options),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "HUDI_METASTORE_CREATE_CATALOG": "false"},  # the option wins
        )
        try:
            wait_for_port(port, process)
            client = make_client(hive.ThriftHiveMetastore, "127.0.0.1", port, timeout=30_000)
            assert client.get_all_databases() == ["default"]
            client.close()
            process.send_signal(signal.SIGTERM)
            assert process.wait(timeout=60) == 0
        finally:
            if process.poll() is None:
                process.kill()


def _without_metastore_variables(**variables: str) -> dict[str, str]:
    """This process's environment without any ``HUDI_METASTORE_*`` variable, plus ``variables``."""
    return {**{k: v for k, v in os.environ.items() if not k.startswith("HUDI_METASTORE_")}, **variables}


def _serve_until_sigterm(command: list[str], port: int, env: dict[str, str]) -> list[str]:
    """Start ``command``, take the databases it serves once it listens, stop it with SIGTERM (exit 0)."""
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
    try:
        wait_for_port(port, process)
        client = make_client(hive.ThriftHiveMetastore, "127.0.0.1", port, timeout=30_000)
        databases = client.get_all_databases()
        client.close()
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=60) == 0
        return databases
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=60)


@pytest.mark.empty_database
def test_serve_without_create_catalog_refuses_a_database_without_the_schema(db_url, tmp_path):
    """On every store: ``serve --no-create-catalog`` refuses a database without the catalog schema (on SQLite:
    no file, then an empty file) with one line and exit 1, and leaves it without one; ``--create-catalog``
    (winning over the variable) then makes the schema and serves it."""
    environment = _without_metastore_variables()
    sqlite = db_url.startswith("sqlite")
    path = Path(db_url.removeprefix("sqlite:///")) if sqlite else None
    stages = [f"no catalog at {path} (the file does not exist)", "holds no catalog (no schema)"] if sqlite else []
    for expected in stages or ["holds no catalog (no schema)"]:
        if path is not None and "no schema" in expected:
            path.touch()  # an empty SQLite database
        command = serve_command(free_port(), db_url=db_url, warehouse=tmp_path / "wh", extra=["--no-create-catalog"])
        done = subprocess.run(command, capture_output=True, text=True, timeout=120, env=environment)
        assert done.returncode == 1, done.stderr
        assert expected in done.stderr and "serve --create-catalog" in done.stderr, done.stderr
        assert done.stderr.splitlines()[-1].startswith("hudi-metastore: ") and "Traceback" not in done.stderr
        assert path is None or path.exists() == ("no schema" in expected)
        engine = create_engine(db_url)
        try:
            assert inspect(engine).get_table_names() == []
        finally:
            engine.dispose()
    port = free_port()
    command = serve_command(port, db_url=db_url, warehouse=tmp_path / "wh", extra=["--create-catalog"])
    assert _serve_until_sigterm(command, port, _without_metastore_variables(HUDI_METASTORE_CREATE_CATALOG="0")) == [
        "default"
    ]


def test_import_then_serve_with_create_catalog_share_one_new_catalog(tmp_path):
    """The script ``import --create-catalog ...`` then ``serve --create-catalog``: the import makes the catalog
    (the option winning over the variable either way), the server serves it with the imported table."""
    base = unpack("sample_table_cow_v6_simplekeygen_hivestyle_no_metafields", tmp_path / "tables")
    catalog = tmp_path / "new.db"
    store = ["--db-url", f"sqlite:///{catalog}", "--warehouse", str(tmp_path / "wh")]
    imported = [*CLI, "import", str(base), "--database", "lake", "--table", "trips", *store]
    refused = subprocess.run(
        [*imported, "--no-create-catalog"],
        capture_output=True,
        text=True,
        timeout=120,
        env=_without_metastore_variables(HUDI_METASTORE_CREATE_CATALOG="yes"),
    )
    assert refused.returncode == 1 and f"no catalog at {catalog}" in refused.stderr, refused.stderr
    assert "--create-catalog" in refused.stderr and not catalog.exists()
    done = subprocess.run(
        [*imported, "--create-catalog"],
        capture_output=True,
        text=True,
        timeout=300,
        env=_without_metastore_variables(HUDI_METASTORE_CREATE_CATALOG="no"),
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("lake.trips: ") and catalog.exists(), done.stdout
    port = free_port()
    command = [*CLI, "serve", "--host", "127.0.0.1", "--port", str(port), "--no-metaserver", *store, "--create-catalog"]
    assert _serve_until_sigterm(command, port, _without_metastore_variables()) == ["default", "lake"]
