"""Warehouse directories, managed as Hive Metastore manages them, through ``pyarrow.fs``.

Databases get ``<root>/<name>.db`` (the default database the root itself), managed tables
``<database location>/<table>``, partitions ``<table location>/<partition name>``. Locations are URIs;
local ones are written ``file:/abs/path`` like Hadoop's qualified paths, and any scheme ``pyarrow.fs``
knows (``hdfs://``, ``s3://``, ``gs://``) works the same.
"""

from __future__ import annotations

import logging
import os
import posixpath
from collections.abc import Sequence
from urllib.parse import urlparse

from pyarrow import fs as pafs

from .config import DEFAULT_DATABASE_NAME
from .errors import StorageError

log = logging.getLogger(__name__)


def qualify(location: str) -> str:
    """Turn a plain local path into a ``file:`` URI; URIs are returned unchanged (without a trailing /)."""
    if "://" in location or location.startswith("file:"):
        return location.rstrip("/") if len(location) > 1 else location
    return "file:" + os.path.abspath(location)


def _resolve(location: str) -> tuple[pafs.FileSystem, str]:
    parsed = urlparse(location)
    if parsed.scheme in ("", "file"):
        return pafs.LocalFileSystem(), parsed.path or location
    try:
        return pafs.FileSystem.from_uri(location)
    except Exception as e:  # pyarrow raises several types for unknown schemes and missing credentials
        raise StorageError(f"cannot open file system for {location}: {e}") from e


def join(parent: str, child: str) -> str:
    return parent.rstrip("/") + "/" + child


def parent_of(location: str) -> str:
    return location.rstrip("/").rsplit("/", 1)[0]


def _normalized(location: str) -> tuple[str, str]:
    """``(scheme://authority, path)`` of a location with ``.`` and ``..`` resolved; local paths also with
    their symbolic links resolved, so that a link cannot lead a delete elsewhere."""
    parsed = urlparse(qualify(location))
    if parsed.scheme in ("", "file"):
        return "file:", os.path.realpath(parsed.path or "/")
    return f"{parsed.scheme}://{parsed.netloc}", posixpath.normpath(parsed.path or "/")


class Warehouse:
    """Creates, renames and deletes the directories of databases, tables and partitions. Data is deleted only
    strictly inside the root or one of ``data_roots`` (``serve --data-root``): a client may name any location
    for a database, table or partition, and dropping it must not delete what the server can reach
    elsewhere."""

    def __init__(self, root: str, data_roots: Sequence[str] = ()) -> None:
        self.root = qualify(root)
        self.data_roots = [qualify(r) for r in data_roots]

    def deletable(self, location: str) -> bool:
        """Whether ``location`` lies strictly inside the warehouse root or a data root."""
        scheme, path = _normalized(location)
        for root in (self.root, *self.data_roots):
            root_scheme, root_path = _normalized(root)
            if scheme == root_scheme and path.startswith(root_path.rstrip("/") + "/"):
                return True
        return False

    def _refuse(self, location: str) -> bool:
        """Log and say whether a delete of ``location`` is refused (outside the roots)."""
        if self.deletable(location):
            return False
        log.warning(
            "not deleting %s: it lies outside the warehouse root %s and the data roots (serve "
            "--data-root); its files stay",
            location,
            self.root,
        )
        return True

    def database_location(self, name: str) -> str:
        return self.root if name == DEFAULT_DATABASE_NAME else join(self.root, f"{name}.db")

    def exists(self, location: str) -> bool:
        filesystem, path = _resolve(location)
        return filesystem.get_file_info(path).type != pafs.FileType.NotFound

    def make_dirs(self, location: str) -> bool:
        """Create the directory (and parents); returns whether it was created by this call."""
        filesystem, path = _resolve(location)
        try:
            if filesystem.get_file_info(path).type != pafs.FileType.NotFound:
                return False
            filesystem.create_dir(path, recursive=True)
            return True
        except OSError as e:
            raise StorageError(f"could not create directory {location}: {e}") from e

    def delete_dir(self, location: str) -> None:
        """Delete a directory and everything in it; a missing directory is not an error."""
        filesystem, path = _resolve(location)
        try:
            if filesystem.get_file_info(path).type == pafs.FileType.Directory:
                filesystem.delete_dir(path)
                log.debug("deleted %s", location)
        except OSError as e:
            raise StorageError(f"could not delete directory {location}: {e}") from e

    def discard_dir(self, location: str, empty_parents_up_to: str | None = None) -> bool:
        """Delete the directory of an object whose metadata is already gone (its drop committed), and with
        ``empty_parents_up_to`` its parents left empty below that directory. A failure is logged, not raised:
        the drop stands and the files stay, as Hive Metastore does. A directory outside the warehouse root and
        the data roots is not deleted (and that logged). Returns whether it was deleted."""
        if self._refuse(location):
            return False
        try:
            self.delete_dir(location)
            if empty_parents_up_to:
                self.delete_empty_parents(location, empty_parents_up_to)
            return True
        except (StorageError, OSError) as error:
            log.error("could not delete %s, whose metadata is gone; its files stay: %s", location, error)
            return False

    def delete_contents(self, location: str) -> None:
        """Delete everything in a directory, keeping the directory; a missing directory is not an error. A
        directory outside the roots is refused: ``StorageError`` (check ``deletable`` first)."""
        if self._refuse(location):
            raise StorageError(f"{location} lies outside the warehouse root and the data roots (serve --data-root)")
        filesystem, path = _resolve(location)
        try:
            filesystem.delete_dir_contents(path, missing_dir_ok=True)
            log.debug("emptied %s", location)
        except OSError as e:
            raise StorageError(f"could not empty directory {location}: {e}") from e

    def delete_empty_parents(self, location: str, stop_at: str) -> None:
        """Delete the now-empty parent directories of ``location`` up to, not including, ``stop_at``."""
        filesystem, _ = _resolve(location)
        stop = stop_at.rstrip("/")
        current = parent_of(location)
        while current.startswith(stop + "/"):
            _, path = _resolve(current)
            if filesystem.get_file_info(pafs.FileSelector(path, allow_not_found=True)):
                return
            filesystem.delete_dir(path)
            current = parent_of(current)

    def rename(self, source: str, target: str) -> None:
        """Move a directory; the target's parent is created, an existing target is an error."""
        filesystem, source_path = _resolve(source)
        _, target_path = _resolve(target)
        try:
            if filesystem.get_file_info(source_path).type == pafs.FileType.NotFound:
                return
            filesystem.create_dir(parent_of(target_path), recursive=True)
            filesystem.move(source_path, target_path)
        except OSError as e:
            raise StorageError(f"could not move {source} to {target}: {e}") from e

    def data_size(self, location: str) -> tuple[int, int]:
        """``(number of files, total bytes)`` of the data files under a directory, hidden files excluded."""
        filesystem, path = _resolve(location)
        try:
            infos = filesystem.get_file_info(pafs.FileSelector(path, recursive=True, allow_not_found=True))
        except OSError:
            return 0, 0
        base = path.rstrip("/")
        data = [
            i
            for i in infos
            if i.type == pafs.FileType.File
            and not any(part.startswith((".", "_")) for part in i.path[len(base) + 1 :].split("/"))
        ]
        return len(data), sum(i.size or 0 for i in data)
