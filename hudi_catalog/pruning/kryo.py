"""Read the Kryo streams Hive serializes its expressions into: the format's primitives, classes and references.

Hive sends a partition expression (``get_partitions_by_expr`` and the calls like it) as a Java object graph
written by Kryo: Kryo 5 for Hive 4, Kryo 3 for Hive 2 and 3 (``KryoLayout``). The stream holds no schema;
what follows a class name is what that class's serializer wrote, so ``hive_expressions`` knows the classes
it reads and this module knows only the format:

- Variable-length integers: 7 bits a byte, low bits first, the high bit saying more follow (at most 5 bytes
  for an ``int``, 9 for a ``long``); signed fields use the zig-zag form. Fixed-width numbers are little-endian
  in Kryo 5 and big-endian in Kryo 3.
- Strings: an ASCII run whose last byte has its high bit set, or a length (plus one; 0 is null) followed by
  the characters as modified UTF-8 (UTF-16 code units, each one to three bytes).
- Classes: 0 for null, a registered class's id plus 2, or 1 followed by a name id and, the first time that
  id appears, the class name.
- References (Hive turns them on): before each object of a tracked class, 0 for null, 1 for a new object
  (numbered in the order they start), or a number plus 2 naming an object read before. Boxed primitives
  are not tracked, nor enums in Kryo 5: a nullable one is preceded by 0 or 1.

Every read checks the bytes left, so a truncated or forged stream raises ``KryoFormatError``, never reads past
its end, and a length never allocates more than the bytes could hold.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")

NULL = 0
NOT_NULL = 1
NAME = 1
"""The class tag that announces a class by name (Kryo's id -1, plus 2)."""


class KryoFormatError(ValueError):
    """The bytes are not a Kryo stream of the expected shape."""


@dataclass(frozen=True)
class KryoLayout:
    """What differs between the Kryo versions Hive uses."""

    name: str
    registered: dict[int, str]
    """Registered class ids and their Java class names (Kryo's defaults, then Hive's registrations)."""
    little_endian: bool
    java_time_serializers: bool
    enums_tracked: bool
    """Whether enums are numbered among the objects that references name (Kryo 3) or not (Kryo 5)."""
    """Whether ``java.time`` dates and times have Kryo's compact serializers (Kryo 5), or are written field by
    field (Kryo 3)."""


_KRYO_DEFAULTS = ("int", "java.lang.String", "float", "boolean", "byte", "char", "short", "long", "double")
_HIVE_REGISTERED = (
    "java.sql.Date",
    "java.sql.Timestamp",
    "org.apache.hadoop.hive.common.type.TimestampTZ",
    "org.apache.hadoop.fs.Path",
    "java.util.Arrays$ArrayList",
)
"""The first classes ``SerializationUtilities`` registers, in its order; those after them never appear in an
expression."""

KRYO5 = KryoLayout(
    name="Hive 4 (Kryo 5)",
    registered=dict(enumerate(_KRYO_DEFAULTS + _HIVE_REGISTERED)),
    little_endian=True,
    java_time_serializers=True,
    enums_tracked=False,
)
KRYO3 = KryoLayout(
    name="Hive 2/3 (Kryo 3)",
    registered=dict(enumerate((*_KRYO_DEFAULTS, "void", *_HIVE_REGISTERED))),
    little_endian=False,
    java_time_serializers=False,
    enums_tracked=True,
)

_PENDING = object()


class KryoReader:
    """A cursor over one Kryo stream, with the class names and objects read so far."""

    def __init__(self, data: bytes, layout: KryoLayout) -> None:
        self.data = memoryview(data)
        self.position = 0
        self.layout = layout
        self._names: dict[int, str] = {}
        self._objects: list[object] = []

    @property
    def remaining(self) -> int:
        return len(self.data) - self.position

    def _take(self, count: int) -> memoryview:
        if count < 0 or count > self.remaining:
            raise KryoFormatError(f"the stream ends at byte {len(self.data)}, {count} more were expected")
        start = self.position
        self.position += count
        return self.data[start : self.position]

    def raw(self, count: int) -> bytes:
        """``count`` bytes as they are."""
        return bytes(self._take(count))

    def byte(self) -> int:
        """One unsigned byte."""
        return self._take(1)[0]

    def signed_byte(self) -> int:
        value = self.byte()
        return value - 256 if value > 127 else value

    def boolean(self) -> bool:
        return self.byte() == 1

    def _fixed(self, size: int, code: str) -> int | float:
        order = "<" if self.layout.little_endian else ">"
        (value,) = struct.unpack(order + code, self._take(size))
        return value

    def short(self) -> int:
        return int(self._fixed(2, "h"))

    def char(self) -> str:
        return chr(int(self._fixed(2, "H")))

    def fixed_int(self) -> int:
        """A 4-byte ``int`` (not variable-length)."""
        return int(self._fixed(4, "i"))

    def fixed_long(self) -> int:
        """An 8-byte ``long`` (not variable-length)."""
        return int(self._fixed(8, "q"))

    def float32(self) -> float:
        return float(self._fixed(4, "f"))

    def float64(self) -> float:
        return float(self._fixed(8, "d"))

    def varint(self, zigzag: bool = False) -> int:
        """A variable-length ``int`` (zig-zag decoded when ``zigzag``), as a signed 32-bit value."""
        result = 0
        for shift in range(0, 35, 7):
            b = self.byte()
            result |= (b & 0x7F) << shift
            if not b & 0x80:
                break
        result &= 0xFFFFFFFF
        if zigzag:
            return (result >> 1) ^ -(result & 1)
        return result - (1 << 32) if result >= 1 << 31 else result

    def varlong(self, zigzag: bool = False) -> int:
        """A variable-length ``long``: 7 bits in each of the first eight bytes, all 8 in a ninth."""
        result = 0
        for shift in range(0, 56, 7):
            b = self.byte()
            result |= (b & 0x7F) << shift
            if not b & 0x80:
                break
        else:
            result |= self.byte() << 56
        result &= 0xFFFFFFFFFFFFFFFF
        if zigzag:
            return (result >> 1) ^ -(result & 1)
        return result - (1 << 64) if result >= 1 << 63 else result

    def length(self) -> int:
        """A non-negative count (``varint`` without zig-zag), checked against the bytes left."""
        count = self.varint()
        if count < 0 or count > self.remaining + 1:
            raise KryoFormatError(f"a count of {count} at byte {self.position} is more than the stream holds")
        return count

    def var_int_flag(self) -> tuple[bool, int]:
        """Kryo 5's count with a flag in the first byte's high bit."""
        first = self.byte()
        return bool(first & 0x80), self._after_flag(first)

    def _after_flag(self, first: int) -> int:
        """A count whose first byte keeps its high bit for a flag: six value bits there (0x40: more follow),
        then seven a byte."""
        result = first & 0x3F
        if first & 0x40:
            shift = 6
            while True:
                b = self.byte()
                result |= (b & 0x7F) << shift
                shift += 7
                if not b & 0x80 or shift > 34:
                    break
        return result

    def string(self) -> str | None:
        """A string: an ASCII run, or null, empty, or modified UTF-8 after its length."""
        first = self.byte()
        if not first & 0x80:
            start = self.position - 1
            while not self.byte() & 0x80:
                pass
            raw = bytearray(self.data[start : self.position])
            raw[-1] &= 0x7F
            return raw.decode("ascii")
        count = self._after_flag(first)
        if count == 0:
            return None
        return self._utf8(count - 1)

    def _utf8(self, units: int) -> str:
        if units > self.remaining:
            raise KryoFormatError(f"a string of {units} characters at byte {self.position} is longer than the stream")
        codes = []
        for _ in range(units):
            b = self.byte()
            top = b >> 4
            if top < 8:
                codes.append(b)
            elif top in (12, 13):
                codes.append((b & 0x1F) << 6 | (self.byte() & 0x3F))
            elif top == 14:
                codes.append((b & 0x0F) << 12 | (self.byte() & 0x3F) << 6 | (self.byte() & 0x3F))
            else:
                raise KryoFormatError(f"byte {b:#x} at {self.position - 1} does not start a character")
        text = b"".join(code.to_bytes(2, "little") for code in codes).decode("utf-16-le", errors="surrogatepass")
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            raise KryoFormatError(f"a string ending at byte {self.position} holds a lone surrogate") from None
        return text

    def class_name(self) -> str | None:
        """The next class: its Java name, or None for a null object."""
        tag = self.varint()
        if tag == NULL:
            return None
        if tag == NAME:
            name_id = self.varint()
            known = self._names.get(name_id)
            if known is not None:
                return known
            name = self.string()
            if not name:
                raise KryoFormatError(f"an empty class name at byte {self.position}")
            self._names[name_id] = name
            return name
        registered = self.layout.registered.get(tag - 2)
        if registered is None:
            raise KryoFormatError(f"class id {tag - 2} is not one an expression holds")
        return registered

    def tracked(self, read: Callable[[], T]) -> T | None:
        """An object of a tracked class: null, one read before, or a new one that ``read`` reads."""
        marker = self.varint()
        if marker == NULL:
            return None
        if marker == NOT_NULL:
            index = len(self._objects)
            self._objects.append(_PENDING)
            value = read()
            self._objects[index] = value
            return value
        index = marker - 2
        if not 0 <= index < len(self._objects) or self._objects[index] is _PENDING:
            raise KryoFormatError(f"reference {index} at byte {self.position} names no object read before")
        return self._objects[index]  # type: ignore[return-value]

    def untracked(self, read: Callable[[], T], nullable: bool) -> T | None:
        """A boxed primitive or an enum: a null marker first when ``nullable``, then its value."""
        if nullable and self.byte() == NULL:
            return None
        return read()
