"""A newcomer's mistakes with the real ``hudi-metastore`` command: each ends in one clear line on stderr (at most
three lines, never a traceback) naming what to do, and a non-zero exit; output cut short by ``| head`` ends
quietly; ``--help`` shows every default; abbreviated options are refused."""

from __future__ import annotations

import os
import shlex
import subprocess

import pytest
from sqlalchemy.engine import make_url

from hudi_catalog import Catalog
from hudi_catalog.model import Column, StorageDescriptor, Table
from hudi_catalog.services.hudi_import import HudiImporter
from tests.hudi.tables import unpack
from tests.support.servers import CLI, free_port

HUDI_TABLE = "quickstart_trips_table_mor_avro_v8_trips_8i3u1d"


def run(*args: str, cwd=None, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("HUDI_METASTORE_")}
    return subprocess.run(
        [*CLI, *args], capture_output=True, text=True, timeout=120, cwd=cwd, env={**environment, **(env or {})}
    )


def assert_one_clear_line(done: subprocess.CompletedProcess, code: int, *hints: str) -> None:
    lines = done.stderr.splitlines()
    assert done.returncode == code, done.stderr
    assert "Traceback" not in done.stderr and len(lines) <= 3, done.stderr
    for hint in hints:
        assert hint in done.stderr, done.stderr


def _server(url: str, database: str) -> str:
    return make_url(url).set(database=database).render_as_string(hide_password=False)


@pytest.mark.parametrize("command", [["init-db"], ["import", "/nowhere", "--create-catalog"], ["serve"]])
def test_a_database_that_does_not_exist_says_which_create_database_to_run(
    command, mysql_server_url, postgresql_server_url, tmp_path
):
    serve = ["--host", "127.0.0.1", "--port", str(free_port()), "--no-metaserver"] if command == ["serve"] else []
    for url in (mysql_server_url, postgresql_server_url):
        done = run(*command, *serve, "--db-url", _server(url, "no_such_catalog"), cwd=tmp_path)
        assert_one_clear_line(done, 1, "does not exist", "CREATE DATABASE no_such_catalog", "HUDI_METASTORE_DB_URL")


@pytest.mark.parametrize(
    "url, code, hint",
    [
        ("mysql+mysqlconnector://root@127.0.0.1:3306/test", 2, "mysql://USER@HOST:3306/DB"),
        ("oracle+nothing://u@h/db", 2, "is not a catalog database"),
        ("foo://x/y", 2, "is not a catalog database"),
        ("metastore.db", 2, "sqlite:///metastore.db"),
        ("sqlite:///missing/folder/c.db", 1, "missing/folder/c.db"),
    ],
)
def test_a_url_that_names_no_usable_database_says_the_form_to_write(url, code, hint, tmp_path):
    for command in (["init-db"], ["timeline", "a.b"], ["schema", "upgrade"]):
        assert_one_clear_line(run(*command, "--db-url", url, cwd=tmp_path), code, hint)


def test_mysql_and_mariadb_urls_need_no_driver_named(mysql_server_url, tmp_path):
    for scheme in ("mysql", "mariadb"):
        url = make_url(mysql_server_url).set(drivername=scheme).render_as_string(hide_password=False)
        done = run("schema", "status", "--db-url", url, cwd=tmp_path)
        assert done.returncode in (0, 3), done.stderr  # it connected: the layout is current, or it is empty


def test_an_unreachable_database_says_to_start_it(tmp_path):
    port = free_port()  # nothing listens there
    for url in (f"mysql://root@127.0.0.1:{port}/test", f"postgresql://postgres@127.0.0.1:{port}/test"):
        for command in (["init-db"], ["timeline", "a.b"]):
            done = run(*command, "--db-url", url, cwd=tmp_path)
            assert_one_clear_line(done, 1, f"cannot connect to the catalog database on 127.0.0.1:{port}", "start it")


def test_an_unknown_log_level_is_a_usage_error(tmp_path):
    assert_one_clear_line(run("serve", "--log-level", "verbose"), 2, "'verbose' is not a log level")
    done = run("timeline", "a.b", env={"HUDI_METASTORE_LOG_LEVEL": "verbose"})
    assert done.returncode == 2 and "is not a log level" in done.stderr and len(done.stderr.splitlines()) <= 3


def test_debug_shows_the_traceback(tmp_path):
    done = run("init-db", "--db-url", "sqlite:///missing/c.db", "--log-level", "DEBUG", cwd=tmp_path)
    assert done.returncode == 1 and "Traceback" in done.stderr
    assert done.stderr.splitlines()[-1].startswith("hudi-metastore: cannot create the SQLite catalog")


def test_commands_that_read_refuse_a_missing_catalog_and_create_none(tmp_path):
    for command in (["timeline", "a.b"], ["snapshot", "a.b"], ["partitions", "a.b"], ["iceberg", "a.b"]):
        done = run(*command, cwd=tmp_path)
        assert_one_clear_line(done, 1, "no catalog at", "HUDI_METASTORE_DB_URL", "hudi-metastore init-db")
    assert_one_clear_line(run("import", str(tmp_path), cwd=tmp_path), 1, "no catalog at", "--create-catalog")
    assert not (tmp_path / "metastore.db").exists()
    (tmp_path / "empty.db").touch()  # an empty SQLite database
    done = run("timeline", "a.b", "--db-url", f"sqlite:///{tmp_path / 'empty.db'}")
    assert_one_clear_line(done, 1, "holds no catalog", "hudi-metastore init-db")


