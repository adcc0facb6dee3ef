"""Hive's basic statistics of a Hudi table from its latest file slices.

``numFiles`` and ``totalSize`` count the base and log files of the latest slices (what a reader reads,
unlike a listing of the folders, which counts every file version and skips the hidden log files);
``numRows`` of a COPY_ON_WRITE table adds up the records of its latest base files (each base file's
``numWrites``: inserts, updates and the records copied over). A MERGE_ON_READ table's row count depends on
merging its logs, so it gets none.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Protocol

from .file_slices import FileSlice
from .metadata import CommitMetadata, InstantMetadata, RestoreMetadata, RollbackMetadata

NUM_FILES, TOTAL_SIZE, NUM_ROWS = "numFiles", "totalSize", "numRows"


class FileRow(Protocol):
    """What the statistics read of a file's row in the catalog."""

    @property
    def size(self) -> int: ...

    @property
    def num_rows(self) -> int | None: ...


def slice_statistics(
    slices: Iterable[FileSlice], files: Mapping[tuple[str, str], FileRow], copy_on_write: bool
) -> dict[str, dict[str, str]]:
    """``{partition path: {numFiles, totalSize[, numRows]}}`` of the partitions that have slices; ``files``
    gives each file's row (``size``, ``num_rows``) by ``(partition path, name)``."""
    counts: dict[str, list[int]] = {}
    rows_known: dict[str, bool] = {}
    for file_slice in slices:
        path = file_slice.partition_path
        total = counts.setdefault(path, [0, 0, 0])
        names = ([file_slice.base_file] if file_slice.base_file else []) + list(file_slice.log_files)
        for name in names:
            row = files.get((path, name))
            total[0] += 1
            total[1] += row.size if row is not None else 0
        base = files.get((path, file_slice.base_file)) if file_slice.base_file else None
        if base is not None and base.num_rows is not None:
            total[2] += base.num_rows
        elif file_slice.base_file:
            rows_known[path] = False
    result = {}
    for path, (num_files, size, num_rows) in counts.items():
        result[path] = {NUM_FILES: str(num_files), TOTAL_SIZE: str(size)}
        if copy_on_write and rows_known.get(path, True):
            result[path][NUM_ROWS] = str(num_rows)
    return result


def empty_statistics(copy_on_write: bool) -> dict[str, str]:
    """The statistics of a partition without slices (its data replaced or rolled back)."""
    return {NUM_FILES: "0", TOTAL_SIZE: "0", **({NUM_ROWS: "0"} if copy_on_write else {})}


def _count(params: Mapping[str, str], key: str) -> int | None:
    value = params.get(key)
    return int(value) if value is not None and value.lstrip("-").isdigit() else None


def moved_by(
    table_params: Mapping[str, str], before: Sequence[Mapping[str, str]], after: Sequence[Mapping[str, str]]
) -> dict[str, str]:
    """The table's statistics moved by the change of some partitions' (``before`` -> ``after``), for the
    keys the partitions have after; a table without a figure yet starts from the partitions' before."""
    moved = {}
    for key in (NUM_FILES, TOTAL_SIZE, NUM_ROWS):
        if not all(key in a for a in after):
            continue
        old = [_count(b, key) for b in before]
        start = _count(table_params, key)
        if start is None:
            if any(o is not None for o in old):
                continue  # partitions had figures the table lacks: no base to move from
            start = 0
        moved[key] = str(start - sum(o or 0 for o in old) + sum(int(a[key]) for a in after))
    return moved


def paths_changed(decoded: InstantMetadata) -> set[str]:
    """The partition paths whose latest slices an applied instant may change ("" for an unpartitioned
    table): those written or replaced by a write, and those of a rollback or restore."""
    if isinstance(decoded, CommitMetadata):
        return {s.partition_path for s in decoded.write_stats} | set(decoded.replaced_file_ids)
    if isinstance(decoded, RollbackMetadata):
        return set(decoded.deleted_files) | set(decoded.appended_log_files) | set(decoded.failed_commit_log_files)
    if isinstance(decoded, RestoreMetadata):
        return set().union(*(paths_changed(r) for r in decoded.rollbacks))
    return set()
