"""Warehouse directories, managed as Hive Metastore manages them, through ``pyarrow.fs``.

Databases get ``<root>/<name>.db`` (the default database the root itself), managed tables
``<database location>/<table>``, partitions ``<table location>/<partition name>``. Locations are URIs;
local ones are written ``file:/abs/path`` like Hadoop's qualified paths, and any scheme ``pyarrow.fs``
knows (``hdfs://``, ``s3://``, ``gs://``) works the same.
"""

from __future__ import annotations

import errno
import logging
import os
import posixpath
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from urllib.parse import urlparse

from pyarrow import fs as pafs

from .config import DEFAULT_DATABASE_NAME
from .errors import StorageError
from .filesystems import open_location, same_kind, scheme_family

log = logging.getLogger(__name__)


SYSTEM_DIRECTORIES = (
    "/bin",
    "/boot",
    "/dev",
    "/etc",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/proc",
    "/run",
    "/sbin",
    "/sys",
    "/usr",
)
"""Local directories no database, table or partition may be located in (nor at the file system's root)."""


def _clean(path: str) -> str:
    """A path with ``.`` and ``..`` segments and repeated or trailing slashes removed, as Hadoop's ``Path``
    normalizes it."""
    if not path:
        return path
    cleaned = posixpath.normpath(path)
    return "/" + cleaned.lstrip("/") if cleaned.startswith("/") else cleaned


def qualify(location: str) -> str:
    """Turn a plain local path into a ``file:`` URI; a URI keeps its scheme and authority. The path is
    normalized (no ``.``/``..`` segments, repeated or trailing slashes), so one directory has one spelling.

    Example:
        >>> qualify("file:/data/w/../t/"), qualify("s3://bucket/a//b"), qualify("/")
        ('file:/data/t', 's3://bucket/a/b', 'file:/')
    """
    if "://" in location:
        scheme, rest = location.split("://", 1)
        authority, slash, path = rest.partition("/")
        path = _clean(slash + path)
        return f"{scheme}://{authority}{'' if authority and path == '/' else path}"
    if location.startswith("file:"):
        return "file:" + _clean(location[len("file:") :])
    return "file:" + os.path.abspath(location)


COPY_THREADS = 16
"""Objects copied at once when a directory moves on an object store (each copy is one request)."""


def _resolve(location: str) -> tuple[pafs.FileSystem, str]:
    parsed = urlparse(location)
    if parsed.scheme in ("", "file"):
        return pafs.LocalFileSystem(), parsed.path or location
    return open_location(location)


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
    # s3://, s3a:// and s3n:// name one bucket's objects, as do gs:// and gcs://, abfs:// and abfss://
    return f"{scheme_family(parsed.scheme)}://{parsed.netloc.lower()}", posixpath.normpath(parsed.path or "/")


