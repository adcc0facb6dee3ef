"""Iceberg's binary single-value serialization (the spec's appendix D), used by manifest bounds and partition
summaries, and the truncation of string and binary bounds.

Values come in their physical form: ``int`` for int, long, date (days), time (microseconds) and timestamps
(microseconds); ``Decimal`` for decimals; ``str``, ``bytes``, ``bool`` and ``float`` as themselves.

Example:
    >>> to_bytes("int", 10).hex(), to_bytes("long", -1).hex(), to_bytes("decimal(10,5)", Decimal("-1.00000")).hex()
    ('0a000000', 'ffffffffffffffff', 'fe7960')
    >>> truncate_lower("string", "abcdefghijklmnopqrstuvwxyz"), truncate_upper("string", "abcdefghijklmnopqrstuvwxyz")
    ('abcdefghijklmnop', 'abcdefghijklmnoq')
    >>> truncate_upper("binary", b"\\xff" * 20) is None
    True
"""

from __future__ import annotations

import struct
from decimal import Decimal
from typing import Any

TRUNCATE_LENGTH = 16
"""Strings (in code points) and binaries (in bytes) longer than this are truncated in bounds, as Iceberg's own
writers do by default."""

_LITTLE_ENDIAN = {"int": "<i", "date": "<i", "long": "<q", "time": "<q", "timestamp": "<q", "timestamptz": "<q"}
_MAX_CODE_POINT = 0x10FFFF
_SURROGATES = range(0xD800, 0xE000)


def to_bytes(iceberg_type: str, value: Any) -> bytes:
    """``value`` of a primitive Iceberg type in the single-value binary form.

    Raises:
        ValueError: the type has no single-value form here (nested types).
    """
    if iceberg_type == "boolean":
        return b"\x01" if value else b"\x00"
    if iceberg_type in _LITTLE_ENDIAN:
        return struct.pack(_LITTLE_ENDIAN[iceberg_type], value)
    if iceberg_type == "float":
        return struct.pack("<f", value)
    if iceberg_type == "double":
        return struct.pack("<d", value)
    if iceberg_type == "string":
        return str(value).encode("utf-8")
    if iceberg_type == "binary" or iceberg_type.startswith("fixed["):
        return bytes(value)
    if iceberg_type.startswith("decimal("):
        return _unscaled_bytes(value, int(iceberg_type[len("decimal(") : -1].split(",")[1]))
    raise ValueError(f"no single-value serialization for {iceberg_type}")


def _unscaled_bytes(value: Decimal | int, scale: int) -> bytes:
    """The unscaled value as two's-complement big-endian bytes, as few as hold it."""
    unscaled = value if isinstance(value, int) else int(value.scaleb(scale).to_integral_exact())
    length = max(1, (unscaled + (unscaled < 0)).bit_length() // 8 + 1)
    return unscaled.to_bytes(length, "big", signed=True)


def truncate_lower(iceberg_type: str, value: Any) -> Any:
    """A lower bound no longer than :data:`TRUNCATE_LENGTH` (a prefix is never greater than the value)."""
    if iceberg_type in ("string", "binary") and len(value) > TRUNCATE_LENGTH:
        return value[:TRUNCATE_LENGTH]
    return value


def truncate_upper(iceberg_type: str, value: Any) -> Any | None:
    """An upper bound no longer than :data:`TRUNCATE_LENGTH`: a prefix with its last unit incremented, so it
    stays above every value with that prefix; ``None`` when no such prefix exists (all units at their maximum)."""
    if iceberg_type not in ("string", "binary") or len(value) <= TRUNCATE_LENGTH:
        return value
    if iceberg_type == "binary":
        prefix = bytearray(value[:TRUNCATE_LENGTH])
        while prefix and prefix[-1] == 0xFF:
            prefix.pop()
        if not prefix:
            return None
        prefix[-1] += 1
        return bytes(prefix)
    chars = list(value[:TRUNCATE_LENGTH])
    while chars:
        code = ord(chars.pop()) + 1
        if code in _SURROGATES:
            code = _SURROGATES.stop
        if code <= _MAX_CODE_POINT:
            return "".join(chars) + chr(code)
    return None
