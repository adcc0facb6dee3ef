"""One side of a copy: a Hive Metastore reached through its Thrift API, and what it serves.

An ``Endpoint`` holds one connection (``client.connect``, in any of its security modes) and opens it again
when it breaks: reads are tried again once on a new connection, writes are not (a write whose answer was
lost may have committed; the object is reported and the next run compares and finishes it). Which calls a
server has is asked once each (``serves``): Hive 2.3, 3.1 and 4.0 differ, and an unknown method is answered
``UNKNOWN_METHOD``. A source may be held to a number of calls a second (``max_calls_per_second``) to spare
the metastore it copies.
"""

from __future__ import annotations

import logging
import socket
import threading
import time
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any

from thriftpy2.thrift import TApplicationException
from thriftpy2.transport import TTransportException

from ..client import ClientError, Security, connect
from ..idl import hive

log = logging.getLogger(__name__)

DEFAULT_CATALOG = "hive"
KEEP_STATS = hive.EnvironmentContext(properties={"DO_NOT_UPDATE_STATS": "true"})
"""Tells a metastore to keep the parameters a write gives instead of computing fast statistics."""
BROKEN_CONNECTION = (TTransportException, OSError, EOFError, socket.timeout)
"""What a call raises when the connection, not the server's answer, failed."""


class EndpointDown(Exception):
    """The metastore could not be reached, or its connection broke during a call."""


class RateLimit:
    """At most ``per_second`` calls a second, spread evenly (none when 0)."""

    def __init__(self, per_second: float) -> None:
        self.interval = 1.0 / per_second if per_second > 0 else 0.0
        self._next = 0.0
        self._guard = threading.Lock()

    def wait(self) -> None:
        if not self.interval:
            return
        with self._guard:
            now = time.monotonic()
            start = max(now, self._next)
            self._next = start + self.interval
        if start > now:
            time.sleep(start - now)


class _CallCount:
    def __init__(self) -> None:
        self.value = 0
        self._guard = threading.Lock()

    def add(self) -> None:
        with self._guard:
            self.value += 1


