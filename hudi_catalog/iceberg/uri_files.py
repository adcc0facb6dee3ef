"""A file system that takes and gives full URIs (``s3://bucket/key``, ``hdfs://nn:8020/path``, ``file:/path``).

Iceberg metadata names every file by a URI its readers can open: data files, manifests, manifest lists,
metadata files. pyarrow's file systems take paths without the scheme (``bucket/key``). The view is written
through :func:`uri_file_system`, so the paths it builds from the table's location are URIs, and every one it
writes into metadata is the URI readers need.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlparse

from pyarrow import NativeFile
from pyarrow import fs as pafs

from ..filesystems import open_location


def uri_file_system(location: str) -> tuple[pafs.FileSystem, str]:
    """The file system of ``location`` and ``location`` as paths on it are named: a URI with a scheme stays
    as it is, on a file system that takes such URIs; a plain local path is made absolute.

    >>> uri_file_system("/tmp/../tmp/trips")[1]
    '/tmp/trips'
    >>> fs, base = uri_file_system("file:/tmp/trips")
    >>> base, fs.get_file_info("file:/tmp").path
    ('file:/tmp/trips', 'file:/tmp')
    """
    if "://" not in location and not location.startswith("file:"):
        return pafs.LocalFileSystem(), str(Path(location).resolve())
    location = location.rstrip("/")
    inner, path = open_location(location)
    tail = urlparse(location).path.rstrip("/")  # what the URI and the file system's path end alike in
    if not location.endswith(tail) or not path.endswith(tail):
        raise ValueError(f"cannot name files under {location} by URI: its file system calls it {path}")
    root = location[: len(location) - len(tail)]
    return pafs.PyFileSystem(_PrefixedHandler(inner, root, path[: len(path) - len(tail)])), location


class _PrefixedHandler(pafs.FileSystemHandler):
    """Passes calls to ``inner`` with the URI's root (``prefix``: scheme and authority) replaced by the file
    system's root for it (``inner_prefix``), and the reverse on the paths it answers: ``s3a://b`` is ``b``
    on S3; ``abfs://container@account.dfs.core.windows.net`` is ``container`` on ADLS; ``file:`` is empty."""

    def __init__(self, inner: pafs.FileSystem, prefix: str, inner_prefix: str = "") -> None:
        self.inner = inner
        self.prefix = prefix
        self.inner_prefix = inner_prefix

    def _in(self, path: str) -> str:
        return self.inner_prefix + path[len(self.prefix) :] if path.startswith(self.prefix) else path

    def _out(self, info: pafs.FileInfo) -> pafs.FileInfo:
        path = info.path
        if path.startswith(self.inner_prefix):
            path = self.prefix + path[len(self.inner_prefix) :]
        return pafs.FileInfo(path, info.type, mtime=info.mtime, size=info.size)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _PrefixedHandler) and (other.inner, other.prefix, other.inner_prefix) == (
            self.inner,
            self.prefix,
            self.inner_prefix,
        )

    def __ne__(self, other: object) -> bool:
        return not self == other

    def get_type_name(self) -> str:
        return f"uri+{self.inner.type_name}"

    def normalize_path(self, path: str) -> str:
        return path

    def get_file_info(self, paths: str | list[str]) -> list[pafs.FileInfo]:
        asked = [paths] if isinstance(paths, str) else paths
        return [self._out(info) for info in self.inner.get_file_info([self._in(p) for p in asked])]

    def get_file_info_selector(self, selector: pafs.FileSelector) -> list[pafs.FileInfo]:
        inner = pafs.FileSelector(self._in(selector.base_dir), selector.allow_not_found, selector.recursive)
        return [self._out(info) for info in self.inner.get_file_info(inner)]

    def create_dir(self, path: str, recursive: bool) -> None:
        self.inner.create_dir(self._in(path), recursive=recursive)

    def delete_dir(self, path: str) -> None:
        self.inner.delete_dir(self._in(path))

    def delete_dir_contents(self, path: str, missing_dir_ok: bool = False) -> None:
        self.inner.delete_dir_contents(self._in(path), missing_dir_ok=missing_dir_ok)

    def delete_root_dir_contents(self) -> None:
        raise OSError("refusing to delete the root of a file system")

    def delete_file(self, path: str) -> None:
        self.inner.delete_file(self._in(path))

    def move(self, src: str, dest: str) -> None:
        self.inner.move(self._in(src), self._in(dest))

    def copy_file(self, src: str, dest: str) -> None:
        self.inner.copy_file(self._in(src), self._in(dest))

    def open_input_stream(self, path: str) -> NativeFile:
        return self.inner.open_input_stream(self._in(path))

    def open_input_file(self, path: str) -> NativeFile:
        return self.inner.open_input_file(self._in(path))

    def open_output_stream(self, path: str, metadata: dict[str, str] | None = None) -> NativeFile:
        return self.inner.open_output_stream(self._in(path), metadata=metadata)

    def open_append_stream(self, path: str, metadata: dict[str, str] | None = None) -> NativeFile:
        return self.inner.open_append_stream(self._in(path), metadata=metadata)
