"""The one place where catalog errors become Hive's Thrift exceptions.

Each catalog error has a preferred HMS exception; a method that does not declare it gets the next one it
declares, ending with ``MetaException``, as Hive Metastore wraps what it cannot name. A method that declares
none of them answers a Thrift ``INTERNAL_ERROR``.

A client reads the catalog error's message (written for clients: its own names, values and locations) and never
its ``detail`` (the catalog database's or file system's own text), which is logged here. An unexpected error
(not a catalog error, not one of Hive's exceptions the handler raised) is answered with a fixed text and a
reference to the log line (logged with its traceback by the processor): its own text may hold server paths,
SQL or hosts.
"""

from __future__ import annotations

import logging
import uuid

from thriftpy2.thrift import TApplicationException, TException

from hudi_catalog.errors import (
    AlreadyExistsError,
    CatalogError,
    ConcurrentModificationError,
    InvalidInputError,
    InvalidObjectError,
    InvalidOperationError,
    NoSuchDatabaseError,
    NoSuchLockError,
    NoSuchObjectError,
    NoSuchTableError,
    NoSuchTxnError,
    TransientStorageError,
    TxnAbortedError,
    TxnOpenError,
    UnknownColumnError,
    ValueTooLongError,
)

from .idl import hive

log = logging.getLogger(__name__)

ErrorPreferences = list[tuple[type[Exception], tuple[type, ...]]]
"""For each catalog error type, the Thrift exceptions to raise in order of preference (the last is the
catch-all)."""

HMS_PREFERENCES: ErrorPreferences = [
    (NoSuchTableError, (hive.NoSuchObjectException, hive.UnknownTableException, hive.MetaException)),
    (NoSuchDatabaseError, (hive.NoSuchObjectException, hive.UnknownDBException, hive.MetaException)),
    (NoSuchObjectError, (hive.NoSuchObjectException, hive.MetaException)),
    (AlreadyExistsError, (hive.AlreadyExistsException, hive.MetaException)),
    (
        ValueTooLongError,
        (hive.InvalidObjectException, hive.InvalidInputException, hive.InvalidOperationException, hive.MetaException),
    ),
    (InvalidObjectError, (hive.InvalidObjectException, hive.MetaException)),
    (InvalidOperationError, (hive.InvalidOperationException, hive.MetaException)),
    (UnknownColumnError, (hive.MetaException,)),  # Hive's wording and type for statistics of a missing column
    (InvalidInputError, (hive.InvalidInputException, hive.InvalidObjectException, hive.MetaException)),
    (NoSuchLockError, (hive.NoSuchLockException, hive.MetaException)),
    (NoSuchTxnError, (hive.NoSuchTxnException, hive.MetaException)),
    (TxnAbortedError, (hive.TxnAbortedException, hive.MetaException)),
    (TxnOpenError, (hive.TxnOpenException, hive.MetaException)),
    (Exception, (hive.MetaException,)),
]


ROUTINE_ERRORS: tuple[type[Exception], ...] = (
    NoSuchObjectError,
    AlreadyExistsError,
    ConcurrentModificationError,
    hive.NoSuchObjectException,
    hive.UnknownTableException,
    hive.UnknownDBException,
    hive.AlreadyExistsException,
)
"""Outcomes clients meet in their ordinary course and handle: asking whether an object exists (PyIceberg's
``table_exists`` calls ``get_table``), creating what may exist already, a lock-free commit's compare-and-set
losing to another writer. Logged at INFO, so that a WARNING means something needs looking at."""


RETRY_ELSEWHERE = "JDODataStoreException"
"""The head of the message of a call that failed on the catalog database and changed nothing (it stayed
unreachable or busy through the server's retry budget). Hive's client (``RetryingMetaStoreClient``)
reconnects, to the next of its ``hive.metastore.uris``, and tries the call again when a ``MetaException``'s
message names a ``JDO...Exception``, which is what Apache Hive Metastore sends when its database fails. A
call whose commit was cut off, and may have applied, is answered without it: tried again it could apply
twice."""


def log_level(error: Exception) -> int:
    """The level a failed call's ``error`` is logged at: INFO for a routine outcome (``ROUTINE_ERRORS``),
    WARNING for another catalog error or Hive exception, ERROR (with the traceback) for anything else."""
    if isinstance(error, ROUTINE_ERRORS):
        return logging.INFO
    return logging.WARNING if isinstance(error, (CatalogError, TException)) else logging.ERROR


def declared_exceptions(result_struct) -> dict[type, str]:
    """``{exception class: result field name}`` of a method's declared exception slots."""
    return {
        spec[2]: spec[1]
        for spec in result_struct.thrift_spec.values()
        if spec[1] != "success" and len(spec) > 2 and isinstance(spec[2], type)
    }


def to_thrift_error(error: Exception, declared: dict[type, str], preferences: ErrorPreferences = HMS_PREFERENCES):
    """The Thrift exception to raise for ``error`` in a method with the ``declared`` slots.

    Returns ``(field name, exception)`` for a declared slot, or ``(None, TApplicationException)``.
    """
    if isinstance(error, TApplicationException):
        return None, error  # a handler's own answer (``UNKNOWN_METHOD`` to make a client fall back)
    message = client_message(error)
    for declared_type, slot in declared.items():
        if isinstance(error, declared_type):
            return slot, error
    candidates = preferences[-1][1]
    if isinstance(error, CatalogError):
        candidates = next(preferred for error_type, preferred in preferences if isinstance(error, error_type))
    for candidate in candidates:
        if candidate in declared:
            return declared[candidate], candidate(message=message)
    return None, TApplicationException(TApplicationException.INTERNAL_ERROR, message)


def client_message(error: Exception) -> str:
    """What a client is told of ``error``: a catalog error's or Hive exception's own message (a catalog error's
    ``detail`` is logged, not sent), otherwise a fixed text with a reference to the server's log."""
    if isinstance(error, CatalogError):
        if error.detail:
            log.log(log_level(error), "%s: %s (detail: %s)", type(error).__name__, error, error.detail)
        if isinstance(error, TransientStorageError):
            return f"{RETRY_ELSEWHERE}: {error}"
        return str(error)
    if isinstance(error, TException):
        return str(getattr(error, "message", None) or error)
    reference = uuid.uuid4().hex[:12]
    log.error("internal error %s: %s: %s", reference, type(error).__name__, error)
    return f"Internal error in the metastore (reference {reference} in its log)"
