"""Spark integration: metastore-driven reads of Hudi tables and Spark-scale imports.

``read_table(spark, "db.table", ...)`` reads a Hudi table from exactly the files the catalog names (see
``docs/spark.md``); ``CatalogSource`` is what it asks of a catalog, ``LocalCatalogSource`` answers it from a
``Catalog`` in this process. ``read_table`` needs pyspark, imported on first use, so the catalog sources stay
usable (by the server) without it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..read_source import CatalogSource, HudiTableInfo, LocalCatalogSource, PartitionInfo

if TYPE_CHECKING:
    from .reader import read_table

__all__ = ["CatalogSource", "HudiTableInfo", "LocalCatalogSource", "PartitionInfo", "read_table"]


def __getattr__(name: str) -> Any:
    if name == "read_table":
        from .reader import read_table

        return read_table
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
