"""Following Hudi's hive sync: a writer that syncs to this server brings its new instants into the catalog.

A Hudi writer with hive sync (``HiveSyncTool``, ``hoodie.datasource.hive_sync.mode=hms``) writes its instants
to storage, then registers the table and its partitions through Thrift and ends each sync with an
``alter_table`` that records the latest commit it synced (``last_commit_time_sync``). When that value changes
(forwards after a write, backwards after a rollback) in an alter that is not an import's own, the server
reads the table's ``.hoodie`` folder the way ``hudi-metastore import`` does (an incremental import: only new
instants and new states are written, completed ones applied to the file snapshot), so the timeline and the
snapshot agree with storage once the writer's sync has returned.

The alter is committed first, in its own transaction; the catch-up follows it in the same call. A table whose
``.hoodie`` cannot be read (storage the server cannot reach, a corrupt instant) keeps what hive sync wrote:
the failure is logged, and hive sync is not failed for it. A merge-on-read table's ``<t>_ro`` and ``<t>_rt``
are views of ``<t>``, which holds the timeline; hive sync alters ``<t>`` after them.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

from ..model import Table
from .hudi_import import IMPORTING, LAST_COMMIT_SYNC, HudiImporter

log = logging.getLogger(__name__)

HUDI_INPUT_FORMAT_PREFIX = "org.apache.hudi."
MERGE_ON_READ_VIEW_SUFFIXES = ("_ro", "_rt")


class HiveSyncFollower:
    """Brings a Hudi table's new instants into the catalog after hive sync records a newer commit."""

    def __init__(self, catalog) -> None:
        """``catalog``: the ``Catalog`` whose tables are followed (the importer writes through it)."""
        self.catalog = catalog

    def table_altered(self, old_parameters: Mapping[str, str], table: Table) -> None:
        """Called after an alter of ``table`` committed; ``old_parameters`` are its parameters before."""
        synced = table.parameters.get(LAST_COMMIT_SYNC)
        if IMPORTING.get() or not synced or synced == old_parameters.get(LAST_COMMIT_SYNC):
            return
        if not table.sd.location or not _holds_timeline(table):
            return
        try:
            result = HudiImporter(self.catalog).run(table.sd.location, table.database, table.name)
        except Exception as error:  # noqa: BLE001 - hive sync must not fail for the catch-up
            log.warning(
                "hive sync of %s.%s recorded commit %s, but its timeline at %s could not be read: %s",
                table.database,
                table.name,
                synced,
                table.sd.location,
                error,
            )
            return
        log.info(
            "followed hive sync of %s.%s: %d instants recorded up to %s",
            table.database,
            table.name,
            result.recorded,
            result.latest_commit,
        )


def _holds_timeline(table: Table) -> bool:
    """A Hudi table registered by hive sync that is not a merge-on-read view (``_ro``, ``_rt``)."""
    input_format = table.sd.input_format or ""
    return input_format.startswith(HUDI_INPUT_FORMAT_PREFIX) and not table.name.endswith(MERGE_ON_READ_VIEW_SUFFIXES)
