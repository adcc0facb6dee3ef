"""Avro object container files built from records already encoded, and read back as encoded records.

The view writes its manifests and manifest lists itself, record by record (``manifest_codec.py``), so that a
commit can copy the records it does not change as bytes instead of decoding and re-encoding them. Avro's
container format (header, then blocks of ``count``, ``size``, data and the file's sync marker) is followed as
the specification gives it; two things are the view's own, and readers ignore both:

- the header carries :data:`RECORD_LENGTHS_KEY`: the length of every record, in file order, so that a block's
  data splits into its records without decoding them;
- a file may be written with the sync marker of the file it was derived from, so that blocks of that file are
  copied whole, still compressed (:class:`Block`).

Example:
    >>> data = write_container('"string"', {"k": "v"}, [Block.encode([b"\\x02a", b"\\x02b"])])
    >>> container = read_container(data)
    >>> container.metadata["k"], [bytes(r) for r in container.blocks[0].records()]
    ('v', [b'\\x02a', b'\\x02b'])
"""

from __future__ import annotations

import os
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from .errors import ViewMetadataError

MAGIC = b"Obj\x01"
CODEC = "deflate"
RECORD_LENGTHS_KEY = "hudi.record-lengths"
"""Header key: the byte length of every record, in file order, comma-separated."""
_SYNC_SIZE = 16
_DEFLATE_LEVEL = 1
"""zlib's fastest level: on manifests of varied file metrics it deflates 2.5 times as fast as the default (6)
for files about 4 % larger; every commit deflates each manifest it writes."""


def encode_long(value: int) -> bytes:
    """An Avro ``int`` or ``long``: zig-zag, then base-128 varint.

    >>> encode_long(0), encode_long(-1), encode_long(64), encode_long(1 << 40) == _encode_long(1 << 40)
    (b'\\x00', b'\\x01', b'\\x80\\x01', True)
    """
    if 0 <= value < _SMALL_LONGS:
        return _SMALL[value]
    return _encode_long(value)


def _encode_long(value: int) -> bytes:
    n = (value << 1) ^ (value >> 63)
    if n < 0x80:
        return bytes((n,))
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


_SMALL_LONGS = 1 << 13
_SMALL = [_encode_long(n) for n in range(_SMALL_LONGS)]
"""The encodings of the small non-negative numbers that field ids, counts and lengths mostly are."""


def encode_bytes(value: bytes) -> bytes:
    """An Avro ``bytes`` (or ``string`` once UTF-8 encoded): length, then the bytes."""
    return encode_long(len(value)) + value


def read_long(data: bytes | memoryview, pos: int) -> tuple[int, int]:
    """The Avro ``int`` or ``long`` at ``pos``, and the position after it."""
    byte = data[pos]
    pos += 1
    n = byte & 0x7F
    shift = 7
    while byte & 0x80:
        byte = data[pos]
        pos += 1
        n |= (byte & 0x7F) << shift
        shift += 7
    return (n >> 1) ^ -(n & 1), pos


def read_bytes(data: bytes | memoryview, pos: int) -> tuple[bytes, int]:
    """The Avro ``bytes`` or ``string`` (undecoded) at ``pos``, and the position after it."""
    length, pos = read_long(data, pos)
    return bytes(data[pos : pos + length]), pos + length


@dataclass
class Block:
    """One container block: ``count`` records, deflated, with their lengths (needed to split it again)."""

    count: int
    compressed: bytes
    lengths: list[int]
    _records: list[bytes] | None = field(default=None, repr=False)

    @classmethod
    def encode(cls, records: Sequence[bytes]) -> Block:
        """A block of ``records`` (Avro binary, one per record)."""
        deflater = zlib.compressobj(_DEFLATE_LEVEL, zlib.DEFLATED, -15)
        compressed = deflater.compress(b"".join(records)) + deflater.flush()
        return cls(len(records), compressed, [len(r) for r in records], list(records))

    def records(self) -> list[bytes]:
        """The block's records, each as its Avro binary (inflated once, then kept)."""
        if self._records is None:
            try:
                data = zlib.decompress(self.compressed, -15)
            except zlib.error as e:
                raise ViewMetadataError(f"a corrupt Avro block: {e}") from e
            records, pos = [], 0
            for length in self.lengths:
                records.append(data[pos : pos + length])
                pos += length
            if pos != len(data):
                raise ViewMetadataError("an Avro block's records do not add up to its size")
            self._records = records
        return self._records


@dataclass(frozen=True)
class Container:
    """An Avro container file as read: its header metadata, sync marker and blocks (still compressed), or
    ``None`` for blocks when it was not written by the view (no :data:`RECORD_LENGTHS_KEY`, or another codec)."""

    metadata: dict[str, str]
    sync: bytes
    blocks: list[Block] | None


def write_container(
    schema_json: str, metadata: dict[str, str], blocks: Iterable[Block], sync: bytes | None = None
) -> bytes:
    """The bytes of a container file with ``blocks``, deflated; ``sync`` is the marker of the file whose blocks
    are copied (a new one otherwise)."""
    blocks = list(blocks)
    sync = sync or os.urandom(_SYNC_SIZE)
    lengths = ",".join(str(length) for block in blocks for length in block.lengths)
    header = {**metadata, "avro.schema": schema_json, "avro.codec": CODEC, RECORD_LENGTHS_KEY: lengths}
    out = [MAGIC, encode_long(len(header))]
    for key, value in header.items():
        out.append(encode_bytes(key.encode("utf-8")))
        out.append(encode_bytes(value.encode("utf-8")))
    out.append(b"\x00")
    out.append(sync)
    for block in blocks:
        if block.count:
            out.extend((encode_long(block.count), encode_long(len(block.compressed)), block.compressed, sync))
    return b"".join(out)


def read_container(data: bytes) -> Container:
    """Split a container file into its header and blocks.

    Raises:
        ViewMetadataError: not an Avro container file, or a truncated one.
    """
    if data[:4] != MAGIC:
        raise ViewMetadataError("not an Avro container file")
    try:
        metadata, pos = _read_metadata(data, 4)
        sync = data[pos : pos + _SYNC_SIZE]
        pos += _SYNC_SIZE
        lengths_text = metadata.get(RECORD_LENGTHS_KEY)
        if lengths_text is None or metadata.get("avro.codec") != CODEC:
            return Container(metadata, sync, None)
        lengths = [int(n) for n in lengths_text.split(",")] if lengths_text else []
        blocks, taken = [], 0
        while pos < len(data):
            count, pos = read_long(data, pos)
            size, pos = read_long(data, pos)
            compressed = data[pos : pos + size]
            pos += size
            if data[pos : pos + _SYNC_SIZE] != sync or len(compressed) != size:
                raise ViewMetadataError("an Avro block does not end with the file's sync marker")
            pos += _SYNC_SIZE
            blocks.append(Block(count, compressed, lengths[taken : taken + count]))
            taken += count
    except IndexError as e:
        raise ViewMetadataError("a truncated Avro container file") from e
    if taken != len(lengths):
        raise ViewMetadataError("an Avro file's record lengths do not match its blocks")
    return Container(metadata, sync, blocks)


def _read_metadata(data: bytes, pos: int) -> tuple[dict[str, str], int]:
    metadata: dict[str, str] = {}
    while True:
        count, pos = read_long(data, pos)
        if count == 0:
            return metadata, pos
        if count < 0:
            count = -count
            _, pos = read_long(data, pos)  # the block's size in bytes
        for _ in range(count):
            key, pos = read_bytes(data, pos)
            value, pos = read_bytes(data, pos)
            metadata[key.decode("utf-8")] = value.decode("utf-8")
