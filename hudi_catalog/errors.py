"""Errors raised by the catalog core.

Every error the catalog raises is a ``CatalogError``. Front ends map each subclass to their own protocol's
error (the HMS adapter maps them to Hive's Thrift exceptions); the message is kept as written here, because
some clients match on Hive's wording.

The message is what a client may read: it names the client's own objects and values, never the server's paths,
the catalog database's host, tables, constraints or SQL. What only the server's operators should read (the
database's or the file system's own error text) goes in ``detail``, which front ends log and never send.
"""


class CatalogError(Exception):
    """Base class of every error raised by the catalog.

    Example:
        >>> error = StorageError("The catalog database is unavailable", detail="Can't connect to db1:3306")
        >>> str(error), error.detail
        ('The catalog database is unavailable', "Can't connect to db1:3306")
    """

    def __init__(self, *args: object, detail: str | None = None) -> None:
        super().__init__(*args)
        self.detail = detail


class NoSuchObjectError(CatalogError):
    """A named object (database, table, partition, function) does not exist."""


class NoSuchDatabaseError(NoSuchObjectError):
    """The database does not exist."""


class NoSuchTableError(NoSuchObjectError):
    """The table does not exist."""


class NoSuchPartitionError(NoSuchObjectError):
    """The partition does not exist."""


class NoSuchFunctionError(NoSuchObjectError):
    """The function does not exist."""


class AlreadyExistsError(CatalogError):
    """An object with the same name already exists."""


class InvalidObjectError(CatalogError):
    """An object given to the catalog is malformed (bad name, missing columns, wrong partition values)."""


class ValueTooLongError(InvalidObjectError):
    """A value is longer than the catalog keeps for its field (Hive's limits for names; the catalog database's
    column widths for the rest), refused the same way on every store before any SQL runs."""


class InvalidOperationError(CatalogError):
    """The operation is not allowed on the object in its current state (drop of a non-empty database, ...)."""


class DatabaseNotEmptyError(InvalidOperationError):
    """A database to drop without cascade still holds tables or functions."""


class ReadOnlyTableError(InvalidOperationError):
    """The table is one only the server changes (a Hudi table's Iceberg view)."""


class InvalidInputError(CatalogError):
    """A request's input does not fit its object (statistics of a column the table lacks, or of the wrong
    kind for the column's type)."""


class UnknownColumnError(InvalidInputError):
    """A request names a column its table does not have."""


class InvalidPartitionValueError(CatalogError):
    """A partition value does not match the pattern the client set for its calls."""


class InvalidFilterError(CatalogError):
    """A partition or table filter could not be parsed or does not fit the table."""


class UnsupportedExpressionError(InvalidFilterError):
    """A serialized Hive expression this server cannot evaluate exactly: a class it cannot read, a function it
    does not translate, or bytes that are not an expression. Hive's clients then prune partitions themselves."""


class HudiMetadataError(CatalogError):
    """Hudi metadata (an instant file, ``hoodie.properties``) could not be decoded."""


class StorageError(CatalogError):
    """The warehouse file system or the catalog database failed."""


class SchemaVersionError(StorageError):
    """The catalog database's schema layout is not this build's: newer, or older and not to be upgraded."""


class UnsupportedReadError(CatalogError):
    """A read of a table cannot be served as asked (not a Hudi table, a query type or file format the reader
    cannot serve); the message says what and why, and no partial or different result is returned instead."""


class ConcurrentModificationError(CatalogError):
    """An object changed since the caller read it (an expected parameter value no longer holds)."""


class NoSuchLockError(CatalogError):
    """The lock id is unknown, released or expired."""


class NoSuchTxnError(CatalogError):
    """The transaction id is unknown, or the transaction is no longer open."""


class TxnAbortedError(CatalogError):
    """The transaction was aborted (by its client or because it timed out)."""


class TxnOpenError(CatalogError):
    """The operation is not allowed while the transaction is open (unlocking one of its locks)."""


class DelegationTokenError(CatalogError):
    """A delegation token is malformed, unknown, cancelled or expired, or the caller may not do this with it."""


class AccessDeniedError(CatalogError):
    """The caller may not do this to this object (``serve --authorization``)."""


class BatchTooLargeError(CatalogError):
    """A call names more partitions than one call may (``serve --max-batch-partitions``); nothing was done.
    Hive's clients see a ``MetaException``."""


class TransientStorageError(StorageError):
    """The catalog database failed in a way that may pass (connection lost, restart, deadlock, lock wait
    timeout) and the transaction did not commit: the call may be tried again."""


class TransactionalPropertyError(CatalogError):
    """A table's ``transactional`` properties break Hive's rules (a value other than true or false, a
    transactional table made non-transactional, an external or non-ACID table made transactional); Hive
    Metastore answers these with ``MetaException``."""
