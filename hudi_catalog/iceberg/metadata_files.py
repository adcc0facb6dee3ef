"""Writing Iceberg metadata files (manifests, manifest lists, table metadata, the version hint) and their folder."""

from __future__ import annotations

from pyarrow import fs as pafs

from ..errors import StorageError
from ..filesystems import is_local


def write_file(fs: pafs.FileSystem, path: str, data: bytes) -> int:
    """Write ``data`` as the whole file ``path``; the number of bytes written.

    Raises:
        StorageError: the store failed or refused the write (throttled past its retries, unreachable, a key
            not allowed there); nothing that points at the file has been published.
    """
    try:
        with fs.open_output_stream(path) as out:
            out.write(data)
    except OSError as e:
        raise StorageError(f"Could not write the Iceberg metadata file {path}", detail=str(e)) from e
    return len(data)


def make_folder(fs: pafs.FileSystem, path: str) -> None:
    """Make the folder metadata files go to, on a local disk; an object store needs none (its objects are
    written under any prefix), and gets no markers for the folder and each of its parents.

    Raises:
        StorageError: the folder cannot be made.
    """
    if not is_local(fs):
        return
    try:
        fs.create_dir(path, recursive=True)
    except OSError as e:
        raise StorageError(f"Could not create the Iceberg metadata folder {path}", detail=str(e)) from e
