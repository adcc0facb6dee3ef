"""The catalog a ``hudi-metastore`` command works on: its ``--db-url`` checked before any connection, and a
catalog that is not there yet refused by the commands that only use one (``timeline``, ``snapshot``,
``partitions``, ``iceberg``, ``import`` without ``--create-catalog``) instead of made where the user did not
mean it (a ``metastore.db`` in whatever folder the command ran in)."""

from __future__ import annotations

import argparse
from pathlib import Path

from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError, NoSuchModuleError

from hudi_catalog import Catalog
from hudi_catalog.errors import SchemaVersionError
from hudi_catalog.schema_layout import SchemaState

from .cli_errors import EXIT_USAGE, SET_DB_URL, CommandError
from .convert.partition_wire import encode_partition_fields
from .event_messages import HiveJsonMessages

_URL_FORMS = "sqlite:///PATH, mysql://USER@HOST:3306/DB or postgresql://USER@HOST:5432/DB"
_BACKENDS = ("sqlite", "mysql", "mariadb", "postgresql", "postgres")
_CREATE_HINT = "or create one there with `hudi-metastore init-db`"


def check_db_url(db_url: str) -> None:
    """A ``--db-url`` that names no database this catalog runs on, or whose driver is not installed:
    ``CommandError`` (exit 2) with the URL form to use."""
    try:
        url = make_url(db_url)
    except ArgumentError:
        hint = f" (a SQLite file: sqlite:///{db_url})" if "://" not in db_url else ""
        raise CommandError(f"--db-url {db_url!r} is not a database URL{hint}; write {_URL_FORMS}", EXIT_USAGE) from None
    if url.get_backend_name() not in _BACKENDS:
        raise CommandError(
            f"--db-url: {url.get_backend_name()!r} is not a catalog database; write {_URL_FORMS}", EXIT_USAGE
        )
    if "+" not in url.drivername:
        return  # the store chooses the driver: mysqlclient or PyMySQL, psycopg 3, sqlite3
    try:
        url.get_dialect().import_dbapi()
    except (NoSuchModuleError, ImportError) as error:
        raise CommandError(
            f"--db-url: the driver {url.drivername!r} is not available ({error}); write {_URL_FORMS} "
            "(their drivers come with hudi-metastore)",
            EXIT_USAGE,
        ) from None


def missing_sqlite_file(db_url: str) -> Path | None:
    """The file a SQLite URL names when it does not exist (connecting would create it); ``None`` otherwise."""
    url = make_url(db_url)
    if url.get_backend_name() != "sqlite" or url.database in (None, "", ":memory:"):
        return None
    path = Path(url.database).absolute()
    return None if path.exists() else path


def refuse_missing_catalog(args: argparse.Namespace, create_hint: str = _CREATE_HINT) -> None:
    """``open_existing``'s refusal alone, for a command that then opens the catalog its own way (``serve
    --no-create-catalog``): ``CommandError`` when ``args.db_url`` holds no catalog, creating nothing."""
    _refuse_missing_file(args, create_hint)
    catalog = Catalog.open(args.db_url, args.warehouse, init=False)
    try:
        _refuse_empty(args, catalog.schema.status().database_version, create_hint)
    finally:
        catalog.close()


def _refuse_missing_file(args: argparse.Namespace, create_hint: str) -> None:
    missing = missing_sqlite_file(args.db_url)
    if missing is not None:
        raise CommandError(
            f"no catalog at {missing} (the file does not exist): set {SET_DB_URL} to your catalog, {create_hint}"
        )


def _refuse_empty(args: argparse.Namespace, database_version: int | None, create_hint: str) -> None:
    if database_version is None:
        raise CommandError(
            f"the database {describe(args.db_url)} holds no catalog (no schema): set {SET_DB_URL} to your "
            f"catalog, {create_hint}"
        )


def describe(db_url: str) -> str:
    """The catalog as a user recognises it: a SQLite file's absolute path, a server's URL without password."""
    url: URL = make_url(db_url)
    if url.get_backend_name() == "sqlite" and url.database not in (None, "", ":memory:"):
        return str(Path(url.database or "").absolute())
    return url.render_as_string(hide_password=True)


def hive_wire() -> dict:
    """The ``Catalog.open`` options of a catalog served to Hive clients: events written as Hive's JSON
    messages, and partitions stored with their Thrift encoding as they are created."""
    return {"event_format": HiveJsonMessages(), "partition_encoding": encode_partition_fields}


def open_existing(args: argparse.Namespace, init: bool, create_hint: str = _CREATE_HINT, **options) -> Catalog:
    """The catalog at ``args.db_url``, refused (``CommandError``) when it is not there: a SQLite file that does
    not exist (not created), or a database without the catalog schema. ``init``: made ready for writing (the
    default catalog and database ensured, the layout checked); otherwise only read, its layout checked.
    ``options`` go to ``Catalog.open``."""
    _refuse_missing_file(args, create_hint)
    catalog = Catalog.open(args.db_url, args.warehouse, init=False, **options)
    try:
        status = catalog.schema.status()
        _refuse_empty(args, status.database_version, create_hint)
        if init:
            catalog.init()
        elif status.state is not SchemaState.CURRENT:
            raise SchemaVersionError(
                f"the catalog database has schema layout {status.database_version}, this build reads "
                f"{status.build_version}: "
                + (
                    "run `hudi-metastore schema upgrade`"
                    if status.state is SchemaState.BEHIND
                    else "upgrade hudi-metastore to read it"
                )
            )
    except BaseException:
        catalog.close()
        raise
    return catalog
