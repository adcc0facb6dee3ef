"""The errors of the Iceberg view: each a :class:`~hudi_catalog.errors.CatalogError`, so a caller that keeps the
view beside Hudi's commits can catch them, leave the view at its last good snapshot and report the message."""

from __future__ import annotations

from ..errors import CatalogError


class IcebergViewError(CatalogError):
    """The Iceberg view of a Hudi table cannot take an instant; its previous metadata is untouched."""


class SchemaEvolutionError(IcebergViewError):
    """The table's schema changed in a way Iceberg cannot express (a column's type changed other than by a
    promotion Iceberg allows, a primitive became a struct, ...), or uses a type Iceberg has no equivalent of."""


class MissingDataFileError(IcebergViewError):
    """A base file an instant added cannot be found on storage, or its Parquet footer cannot be read."""


class ViewMetadataError(IcebergViewError):
    """The view's own metadata (table metadata JSON, manifest list, manifest) is missing or malformed."""
