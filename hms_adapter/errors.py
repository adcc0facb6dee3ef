"""The one place where catalog errors become Hive's Thrift exceptions.

Each catalog error has a preferred HMS exception; a method that does not declare it gets the next one it
declares, ending with ``MetaException``, as Hive Metastore wraps what it cannot name. A method that declares
none of them answers a Thrift ``INTERNAL_ERROR``.
"""

from __future__ import annotations

from thriftpy2.thrift import TApplicationException

from hudi_catalog.errors import (
    AlreadyExistsError,
    CatalogError,
    InvalidInputError,
    InvalidObjectError,
    InvalidOperationError,
    NoSuchDatabaseError,
    NoSuchLockError,
    NoSuchObjectError,
    NoSuchTableError,
    NoSuchTxnError,
    TxnAbortedError,
    TxnOpenError,
    UnknownColumnError,
)

from .idl import hive

ErrorPreferences = list[tuple[type[Exception], tuple[type, ...]]]
"""For each catalog error type, the Thrift exceptions to raise in order of preference (the last is the
catch-all)."""

HMS_PREFERENCES: ErrorPreferences = [
    (NoSuchTableError, (hive.NoSuchObjectException, hive.UnknownTableException, hive.MetaException)),
    (NoSuchDatabaseError, (hive.NoSuchObjectException, hive.UnknownDBException, hive.MetaException)),
    (NoSuchObjectError, (hive.NoSuchObjectException, hive.MetaException)),
    (AlreadyExistsError, (hive.AlreadyExistsException, hive.MetaException)),
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
    message = str(error)
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