class Endpoint:
    """A metastore one side of the copy talks to. ``name`` says which (``source``, ``target``) in messages."""

    def __init__(
        self,
        name: str,
        uri: str,
        security: Security | None = None,
        timeout: float = 600.0,
        max_calls_per_second: float = 0.0,
    ) -> None:
        self.name, self.uri, self.security, self.timeout = name, uri, security or Security(), timeout
        self.rate = RateLimit(max_calls_per_second)
        self._calls = _CallCount()
        self._served: dict[str, bool] = {}
        self._client: Any = None
        self._stack: ExitStack | None = None
        self._on_connect: list[Callable[[Any], None]] = []

    def clone(self) -> Endpoint:
        """Another connection to the same metastore, for another thread: the rate limit, the call count, what
        the server serves and the per-connection settings are shared."""
        twin = Endpoint(self.name, self.uri, self.security, self.timeout)
        twin.rate, twin._calls, twin._served = self.rate, self._calls, self._served
        twin._on_connect = list(self._on_connect)
        return twin

    @property
    def calls(self) -> int:
        """Calls made, by this endpoint and its clones."""
        return self._calls.value

    # -- the connection ----------------------------------------------------------------------------------

    def open(self) -> Endpoint:
        """Connect (again); ``EndpointDown`` when the metastore cannot be reached or authenticated."""
        self.close()
        stack = ExitStack()
        try:
            self._client = stack.enter_context(connect(self.uri, self.security, self.timeout))
        except (ClientError, *BROKEN_CONNECTION) as error:
            stack.close()
            raise EndpointDown(f"the {self.name} {self.uri} cannot be reached: {error}") from error
        self._stack = stack
        for setup in self._on_connect:
            setup(self._client)
        return self

    def close(self) -> None:
        stack, self._stack, self._client = self._stack, None, None
        if stack is not None:
            try:
                stack.close()
            except BROKEN_CONNECTION:
                pass

    def on_connect(self, setup: Callable[[Any], None]) -> None:
        """Run ``setup(client)`` on this connection and on every later one (per-connection settings)."""
        self._on_connect.append(setup)
        if self._client is not None:
            setup(self._client)

    # -- calls -------------------------------------------------------------------------------------------

    def read(self, method: str, *args: Any) -> Any:
        """A read call; tried once more on a new connection when the connection broke."""
        try:
            return self._call(method, args)
        except EndpointDown:
            log.info("the %s's connection broke during %s: connecting again", self.name, method)
            self.open()
            return self._call(method, args)

    def write(self, method: str, *args: Any) -> Any:
        """A write call, made once: a broken connection raises ``EndpointDown`` (the next call reconnects)."""
        return self._call(method, args)

    def _call(self, method: str, args: tuple) -> Any:
        if self._client is None:
            self.open()
        self.rate.wait()
        self._calls.add()
        try:
            return getattr(self._client, method)(*args)
        except (*BROKEN_CONNECTION, ClientError) as error:  # ClientError: the server closed the connection
            self.close()
            raise EndpointDown(f"the {self.name} {self.uri} went away during {method}: {error}") from error

    def serves(self, method: str, probe: Callable[[], Any] | None = None) -> bool:
        """Whether the server has ``method``: ``probe()`` (a harmless call of it) answered anything but
        ``UNKNOWN_METHOD``. Asked once."""
        if method not in self._served:
            try:
                (probe or (lambda: self.read(method)))()
                self._served[method] = True
            except TApplicationException as error:
                self._served[method] = error.type != TApplicationException.UNKNOWN_METHOD
            except (hive.MetaException, hive.NoSuchObjectException, hive.InvalidObjectException):
                self._served[method] = True
        return self._served[method]

    # -- what the server is -------------------------------------------------------------------------------

    @property
    def has_catalogs(self) -> bool:
        """Hive 3 and later keep catalogs (``get_catalogs``)."""
        return self.serves("get_catalogs")

    @property
    def is_hudi_metastore(self) -> bool:
        """This project's server: it serves ``hudi_continue_events_after`` (Apache HMS answers ``UNKNOWN_METHOD``)."""
        return self.serves("hudi_continue_events_after", lambda: self.read("hudi_continue_events_after", 0))

    def catalogs(self) -> list[str]:
        """The server's catalogs, the default one first (only it before Hive 3)."""
        if not self.has_catalogs:
            return [DEFAULT_CATALOG]
        names = self.read("get_catalogs").names or [DEFAULT_CATALOG]
        return sorted(names, key=lambda name: (name != DEFAULT_CATALOG, name))

    def databases(self, catalog: str) -> list[str]:
        """The names of the catalog's databases (``@catalog#*`` outside the default one)."""
        if catalog == DEFAULT_CATALOG:
            return self.read("get_all_databases")
        return self.read("get_databases", f"@{catalog}#*")

    def table(self, ref: TableRef) -> Any:
        """``get_table_req`` where the server has it (Hive 4 has no ``get_table``), else ``get_table``."""
        probe = hive.GetTableRequest(dbName="default", tblName="_copy_probe")
        if self.serves("get_table_req", lambda: self.read("get_table_req", probe)):
            request = hive.GetTableRequest(dbName=ref.database, tblName=ref.name, catName=ref.catalog)
            return self.read("get_table_req", request).table
        return self.read("get_table", ref.qualified_database, ref.name)

    def tables(self, catalog: str, database: str, names: list[str]) -> list[Any]:
        """The tables of ``names`` that exist: ``get_table_objects_by_name_req`` (Hive 2.3 and later; Hive 4
        has no ``get_table_objects_by_name``), else ``get_table_objects_by_name``."""
        request = hive.GetTablesRequest(dbName=database, tblNames=names, catName=catalog)
        if self.serves("get_table_objects_by_name_req", lambda: self.read("get_table_objects_by_name_req", request)):
            return self.read("get_table_objects_by_name_req", request).tables or []
        return self.read("get_table_objects_by_name", qualified(catalog, database), names)

    @property
    def has_all_constraints(self) -> bool:
        """Hive 3 and later keep unique, not-null, default and check constraints."""
        probe = hive.UniqueConstraintsRequest(catName=DEFAULT_CATALOG, db_name="default", tbl_name="_copy_probe")
        return self.serves("get_unique_constraints", lambda: self.read("get_unique_constraints", probe))


@dataclass(frozen=True)
class TableRef:
    """A table by its catalog, database and name."""

    catalog: str
    database: str
    name: str

    @property
    def qualified_database(self) -> str:
        return qualified(self.catalog, self.database)

    @property
    def display(self) -> str:
        prefix = "" if self.catalog == DEFAULT_CATALOG else f"{self.catalog}."
        return f"{prefix}{self.database}.{self.name}"


def qualified(catalog: str, database: str) -> str:
    """The database name a call takes: ``@catalog#db`` outside the default catalog (Hive 3's form)."""
    return database if catalog == DEFAULT_CATALOG else f"@{catalog}#{database}"
