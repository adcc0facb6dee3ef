"""hudi-metastore's catalog core: databases, tables, partitions, functions, the Hudi timeline and snapshot."""

from .catalog import Catalog
from .errors import (
    AlreadyExistsError,
    CatalogError,
    HudiMetadataError,
    InvalidFilterError,
    InvalidObjectError,
    InvalidOperationError,
    NoSuchDatabaseError,
    NoSuchFunctionError,
    NoSuchObjectError,
    NoSuchPartitionError,
    NoSuchTableError,
    StorageError,
)

__all__ = [
    "Catalog",
    "CatalogError",
    "AlreadyExistsError",
    "HudiMetadataError",
    "InvalidFilterError",
    "InvalidObjectError",
    "InvalidOperationError",
    "NoSuchDatabaseError",
    "NoSuchFunctionError",
    "NoSuchObjectError",
    "NoSuchPartitionError",
    "NoSuchTableError",
    "StorageError",
]
