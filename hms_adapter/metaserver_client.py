"""``MetaserverSource``: the catalog calls of ``hudi_catalog.spark.read_table`` answered by a remote server.

It speaks the server's metaserver protocol (``thrift/hudi_metaserver.thrift``: binary protocol over a plain
socket, the ``--metaserver-port`` of ``hudi-metastore serve``) with our snapshot calls: ``getTable`` (with the
data columns), ``listPartitionsByWhere`` (pruned in the server's catalog), ``listPartitions`` and
``getLatestFileSlices`` (per partition, optionally as of an instant), ``getFilesChanged`` and ``listInstants``.
The server's exceptions come back as the catalog's errors.

Example (not run here: it needs a server)::

    with MetaserverSource.from_uri("thrift://metastore:9090") as source:
        df = read_table(spark, "lake.trips", where="city = 'paris'", catalog=source)
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from contextlib import contextmanager
from urllib.parse import urlparse

from thriftpy2.rpc import make_client
from thriftpy2.thrift import TClient
from thriftpy2.transport import TTransportException

from hudi_catalog.errors import CatalogError, InvalidFilterError, NoSuchObjectError, StorageError
from hudi_catalog.hudi.file_slices import FileSlice
from hudi_catalog.model import WRITE_ACTIONS, Column, InstantState
from hudi_catalog.read_source import HudiTableInfo, PartitionInfo

from .convert.instants import from_thrift_action, to_thrift_state
from .idl import metaserver

DEFAULT_TIMEOUT_MS = 60_000


class MetaserverSource:
    """A ``hudi_catalog.read_source.CatalogSource`` over one connection to a metaserver (calls are serialized)."""

    def __init__(self, host: str, port: int, timeout_ms: int = DEFAULT_TIMEOUT_MS) -> None:
        self.host, self.port, self.timeout_ms = host, port, timeout_ms
        self._client: TClient | None = None
        self._lock = threading.Lock()

    @classmethod
    def from_uri(cls, uri: str, timeout_ms: int = DEFAULT_TIMEOUT_MS) -> MetaserverSource:
        """A source for ``thrift://host:port`` (the form of ``hoodie.metaserver.uris``)."""
        parsed = urlparse(uri)
        if parsed.scheme != "thrift" or not parsed.hostname or not parsed.port:
            raise ValueError(f"a metaserver URI is thrift://host:port, not {uri!r}")
        return cls(parsed.hostname, parsed.port, timeout_ms)

    def close(self) -> None:
        with self._lock:
            if self._client is not None:
                self._client.close()
                self._client = None

    def __enter__(self) -> MetaserverSource:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @contextmanager
    def _client_for(self, invalid: type[CatalogError]):
        """The connected client; the server's exceptions raised as catalog errors (``invalid`` for a bad
        request), a broken connection as ``StorageError`` (the next call reconnects)."""
        with self._lock:
            if self._client is None:
                self._client = make_client(
                    metaserver.ThriftHoodieMetaserver, self.host, self.port, timeout=self.timeout_ms
                )
            try:
                yield self._client
            except metaserver.NoSuchObjectException as e:
                raise NoSuchObjectError(e.message) from e
            except metaserver.MetaserverStorageException as e:
                raise StorageError(e.message) from e
            except metaserver.MetaserverException as e:
                raise invalid(e.message) from e
            except (TTransportException, OSError) as e:
                self._client.close()
                self._client = None
                raise StorageError(f"metaserver {self.host}:{self.port}: {e}") from e

    def table(self, database: str, table: str) -> HudiTableInfo:
        with self._client_for(CatalogError) as client:
            found = client.getTable(database, table)
        return HudiTableInfo(
            found.databaseName,
            found.tableName,
            found.location,
            tuple(Column(c.name, c.type, c.comments) for c in found.columns or []),
            tuple(Column(k.name, k.type, k.comments) for k in found.partitionKeys or []),
            dict(found.parameters or {}),
        )

    def partitions(self, database: str, table: str, where: str | None) -> list[PartitionInfo]:
        with self._client_for(InvalidFilterError) as client:
            found = client.listPartitionsByWhere(database, table, where)
        return [PartitionInfo(p.path, tuple(p.values)) for p in found]

    def latest_file_slices(
        self, database: str, table: str, paths: Sequence[str] | None, as_of: str | None
    ) -> list[FileSlice]:
        with self._client_for(CatalogError) as client:
            for_paths = client.listPartitions(database, table) if paths is None else paths
            found = [s for path in for_paths for s in client.getLatestFileSlices(database, table, path, as_of)]
        return [FileSlice(s.partition, s.fileId, s.baseInstant, s.baseFile, tuple(s.logFiles)) for s in found]

    def file_groups_changed(self, database: str, table: str, begin: str, end: str) -> set[tuple[str, str]]:
        with self._client_for(CatalogError) as client:
            return {(s.partition, s.fileId) for s in client.getFilesChanged(database, table, begin, end)}

    def latest_commit(self, database: str, table: str) -> str | None:
        with self._client_for(CatalogError) as client:
            instants = client.listInstants(database, table, 0)
        completed = to_thrift_state(InstantState.COMPLETED)
        return max(
            (i.timestamp for i in instants if i.state == completed and from_thrift_action(i.action) in WRITE_ACTIONS),
            default=None,
        )