@lru_cache(maxsize=16)
def _normalized_roots(roots: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """``_normalized`` of the roots, resolved once (every deletion check compares with them)."""
    return tuple(_normalized(r) for r in roots)


def _inside(path: str, parent: str) -> bool:
    return path.startswith(parent.rstrip("/") + "/")


def _delete_tree(filesystem: pafs.FileSystem, path: str) -> None:
    """Delete a directory and everything under it. On an object store the objects under the prefix go (in
    batches), then the directory's marker where the store keeps one: some stores (GCS's emulators, buckets
    written by engines that make no markers) have none, and asking to delete it is not an error."""
    if isinstance(filesystem, pafs.LocalFileSystem):
        filesystem.delete_dir(path)
        return
    filesystem.delete_dir_contents(path, missing_dir_ok=True)
    try:
        filesystem.delete_dir(path)
    except FileNotFoundError:
        pass


class Warehouse:
    """Creates, renames and deletes the directories of databases, tables and partitions, where the services'
    rules (``services.directories``) allow it: the server deletes or moves only a directory it made for that
    object, or one strictly inside the warehouse root or one of ``data_roots`` (``serve --data-root``), and
    never one that is or holds another live object's location. This class answers the questions on paths
    those rules ask."""

    def __init__(self, root: str, data_roots: Sequence[str] = ()) -> None:
        self.root = qualify(root)
        self.data_roots = [qualify(r) for r in data_roots]

    def _roots(self) -> tuple[tuple[str, str], ...]:
        return _normalized_roots((self.root, *self.data_roots))

    def inside_roots(self, location: str) -> bool:
        """Whether ``location`` lies strictly inside the warehouse root or a data root (after resolving ``..``
        and, for local paths, symbolic links)."""
        scheme, path = _normalized(location)
        return any(scheme == s and _inside(path, p) for s, p in self._roots())

    def holds_root(self, location: str) -> bool:
        """Whether ``location`` is, or contains, the warehouse root or a data root."""
        scheme, path = _normalized(location)
        return any(scheme == s and (p == path or _inside(p, path) or path == "/") for s, p in self._roots())

    @staticmethod
    def inside(location: str, container: str) -> bool:
        """Whether ``location`` lies strictly inside ``container``, both resolved as ``inside_roots`` does."""
        scheme, path = _normalized(location)
        container_scheme, container_path = _normalized(container)
        return scheme == container_scheme and _inside(path, container_path)

    @staticmethod
    def same(location: str, other: str) -> bool:
        """Whether both name one directory (``file:/x`` and ``file:///x`` do), resolved as ``inside_roots``
        does."""
        return _normalized(location) == _normalized(other)

    @staticmethod
    def below(location: str, directory: str) -> str | None:
        """The path ``location`` adds to ``directory`` when it is that directory (``""``) or lies inside it
        (``/a=x/b=1``), compared by meaning as ``same`` and ``inside`` do; None otherwise.

        Example:
            >>> Warehouse.below("file:/w/t/a=x/", "file:///w/t"), Warehouse.below("s3a://b/t", "s3a://b/u")
            ('/a=x', None)
        """
        scheme, path = _normalized(location)
        directory_scheme, directory_path = _normalized(directory)
        if scheme != directory_scheme:
            return None
        if path == directory_path:
            return ""
        return path[len(directory_path.rstrip("/")) :] if _inside(path, directory_path) else None

    @staticmethod
    def spellings(location: str) -> list[str]:
        """The forms under which a catalog may hold ``location``: as given, and for a local path also
        ``file:///path`` and both forms of the path with its symbolic links resolved; on an object store, the
        location under each scheme of its kind (``s3://``, ``s3a://``, ``s3n://``).

        Example:
            >>> Warehouse.spellings("s3a://lake/t/")
            ['s3a://lake/t', 's3://lake/t', 's3n://lake/t']
        """
        location = qualify(location)
        scheme, resolved = _normalized(location)
        if scheme != "file:":
            given, rest = location.split("://", 1)
            return list(dict.fromkeys([location, *(f"{s}://{rest}" for s in same_kind(given))]))
        paths = dict.fromkeys([(urlparse(location).path or "/").lstrip("/"), resolved.lstrip("/")])
        return list(dict.fromkeys(form for p in paths for form in (f"file:/{p}", f"file:///{p}")))

    @staticmethod
    def is_link(location: str) -> bool:
        """Whether a local location is itself a symbolic link (never deleted or moved: it may lead anywhere)."""
        parsed = urlparse(location)
        return parsed.scheme in ("", "file") and os.path.islink(parsed.path or location)

    def refusal(self, location: str) -> str | None:
        """Why no database, table or partition may be located at ``location``, or None: the root of the local
        file system and the system directories (``SYSTEM_DIRECTORIES``) and what lies in them are refused,
        unless they lie in the warehouse root or a data root."""
        scheme, path = _normalized(location)
        if scheme != "file:" or self.inside_roots(location) or any(r == (scheme, path) for r in self._roots()):
            return None
        # both spellings: /etc given through a link (or /lib as a link to /usr/lib) is still refused
        for candidate in dict.fromkeys([_clean(urlparse(qualify(location)).path or "/"), path]):
            if candidate == "/":
                return "the root of the file system"
            if any(candidate == d or _inside(candidate, d) for d in SYSTEM_DIRECTORIES):
                return "a system directory"
        return None

    def database_location(self, name: str) -> str:
        return self.root if name == DEFAULT_DATABASE_NAME else join(self.root, f"{name}.db")

    def exists(self, location: str) -> bool:
        filesystem, path = _resolve(location)
        return filesystem.get_file_info(path).type != pafs.FileType.NotFound

    def check_reachable(self, location: str, refused: str) -> None:
        """Before a drop that deletes data under ``location``: fail now when its file system cannot be reached
        (an outage, a key the store refuses), so that no metadata goes while its data cannot. Hive Metastore
        asks the same of the parent directory (whether it is writable) before such a drop.

        A location no file system here opens (``hdfs://`` without libhdfs, a scheme of another platform) is
        not asked: its drop goes on and its data stays, logged, as before this check.

        Raises:
            StorageError: ``refused`` (Hive's wording: "Table metadata not deleted") and the location; the
                store's own answer is the detail.
        """
        try:
            filesystem, path = _resolve(location)
        except StorageError:
            return
        try:
            filesystem.get_file_info(path)
        except OSError as e:
            raise StorageError(f"{refused} since {location} cannot be reached", detail=str(e)) from e

    def make_dirs(self, location: str) -> bool:
        """Create the directory (and parents); returns whether it was created by this call. On the local file
        system the last step is an exclusive ``mkdir``: of two concurrent calls for one directory, exactly one
        made it."""
        filesystem, path = _resolve(location)
        try:
            if isinstance(filesystem, pafs.LocalFileSystem):
                os.makedirs(os.path.dirname(path.rstrip("/")) or "/", exist_ok=True)
                try:
                    os.mkdir(path)
                except FileExistsError:
                    return False
                return True
            if filesystem.get_file_info(path).type != pafs.FileType.NotFound:
                return False
            filesystem.create_dir(path, recursive=True)
            return True
        except OSError as e:
            raise StorageError(f"Could not create directory {location}", detail=str(e)) from e

    def delete_dir(self, location: str) -> None:
        """Delete a directory and everything in it; a missing directory is not an error."""
        filesystem, path = _resolve(location)
        try:
            if filesystem.get_file_info(path).type == pafs.FileType.Directory:
                _delete_tree(filesystem, path)
                log.debug("deleted %s", location)
        except OSError as e:
            raise StorageError(f"Could not delete directory {location}", detail=str(e)) from e

    def discard_dir(self, location: str) -> bool:
        """Delete the directory of an object whose metadata is already gone (its drop committed). A failure is
        logged, not raised: the drop stands and the files stay, as Hive Metastore does. The caller has decided
        the directory may go (``services.directories``). Returns whether it was deleted."""
        try:
            self.delete_dir(location)
            return True
        except (StorageError, OSError) as error:
            log.error("could not delete %s, whose metadata is gone; its files stay: %s", location, error)
            return False

    def remove_empty_dir(self, location: str) -> bool:
        """Delete a directory only if it is empty; whether it was deleted. On the local file system this is one
        ``rmdir``, so a file or directory another process puts there at the same moment is never deleted with
        it; elsewhere (object stores) an empty directory is only a marker. A failure is logged, not raised."""
        filesystem, path = _resolve(location)
        try:
            if isinstance(filesystem, pafs.LocalFileSystem):
                os.rmdir(path)
            else:
                if filesystem.get_file_info(pafs.FileSelector(path, allow_not_found=True)):
                    return False
                if filesystem.get_file_info(path).type != pafs.FileType.Directory:
                    return False
                filesystem.delete_dir(path)
        except FileNotFoundError:
            return False
        except OSError as error:
            if error.errno != errno.ENOTEMPTY:
                log.warning("could not delete the emptied directory %s: %s", location, error)
            return False
        log.debug("deleted the emptied directory %s", location)
        return True

    def delete_contents(self, location: str) -> None:
        """Delete everything in a directory, keeping the directory; a missing directory is not an error. The
        caller has decided the contents may go (``services.directories``)."""
        filesystem, path = _resolve(location)
        try:
            filesystem.delete_dir_contents(path, missing_dir_ok=True)
            log.debug("emptied %s", location)
        except OSError as e:
            raise StorageError(f"Could not empty directory {location}", detail=str(e)) from e

    def rename(self, source: str, target: str) -> None:
        """Move a directory; the target's parent is created, an existing target is an error. On an object
        store, which has no rename, the objects are copied (in parallel, server-side), then the source's are
        deleted: a copy that fails takes back the copies it made and leaves the source whole."""
        filesystem, source_path = _resolve(source)
        _, target_path = _resolve(target)
        try:
            if filesystem.get_file_info(source_path).type == pafs.FileType.NotFound:
                return
            if isinstance(filesystem, pafs.LocalFileSystem):
                filesystem.create_dir(parent_of(target_path), recursive=True)
                filesystem.move(source_path, target_path)
                return
        except OSError as e:
            raise StorageError(f"Could not move {source} to {target}", detail=str(e)) from e
        self._copy_tree(filesystem, source_path, target_path, f"{source} to {target}")
        try:
            _delete_tree(filesystem, source_path)
        except OSError as e:
            log.error("moved %s to %s, but the objects left at the source could not be deleted: %s", source, target, e)

    @staticmethod
    def _copy_tree(filesystem: pafs.FileSystem, source_path: str, target_path: str, what: str) -> None:
        """Copy every object under ``source_path`` to the same place under ``target_path``, or none."""
        try:
            found = filesystem.get_file_info(pafs.FileSelector(source_path, recursive=True))
            files = [i.path for i in found if i.type == pafs.FileType.File]
            base = source_path.rstrip("/")

            def copy(path: str) -> None:
                filesystem.copy_file(path, target_path.rstrip("/") + path[len(base) :])

            with ThreadPoolExecutor(COPY_THREADS) as pool:
                list(pool.map(copy, files))
        except OSError as e:
            try:
                _delete_tree(filesystem, target_path)
            except OSError:
                log.error("the copies of a failed move of %s stay at %s", what, target_path)
            raise StorageError(f"Could not move {what}", detail=str(e)) from e

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