def test_a_bad_create_catalog_variable_is_a_mistake_of_serve_and_import_only(tmp_path):
    env = {"HUDI_METASTORE_CREATE_CATALOG": "maybe"}
    serve = ["serve", "--host", "127.0.0.1", "--port", str(free_port()), "--no-metaserver"]
    for command in (serve, ["import", str(tmp_path)]):
        done = run(*command, cwd=tmp_path, env=env)
        assert_one_clear_line(done, 2, "HUDI_METASTORE_CREATE_CATALOG='maybe' is neither true nor false", "--help")
    assert_one_clear_line(run(*serve, "--no-create-catalog", cwd=tmp_path, env=env), 1, "no catalog at")  # it wins
    assert_one_clear_line(run("timeline", "a.b", cwd=tmp_path, env=env), 1, "no catalog at")  # not read there
    assert run("--help", env=env).returncode == 0
    assert not (tmp_path / "metastore.db").exists()


def test_the_environment_variable_points_every_command_at_one_catalog(tmp_path):
    env = {"HUDI_METASTORE_DB_URL": f"sqlite:///{tmp_path / 'c.db'}"}
    assert run("init-db", env=env).returncode == 0
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    done = run("timeline", "default.t", cwd=elsewhere, env=env)
    assert_one_clear_line(done, 1, "default.t table not found")
    assert not (elsewhere / "metastore.db").exists()


@pytest.fixture(scope="module")
def catalog_with_tables(tmp_path_factory) -> str:
    """A catalog holding the Hudi table h.t and the plain table h.plain; its URL."""
    work = tmp_path_factory.mktemp("cli-output")
    url = f"sqlite:///{work / 'c.db'}"
    catalog = Catalog.open(url, str(work / "wh"))
    try:
        HudiImporter(catalog).run(str(unpack(HUDI_TABLE, work)), database="h", table="t")
        plain = Table("h", "plain", sd=StorageDescriptor(columns=[Column("a", "int")], location=str(work / "plain")))
        catalog.tables.create(plain)
    finally:
        catalog.close()
    return url


def test_snapshot_and_timeline_of_a_table_that_is_not_hudi_fail(catalog_with_tables):
    for command in ("snapshot", "timeline"):
        done = run(command, "h.plain", "--db-url", catalog_with_tables)
        assert_one_clear_line(done, 1, "h.plain is not a Hudi table", "hudi-metastore import")
        assert done.stdout == ""


@pytest.mark.parametrize(
    "command",
    ["timeline h.t", "timeline h.t --json", "snapshot h.t", "snapshot h.t --json", "partitions h.t --json"],
)
def test_output_cut_short_by_its_reader_ends_quietly(command, catalog_with_tables):
    line = f"{shlex.join(CLI)} {command} --db-url {shlex.quote(catalog_with_tables)}"
    done = subprocess.run(["sh", "-c", f"{line} | head -1"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and len(done.stdout.splitlines()) == 1
    assert "BrokenPipeError" not in done.stderr and "Traceback" not in done.stderr, done.stderr
    # the reader gone before the first line: deterministic, whatever the pipe's buffer holds
    reader, writer = os.pipe()
    os.close(reader)
    try:
        gone = subprocess.run(
            [*CLI, *shlex.split(command), "--db-url", catalog_with_tables], stdout=writer, stderr=subprocess.PIPE
        )
    finally:
        os.close(writer)
    assert gone.returncode == 141 and gone.stderr == b"", gone.stderr


def test_abbreviated_options_are_refused():
    done = run("serve", "--prot", "19683")
    assert_one_clear_line(done, 2, "see `hudi-metastore")
    assert "unrecognized arguments: --prot" in done.stderr


def test_help_shows_every_default_and_the_commands():
    top = run("--help").stdout
    assert "``" not in top and all(c in top for c in ("passwd", "status", "iceberg", "HUDI_METASTORE_DB_URL"))
    serve = " ".join(run("serve", "--help").stdout.split())
    for shown in (
        "every interface) (default: 0.0.0.0)",
        "(default: 9083)",
        "(default: buffered)",
        "(default: binary)",
        "(default: --host)",
    ):
        assert shown in serve, shown
    assert "the user's name" in run("passwd", "--help").stdout
    assert "print JSON" in run("timeline", "--help").stdout


def test_the_rest_port_without_the_rest_extra_names_the_extra(tmp_path):
    """``serve --iceberg-rest-port`` where uvicorn is not installed (hidden from the process here)."""
    hide = "import sys; sys.modules['uvicorn'] = None; from hms_adapter.cli import main; sys.exit(main())"
    command = [CLI[0], "-c", hide, "serve", "--host", "127.0.0.1", "--port", str(free_port()), "--no-metaserver"]
    command += ["--db-url", f"sqlite:///{tmp_path / 'c.db'}", "--iceberg-rest-port", "0"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode != 0
    assert "--iceberg-rest-port needs the rest extra (uvicorn is missing)" in done.stderr, done.stderr
    assert "pip install 'hudi-metastore[rest]'" in done.stderr and "Traceback" not in done.stderr
