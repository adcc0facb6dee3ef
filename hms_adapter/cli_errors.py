"""How a ``hudi-metastore`` command ends: its exit code and, for a mistake, one line on stderr saying what is
wrong and what to do (the traceback only with ``--log-level DEBUG``); output cut short by its reader (``| head``)
ends it quietly, as Unix tools end.

Exit codes (``docs/cli.md``): 0 done; 1 failed (the catalog database cannot be used, an object is missing, a
view stopped at an instant Iceberg cannot express); 2 a usage mistake (an option, a ``--db-url`` that is not a
database URL); 3 and 4 ``schema status`` behind and ahead; 141 the reader of the output went away.
"""

from __future__ import annotations

import argparse
import os
import sys
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path

from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError

from hudi_catalog.config import DB_URL_ENV
from hudi_catalog.errors import CatalogError

EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_BROKEN_PIPE = 128 + 13  # as a shell reports a process SIGPIPE ended
SET_DB_URL = f"--db-url (or {DB_URL_ENV})"

_MYSQL_UNKNOWN_DATABASE = 1049
_MYSQL_ACCESS_DENIED = (1044, 1045, 1698)
_MYSQL_UNREACHABLE = (2002, 2003, 2005, 2006, 2013)


class CommandError(Exception):
    """A mistake the command reports in one line (its message) and ends with ``code``."""

    def __init__(self, message: str, code: int = EXIT_FAILED) -> None:
        super().__init__(message)
        self.code = code


def run_command(handler: Callable[[argparse.Namespace], int], args: argparse.Namespace) -> int:
    """``handler(args)``'s exit code; a ``CommandError``, a catalog error or a catalog database error becomes
    its one line on stderr (after its traceback at ``--log-level DEBUG``)."""
    try:
        code = handler(args)
        sys.stdout.flush()  # here, not at exit: a reader gone meanwhile is then caught below
        return code
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # the exit's flush writes nowhere
        return EXIT_BROKEN_PIPE
    except (CommandError, CatalogError, DBAPIError) as error:
        if getattr(args, "log_level", None) == "DEBUG":
            traceback.print_exc()
        failure = error if isinstance(error, CommandError) else explain(error, getattr(args, "db_url", ""))
        print(f"hudi-metastore: {failure}", file=sys.stderr)
        return failure.code


def explain(error: CatalogError | DBAPIError, db_url: str) -> CommandError:
    """What went wrong, in a line a user can act on: the catalog database's own error put in words, or the
    catalog's message."""
    cause = next((e for e in _chain(error) if isinstance(e, DBAPIError)), None)
    if cause is not None:
        return CommandError(_database_failure(cause, db_url))
    detail = getattr(error, "detail", None)
    return CommandError(f"{error} ({detail})" if detail else str(error))


def _chain(error: BaseException) -> Iterator[BaseException]:
    seen: BaseException | None = error
    while seen is not None:
        yield seen
        seen = seen.__cause__


def _database_failure(error: DBAPIError, db_url: str) -> str:
    original = error.orig
    args = original.args if original is not None else ()
    # PyMySQL's errors are (number, message): the message alone reads better
    message = args[1] if len(args) == 2 and isinstance(args[0], int) else (original or error)
    text = " ".join(str(message).split())
    url = make_url(db_url)
    if url.get_backend_name() == "sqlite":
        return _sqlite_failure(url.database or "", text)
    where = f"{url.host or 'localhost'}:{url.port}" if url.port else (url.host or "localhost")
    code = args[0] if args else None
    lowered = text.lower()
    if code == _MYSQL_UNKNOWN_DATABASE or ("database" in lowered and "does not exist" in lowered):
        charset = " CHARACTER SET utf8mb4" if url.get_backend_name() in ("mysql", "mariadb") else ""
        return (
            f"the catalog database {url.database!r} does not exist on {where}: create it "
            f"(CREATE DATABASE {url.database}{charset}) or set {SET_DB_URL} to one that exists"
        )
    if code in _MYSQL_ACCESS_DENIED or "authentication failed" in lowered or "role" in lowered:
        return f"the catalog database on {where} refused user {url.username!r} ({text}): correct {SET_DB_URL}"
    if code in _MYSQL_UNREACHABLE or any(
        s in lowered for s in ("connection refused", "could not translate host", "timeout", "connection failed")
    ):
        return (
            f"cannot connect to the catalog database on {where} ({_short(text)}): start it, or correct the "
            f"host and port of {SET_DB_URL}"
        )
    return f"the catalog database on {where} failed: {_short(text)}"


def _sqlite_failure(database: str, text: str) -> str:
    folder = Path(database).absolute().parent
    if "unable to open" in text and not folder.is_dir():
        return (
            f"cannot create the SQLite catalog {Path(database).absolute()}: the folder {folder} does not exist; "
            f"create it, or set {SET_DB_URL} to a file in an existing folder"
        )
    return f"the SQLite catalog {Path(database).absolute()} failed: {text}"


def _short(text: str, limit: int = 160) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."
