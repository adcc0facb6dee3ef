"""The file-system reads the timeline readers share: joining a table-relative path, listing a folder,
reading a whole file, each failure as a typed error."""

from __future__ import annotations

from pyarrow import fs as pafs

from ..errors import HudiMetadataError, StorageError
from ..filesystems import open_location


def open_path(path: str) -> tuple[pafs.FileSystem, str]:
    """The file system and the path within it of a table location (local path or URI of any scheme
    ``hudi_catalog.filesystems`` takes).

    Raises:
        StorageError: an unsupported scheme, or a file system that cannot be opened.
    """
    return open_location(path)


def join(base_path: str, relative: str) -> str:
    """``relative`` (a path inside the table) under ``base_path``.

    >>> join("s3://bucket/trips/", ".hoodie/timeline")
    's3://bucket/trips/.hoodie/timeline'
    """
    return f"{base_path.rstrip('/')}/{relative}"


def list_dir(fs: pafs.FileSystem, path: str) -> list[pafs.FileInfo]:
    """The entries of a folder; none if it does not exist.

    Raises:
        StorageError: the file system failed.
    """
    try:
        return fs.get_file_info(pafs.FileSelector(path, allow_not_found=True))
    except OSError as e:
        raise StorageError(f"cannot list {path}", detail=str(e)) from e


def read_file(fs: pafs.FileSystem, path: str, missing: str) -> bytes:
    """The content of a file.

    Raises:
        HudiMetadataError: the file does not exist; ``missing`` is the message.
        StorageError: the file system failed.
    """
    try:
        with fs.open_input_stream(path) as stream:
            return stream.read()
    except FileNotFoundError as e:
        raise HudiMetadataError(missing) from e
    except OSError as e:
        raise StorageError(f"cannot read {path}", detail=str(e)) from e
