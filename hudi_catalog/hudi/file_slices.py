"""Hudi's file system view: a partition's data files grouped into file groups and slices.

A file group is every data file of one file id in one partition. Its file slices start at base instants
(the instant in a base file's name, or a pending compaction's instant); each slice holds at most one base
file and the log files appended to it. The latest slice of each group is what a snapshot read needs.

Names (:mod:`hudi_catalog.hudi.file_names`): a base file is ``<fileId>_<writeToken>_<instant>.<ext>``, a log
file ``.<fileId>_<instant>.log.<version>_<writeToken>``. The two table-version families read a log file's
instant differently:

* version 6 and older: it is the base instant of the slice the log file belongs to (the writer chose it);
* version 8 and newer (non-blocking concurrency control): it is the requested time of the delta commit
  that wrote it, and the log file belongs to the slice with the greatest base instant at or before that
  commit's completion time (Hudi's ``HoodieFileGroup.getBaseInstantTime``); if there is none, it starts
  a log-only slice at its own instant.

Only files written by completed instants are visible. In version 8 and newer a log file's own instant says
which commit wrote it; in version 6 it does not, so a log file is visible with its slice, and a slice
without a base file is visible when its instant completed or is a pending compaction.

Time travel (``as_of``) compares requested instant times, as Hudi's ``findInstantsBeforeOrEquals`` and
hudi-rs's ``get_file_slice_as_of`` do for every table version: an instant is visible when it completed and
was requested at or before ``as_of``. In version 6 the log files of a visible slice cannot be told apart
by writer, so they are all listed; readers filter their blocks by instant time.

Log files are ordered as Hudi's ``HoodieLogFile.getLogFileComparator``: by the instant in the name, then
version (as a number), then write token (:meth:`LogFileName.sort_key`).

Example:
    >>> files = [DataFile("p", "f1_0-1-2_001.parquet"), DataFile("p", ".f1_002.log.1_0-3-4"),
    ...          DataFile("p", ".f1_004.log.1_0-5-6")]
    >>> [s.log_files for s in latest_file_slices(files, {"001": "001", "002": "003"}, 8)]
    [('.f1_002.log.1_0-3-4',)]
"""

from __future__ import annotations

from bisect import bisect_right, insort
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from .file_names import BASE_FILE_EXTENSIONS, BaseFileName, LogFileName

FileGroupId = tuple[str, str]
"""A file group's identity: ``(partition_path, file_id)``."""


@dataclass(frozen=True)
class DataFile:
    """A file in a partition folder: ``partition_path`` relative to the table (``""`` when unpartitioned)."""

    partition_path: str
    name: str


@dataclass(frozen=True)
class FileSlice:
    """One slice of a file group: its base instant, base file (absent after a pending compaction) and logs."""

    partition_path: str
    file_id: str
    base_instant: str
    base_file: str | None
    log_files: tuple[str, ...]


@dataclass(frozen=True)
class _LogFile:
    name: str  # as found, in case it differs from the parsed parts' rendering (leading zeros)
    parsed: LogFileName

    @property
    def instant(self) -> str:
        return self.parsed.base_instant_time


@dataclass
class _Slice:
    base_file: str | None = None
    log_files: list[str] = field(default_factory=list)


@dataclass
class _Group:
    bases: dict[str, str] = field(default_factory=dict)  # base instant -> base file name
    logs: list[_LogFile] = field(default_factory=list)


@dataclass(frozen=True)
class _Timeline:
    """What the table's timeline says about instants, as of a time."""

    completion_times: Mapping[str, str]
    as_of: str | None
    by_completion_time: bool  # version 8+ slicing

    def visible(self, instant: str) -> bool:
        return instant in self.completion_times and (self.as_of is None or instant <= self.as_of)

    def slice_of(self, log: _LogFile, starts: list[str]) -> str:
        """The base instant of the slice a log file joins, given the group's sorted slice starts."""
        if not self.by_completion_time:
            return log.instant
        at = bisect_right(starts, self.completion_times[log.instant])
        return starts[at - 1] if at else log.instant


def latest_file_slices(
    files: Iterable[DataFile],
    completion_times: Mapping[str, str],
    table_version: int,
    *,
    as_of: str | None = None,
    pending_compactions: Mapping[FileGroupId, str] | None = None,
    replaced_file_groups: Mapping[FileGroupId, str] | None = None,
) -> list[FileSlice]:
    """The latest file slice of every visible file group, sorted by partition path and file id.

    Args:
        files: the data files found in the table's partitions; other files (``.cdc`` logs, partition
            metadata) are ignored.
        completion_times: requested time -> completion time of every completed write instant (commit,
            delta commit, replace commit, compaction); files of other instants are not visible.
        table_version: the table's ``hoodie.table.version``.
        as_of: time travel: only instants requested at or before it count.
        pending_compactions: file group -> instant of the compaction planned for it and not completed.
        replaced_file_groups: file group -> the replace commit (insert overwrite, clustering) that replaced
            it; the group is hidden once that commit is visible.

    Raises:
        ValueError: for table version 7 (Hudi 1.0 betas), whose log naming is not supported.
    """
    if table_version == 7:
        raise ValueError("Hudi table version 7 (1.0.0 beta) is not supported")
    timeline = _Timeline(completion_times, as_of, by_completion_time=table_version >= 8)
    hidden = {group for group, instant in (replaced_file_groups or {}).items() if timeline.visible(instant)}
    compactions = {
        group: instant for group, instant in (pending_compactions or {}).items() if as_of is None or instant <= as_of
    }

    groups: defaultdict[FileGroupId, _Group] = defaultdict(_Group)
    for file in files:
        if (base := BaseFileName.try_parse(file.name)) is not None:
            if base.extension in BASE_FILE_EXTENSIONS and timeline.visible(base.instant_time):
                groups[file.partition_path, base.file_id].bases[base.instant_time] = file.name
        elif (log := LogFileName.try_parse(file.name)) is not None and log.extension == "log" and not log.cdc:
            groups[file.partition_path, log.file_id].logs.append(_LogFile(file.name, log))

    slices = []
    for group_id, group in groups.items():
        if group_id in hidden:
            continue
        latest = _latest_slice(group, compactions.get(group_id), timeline)
        if latest is not None:
            instant, content = latest
            slices.append(FileSlice(*group_id, instant, content.base_file, tuple(content.log_files)))
    return sorted(slices, key=lambda s: (s.partition_path, s.file_id))


def _latest_slice(group: _Group, compaction: str | None, timeline: _Timeline) -> tuple[str, _Slice] | None:
    """Cut one file group into slices keyed by base instant; the one with the greatest instant."""
    slices = {instant: _Slice(base_file=name) for instant, name in group.bases.items()}
    if compaction is not None:
        slices.setdefault(compaction, _Slice())
    starts = sorted(slices)
    # In log order, so a log-only group starts at its first log file and the later ones join it.
    for log in sorted(group.logs, key=lambda log: log.parsed.sort_key()):
        if timeline.by_completion_time and not timeline.visible(log.instant):
            continue  # written by an instant that is pending, rolled back or after as_of
        instant = timeline.slice_of(log, starts)
        if instant not in slices:
            if not timeline.visible(instant):
                continue  # version 6: names a slice that never completed (a failed or rolled-back write)
            slices[instant] = _Slice()
            insort(starts, instant)
        slices[instant].log_files.append(log.name)
    if not starts:
        return None
    return starts[-1], slices[starts[-1]]
