"""Hive's fast statistics: file count and total size kept in table and partition parameters.

Hive Metastore refreshes ``numFiles`` and ``totalSize`` from a listing of the data directory when a table or
partition is created or altered, unless the client says the statistics are its own (environment context
``STATS_GENERATED`` = ``USER``) or asks it not to (``DO_NOT_UPDATE_STATS`` = ``true``).
"""

from __future__ import annotations

from collections.abc import Mapping

from .hudi.properties import TABLE_VERSION
from .warehouse import Warehouse

NUM_FILES = "numFiles"
TOTAL_SIZE = "totalSize"
COLUMN_STATS_ACCURATE = "COLUMN_STATS_ACCURATE"
DO_NOT_UPDATE_STATS = "DO_NOT_UPDATE_STATS"
EMPTY_STATS = (NUM_FILES, TOTAL_SIZE, "numRows", "rawDataSize")
"""The basic statistics of a table or partition."""
TRUNCATED_STATS = (*EMPTY_STATS, "numFilesErasureCoded")
"""The basic statistics a truncation sets to 0 where they exist (Hive 4's list)."""
STATS_GENERATED = "STATS_GENERATED"


SLICE_STATS = (NUM_FILES, TOTAL_SIZE, "numRows")
"""What the catalog derives from the latest file slices of the Hudi tables whose timeline it holds."""


def derived_from_slices(table_params: Mapping[str, str]) -> bool:
    """Whether a table's basic statistics come from its Hudi timeline (``hudi_catalog.hudi.slice_stats``):
    a listing of its folders would count every file version and miss the log files."""
    return TABLE_VERSION in table_params


def keep_slice_stats(params: dict[str, str], stored: Mapping[str, str]) -> None:
    """Keep, in ``params`` an alter sends, the statistics the catalog derived for the stored object."""
    params.update({k: stored[k] for k in SLICE_STATS if k in stored})


def should_update(environment: Mapping[str, str] | None) -> bool:
    env = environment or {}
    return env.get(STATS_GENERATED) != "USER" and env.get(DO_NOT_UPDATE_STATS, "").lower() != "true"


def update_fast_stats(
    params: dict[str, str],
    warehouse: Warehouse,
    location: str | None,
    new_dir: bool,
    force: bool,
    environment: Mapping[str, str] | None,
) -> None:
    """Refresh ``numFiles``/``totalSize`` in ``params`` in place, following Hive's rules."""
    if params.pop(DO_NOT_UPDATE_STATS, None) is not None or not location:
        return
    if not force and NUM_FILES in params and TOTAL_SIZE in params:
        return
    if new_dir:
        return
    num_files, total_size = warehouse.data_size(location)
    params[NUM_FILES] = str(num_files)
    params[TOTAL_SIZE] = str(total_size)
    if (environment or {}).get(STATS_GENERATED) != "TASK":
        params.pop(COLUMN_STATS_ACCURATE, None)
