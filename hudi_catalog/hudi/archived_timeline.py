"""The archived timeline of any table version: the LSM history (:mod:`.lsm_history`, versions 8 and later)
or the archived log (:mod:`.archived_log`, earlier versions). Either decodes with
:func:`hudi_catalog.hudi.metadata.decode_instant`."""

from __future__ import annotations

from pyarrow import fs as pafs

from .archived_log import read_archived_log
from .instant_files import InstantFile
from .lsm_history import read_lsm_history
from .properties import FIRST_LAYOUT_2_VERSION, TableConfig


def read_archived_instants(fs: pafs.FileSystem, base_path: str, config: TableConfig) -> list[tuple[InstantFile, bytes]]:
    """The archived timeline with each instant's metadata, in timeline order.

    Raises:
        HudiMetadataError: a manifest, parquet or archive file is malformed.
        StorageError: the file system failed.
    """
    if config.version >= FIRST_LAYOUT_2_VERSION:
        entries = list(read_lsm_history(fs, base_path, config))
    else:
        entries = list(read_archived_log(fs, base_path, config))
    entries.sort(key=lambda entry: entry[0].sort_key())
    return entries


def list_archived_instants(fs: pafs.FileSystem, base_path: str, config: TableConfig) -> list[InstantFile]:
    """The instants of the archived timeline, in timeline order (see :func:`read_archived_instants`)."""
    return [instant for instant, _ in read_archived_instants(fs, base_path, config)]
