"""The names of a Hudi table's data files: base files and log files, parsed and rendered.

- a base file is ``<fileId>_<writeToken>_<instantTime>.<ext>``: ext ``parquet``, ``orc``, ``hfile`` or
  ``lance``; the instant is the commit that wrote it, which starts its file slice;
- a log file is ``.<fileId>_<instantTime>.<ext>.<version>_<writeToken>``, ext ``log`` (``archive`` in the
  archived timeline of old tables), and ``.cdc`` appended for change-data logs. Names from writers before
  write tokens have none. The instant is the base instant of the slice the file belongs to in table
  versions up to 6, and the requested time of the delta commit that wrote it from version 8 on.

A write token is ``<taskPartitionId>-<stageId>-<taskAttemptId>`` of the task that wrote the file.

Example:
    >>> base = BaseFileName.parse("d0304c53-0_0-13-60_20250331030642808.parquet")
    >>> base.file_id, base.instant_time, base.extension
    ('d0304c53-0', '20250331030642808', 'parquet')
    >>> log = LogFileName.parse(".d0304c53-0_20250331030642808.log.1_0-26-85")
    >>> log.file_id, log.base_instant_time, log.version, log.write_token
    ('d0304c53-0', '20250331030642808', 1, '0-26-85')
    >>> LogFileName.parse(log.name) == log and BaseFileName.parse(base.name) == base
    True
    >>> LogFileName.try_parse(base.name) is None
    True
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import HudiMetadataError

BASE_FILE_EXTENSIONS = frozenset({"parquet", "orc", "hfile", "lance"})
"""The extensions of the base file formats a Hudi table writes."""

_BASE_FILE = re.compile(r"(?P<file_id>[^._/]+)_(?P<token>[^._/]+)_(?P<instant>\d+)\.(?P<ext>[A-Za-z0-9]+)")
_LOG_FILE = re.compile(
    r"\.(?P<file_id>[^._/]+)_(?P<instant>\d+)\.(?P<ext>log|archive)\.(?P<version>\d+)"
    r"(?:_(?P<token>\d+-\d+-\d+)(?P<cdc>\.cdc)?)?"
)


@dataclass(frozen=True)
class BaseFileName:
    """The parts of a base file's name; ``name`` renders them back."""

    file_id: str
    write_token: str
    instant_time: str
    extension: str

    @classmethod
    def parse(cls, name: str) -> BaseFileName:
        """The parts of ``name``.

        Raises:
            HudiMetadataError: ``name`` is not a base file name.
        """
        parsed = cls.try_parse(name)
        if parsed is None:
            raise HudiMetadataError(f"{name}: not a Hudi base file name")
        return parsed

    @classmethod
    def try_parse(cls, name: str) -> BaseFileName | None:
        """The parts of ``name``, or ``None`` if it is not a base file name."""
        match = _BASE_FILE.fullmatch(name)
        if match is None:
            return None
        return cls(*match.group("file_id", "token", "instant", "ext"))

    @property
    def name(self) -> str:
        return f"{self.file_id}_{self.write_token}_{self.instant_time}.{self.extension}"


@dataclass(frozen=True)
class LogFileName:
    """The parts of a log file's name; ``name`` renders them back.

    Log files of a file group are ordered by :meth:`sort_key`, as Hudi's
    ``HoodieLogFile.getLogFileComparator`` orders them.
    """

    file_id: str
    base_instant_time: str
    version: int
    write_token: str | None = None
    extension: str = "log"
    cdc: bool = False

    @classmethod
    def parse(cls, name: str) -> LogFileName:
        """The parts of ``name``.

        Raises:
            HudiMetadataError: ``name`` is not a log file name.
        """
        parsed = cls.try_parse(name)
        if parsed is None:
            raise HudiMetadataError(f"{name}: not a Hudi log file name")
        return parsed

    @classmethod
    def try_parse(cls, name: str) -> LogFileName | None:
        """The parts of ``name``, or ``None`` if it is not a log file name.

        >>> cdc = LogFileName.try_parse(".f1_20240101000000000.log.12_1-0-1.cdc")
        >>> cdc.version, cdc.write_token, cdc.cdc
        (12, '1-0-1', True)
        """
        match = _LOG_FILE.fullmatch(name)
        if match is None:
            return None
        return cls(
            match["file_id"],
            match["instant"],
            int(match["version"]),
            match["token"],
            match["ext"],
            match["cdc"] is not None,
        )

    @property
    def name(self) -> str:
        token = "" if self.write_token is None else f"_{self.write_token}"
        return f".{self.file_id}_{self.base_instant_time}.{self.extension}.{self.version}{token}" + (
            ".cdc" if self.cdc else ""
        )

    def sort_key(self) -> tuple[str, int, str]:
        """Instant time, then version (as a number), then write token."""
        return self.base_instant_time, self.version, self.write_token or ""


def data_file_instant(name: str) -> str:
    """The instant time in a data file's name: a log file's base instant, a base file's commit.

    Raises:
        HudiMetadataError: ``name`` is neither a log file nor a base file name.
    """
    log = LogFileName.try_parse(name)
    return log.base_instant_time if log is not None else BaseFileName.parse(name).instant_time
