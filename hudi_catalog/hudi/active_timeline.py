"""The active timeline: the instant files in ``.hoodie/`` (table versions before 8) or
``.hoodie/timeline/`` (8 and later), listed in timeline order and read.

Layout 1 names carry no completion time. As Hudi 1.x does, it is taken from the completed file's
modification time, written as an instant time in the table's timeline zone (``UTC`` when
``hoodie.table.timeline.timezone=UTC``, otherwise the local zone of this process, as the Java reader uses
the JVM's). hudi-rs leaves it unset.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timezone

from pyarrow import fs as pafs

from .instant_files import InstantFile, parse_instant_file_name
from .properties import TableConfig
from .storage import join, list_dir, read_file


def list_instants(fs: pafs.FileSystem, base_path: str, config: TableConfig) -> list[InstantFile]:
    """Every instant file of the active timeline, in timeline order.

    Completed instants whose names carry no completion time (layout 1) get it from the file's
    modification time.

    Raises:
        StorageError: the file system failed.
    """
    instants = []
    for info in list_dir(fs, join(base_path, config.timeline_dir)):
        if info.type != pafs.FileType.File:
            continue
        instant = parse_instant_file_name(info.base_name, config.version)
        if instant is None:
            continue
        if instant.is_completed and instant.completion_time is None and info.mtime_ns is not None:
            instant = replace(instant, completion_time=_mtime_instant_time(info.mtime_ns, config.timeline_timezone))
        instants.append(instant)
    instants.sort(key=InstantFile.sort_key)
    return instants


def read_instant(fs: pafs.FileSystem, base_path: str, config: TableConfig, instant: InstantFile) -> bytes:
    """The raw content of an active instant file (often empty for requested and inflight ones).

    Raises:
        HudiMetadataError: the file does not exist (any more).
        StorageError: the file system failed.
    """
    path = f"{join(base_path, config.timeline_dir)}/{instant.file_name}"
    return read_file(fs, path, missing=f"{path}: instant file not found")


def _mtime_instant_time(mtime_ns: int, zone: str) -> str:
    """A modification time as an instant time (``yyyyMMddHHmmssSSS``) in ``zone`` (``UTC`` or local).

    >>> _mtime_instant_time(1_704_067_200_123_456_789, "UTC")
    '20240101000000123'
    """
    seconds, millis = divmod(mtime_ns // 1_000_000, 1000)
    moment = datetime.fromtimestamp(seconds, tz=timezone.utc)
    if zone != "UTC":
        moment = moment.astimezone()
    return moment.strftime("%Y%m%d%H%M%S") + f"{millis:03d}"
