"""Writing the view's metadata files (manifests, manifest lists, table metadata, the version hint)."""

from __future__ import annotations

from pyarrow import fs as pafs

from ..errors import StorageError


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
