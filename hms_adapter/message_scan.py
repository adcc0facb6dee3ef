"""Where a Thrift message ends, and whether it may be decoded: a scan of its bytes as they arrive.

Thrift's buffered transport does not say how long a message is, and thriftpy2 decodes what a message
declares before it knows that the bytes are there: a 38-byte request declaring a list of 2^31 ``VOID``
elements keeps its skip loop busy for seconds with the GIL held. The server therefore reads each request
whole before a serving thread decodes it, and these scanners walk its bytes first, as they arrive, one
pass in all however the bytes are split:

- they tell where the message ends (``MessageScanner.scan`` answers its length once it is whole);
- they refuse, before any of the declared elements is read, a string or container that cannot fit what is
  left of the ``--max-message-size`` budget (its count times the smallest encoding of its element type),
  a container of ``STOP``, ``VOID`` or unknown element type, an unknown field type, a negative length,
  nesting deeper than libthrift's default (64) and an over-long varint (compact protocol).

So a message the scanners let through costs the decoder work in proportion to its bytes, and every byte a
client sends is looked at once. ``BinaryScanner`` reads Thrift's binary protocol (strict and old-style
message headers), ``CompactScanner`` its compact protocol.
"""

from __future__ import annotations

import struct

MAX_DEPTH = 64
"""Structs and containers nested at most this deep (libthrift's and thriftpy2's default recursion limit)."""

_I16 = struct.Struct(">h").unpack_from
_I32 = struct.Struct(">i").unpack_from

# binary protocol type ids -> the smallest encoding of a value of that type (STOP, VOID and unknown ids: none)
_BINARY_STRUCT, _BINARY_MAP, _BINARY_SET, _BINARY_LIST, _BINARY_STRING = 12, 13, 14, 15, 11
_BINARY_FIXED = {2: 1, 3: 1, 4: 8, 6: 2, 8: 4, 10: 8}
"""bool, byte, double, i16, i32, i64: their width."""
_BINARY_WIDTHS = [_BINARY_FIXED.get(ttype, 0) for ttype in range(256)]
_BINARY_SMALLEST = {
    **_BINARY_FIXED,
    _BINARY_STRING: 4,
    _BINARY_STRUCT: 1,
    _BINARY_MAP: 6,
    _BINARY_SET: 5,
    _BINARY_LIST: 5,
}

# compact protocol type ids
_COMPACT_BOOLS = (1, 2)
_COMPACT_BYTE, _COMPACT_DOUBLE, _COMPACT_BINARY = 3, 7, 8
_COMPACT_VARINTS = {4: 3, 5: 5, 6: 10}
"""i16, i32, i64: the most bytes of their varint."""
_COMPACT_LIST, _COMPACT_SET, _COMPACT_MAP, _COMPACT_STRUCT = 9, 10, 11, 12
_COMPACT_SMALLEST = {1: 1, 2: 1, 3: 1, 4: 1, 5: 1, 6: 1, 7: 8, 8: 1, 9: 1, 10: 1, 11: 1, 12: 1}


class HostileMessage(Exception):
    """The bytes are not a Thrift message the server will decode; ``str()`` says why, for the log."""


class MessageTooLarge(HostileMessage):
    """A message declared, or sent, more than the maximum message size."""


class _Container:
    """A list, set or map being scanned: the types of its items and how many are left."""

    __slots__ = ("key", "value", "left")

    def __init__(self, key: int, value: int, left: int) -> None:
        self.key = key
        self.value = value
        self.left = left
        """Items still to come; a map's are its keys and values, alternately (an even count: a key next)."""


_STRUCT = None
"""A struct being scanned, on the stack: its fields come until ``STOP``."""


class MessageScanner:
    """The scan of one connection's messages: ``scan(data)`` with the bytes received of the current message
    so far (more each time), until it answers the message's length; then ``reset()`` for the next one.

    The scan resumes where it stopped, so a message is walked once however its bytes arrive.
    """

    def __init__(self, max_message_size: int) -> None:
        self.max_message_size = max_message_size
        self.reset()

    def reset(self) -> None:
        """The next message starts (at offset 0 of the data ``scan`` is given)."""
        self._pos = 0
        self._header_done = False
        self._stack: list[_Container | None] = []

    def scan(self, data: bytes | bytearray) -> int | None:
        """The length of the message at the start of ``data`` when it is whole there, else None (more bytes
        are needed). Raises ``HostileMessage`` for a message that may not be decoded, and
        ``MessageTooLarge`` as soon as it cannot end within the maximum message size."""
        end = len(data)
        if not self._header_done:
            pos = self._header(data, end)
            if pos is None:
                self._check_size(end)
                return None
            self._pos, self._header_done = pos, True
            self._stack.append(_STRUCT)
        self._pos = self._walk(data, self._pos, end)
        if self._stack:
            self._check_size(end)
            return None
        self._check_size(self._pos)
        return self._pos

    def _check_size(self, received: int) -> None:
        if received > self.max_message_size:
            raise MessageTooLarge(f"a request of more than {self.max_message_size} bytes")

    def _fits(self, what: str, declared: int, smallest: int, pos: int) -> None:
        """Refuse a count of ``declared`` items of at least ``smallest`` bytes each starting at ``pos``
        that cannot fit what is left of the maximum message size."""
        if declared < 0:
            raise HostileMessage(f"a {what} of negative size {declared}")
        if declared * smallest > self.max_message_size - pos:
            raise MessageTooLarge(
                f"a request declared a {what} of {declared} items of {smallest} bytes or more at byte {pos}, "
                f"over the maximum message size of {self.max_message_size}"
            )

    def _nested(self) -> None:
        if len(self._stack) >= MAX_DEPTH:
            raise HostileMessage(f"structs and containers nested deeper than {MAX_DEPTH}")

    def _rewind(self, top: _Container | None, start: int) -> int:
        """An item is not whole yet: scan it again from ``start`` when more bytes came."""
        if top is not None:
            top.left += 1
        return start

    def _header(self, data: bytes | bytearray, end: int) -> int | None:
        """Where the message's argument struct starts, once its header is there."""
        raise NotImplementedError

    def _walk(self, data: bytes | bytearray, pos: int, end: int) -> int:
        """Scan from ``pos`` as far as the items whole in ``data[:end]`` go; the position reached."""
        raise NotImplementedError


class BinaryScanner(MessageScanner):
    """Thrift's binary protocol."""

    def _header(self, data: bytes | bytearray, end: int) -> int | None:
        if end < 4:
            return None
        first = _I32(data, 0)[0]
        if first < 0:  # strict: version and type, name, sequence id
            if first & 0xFFFF0000 != 0x80010000:
                raise HostileMessage(f"bad protocol version {first & 0xFFFFFFFF:#x}")
            if end < 8:
                return None
            length = _I32(data, 4)[0]
            self._fits("method name", length, 1, 8)
            after = 8 + length + 4
        else:  # old style: name, type, sequence id
            self._fits("method name", first, 1, 4)
            after = 4 + first + 5
        return after if end >= after else None

    def _walk(self, data: bytes | bytearray, pos: int, end: int) -> int:
        stack = self._stack
        widths = _BINARY_WIDTHS
        limit = self.max_message_size
        while stack:
            top = stack[-1]
            if top is None:  # a struct: its fields, strings and fixed-width ones in this loop
                while True:
                    if pos >= end:
                        return pos
                    ttype = data[pos]
                    if ttype == _BINARY_STRING:
                        if pos + 7 > end:
                            return pos
                        length = _I32(data, pos + 3)[0]
                        if length < 0 or length > limit - pos - 7:
                            self._fits("string", length, 1, pos + 7)
                        if pos + 7 + length > end:
                            return pos
                        pos += 7 + length
                        continue
                    width = widths[ttype]
                    if not width:
                        break
                    if pos + 3 + width > end:
                        return pos
                    pos += 3 + width
                if ttype == 0:
                    stack.pop()
                    pos += 1
                    continue
                start = pos
                pos += 3
            else:
                left = top.left
                if left == 0:
                    stack.pop()
                    continue
                ttype = top.value if left & 1 or top.key == top.value else top.key
                width = widths[ttype]
                if width and top.key == top.value:  # a run of fixed-width elements at once
                    count = min(left, (end - pos) // width)
                    if count == 0:
                        return pos
                    pos += count * width
                    top.left = left - count
                    continue
                if ttype == _BINARY_STRING and top.key == top.value:  # a run of strings
                    while left:
                        if pos + 4 > end:
                            break
                        length = _I32(data, pos)[0]
                        if length < 0 or length > limit - pos - 4:
                            self._fits("string", length, 1, pos + 4)
                        if pos + 4 + length > end:
                            break
                        pos += 4 + length
                        left -= 1
                    top.left = left
                    if left:
                        return pos
                    continue
                start = pos
                top.left = left - 1
                if width:
                    pos += width
                    if pos > end:
                        top.left = left
                        return start
                    continue
            if ttype == _BINARY_STRING:
                if pos + 4 > end:
                    return self._rewind(top, start)
                length = _I32(data, pos)[0]
                if length:
                    self._fits("string", length, 1, pos + 4)
                pos += 4 + length
                if pos > end:
                    return self._rewind(top, start)
            elif ttype == _BINARY_STRUCT:
                self._nested()
                stack.append(_STRUCT)
            elif ttype == _BINARY_LIST or ttype == _BINARY_SET:
                if pos + 5 > end:
                    return self._rewind(top, start)
                element = data[pos]
                size = _I32(data, pos + 1)[0]
                smallest = _BINARY_SMALLEST.get(element)
                if smallest is None:
                    raise HostileMessage(f"a list or set of element type {element}")
                self._fits("list", size, smallest, pos + 5)
                self._nested()
                stack.append(_Container(element, element, size))
                pos += 5
            elif ttype == _BINARY_MAP:
                if pos + 6 > end:
                    return self._rewind(top, start)
                key, value = data[pos], data[pos + 1]
                size = _I32(data, pos + 2)[0]
                key_size, value_size = _BINARY_SMALLEST.get(key), _BINARY_SMALLEST.get(value)
                if key_size is None or value_size is None:
                    raise HostileMessage(f"a map of key type {key} and value type {value}")
                self._fits("map", size, key_size + value_size, pos + 6)
                self._nested()
                stack.append(_Container(key, value, 2 * size))
                pos += 6
            else:
                raise HostileMessage(f"a value of unknown type {ttype}")
        return pos


class CompactScanner(MessageScanner):
    """Thrift's compact protocol."""

    def _varint(self, data: bytes | bytearray, pos: int, end: int, most: int) -> tuple[int, int] | None:
        """The unsigned varint at ``pos`` and where it ends, or None when it is not whole yet."""
        result = shift = 0
        for index in range(pos, min(end, pos + most)):
            byte = data[index]
            result |= (byte & 0x7F) << shift
            if byte < 0x80:
                return result, index + 1
            shift += 7
        if end >= pos + most:
            raise HostileMessage(f"a varint longer than {most} bytes")
        return None

    def _header(self, data: bytes | bytearray, end: int) -> int | None:
        if end < 2:
            return None
        if data[0] != 0x82 or data[1] & 0x1F != 1:
            raise HostileMessage(f"bad protocol id or version {data[0]:#x} {data[1]:#x}")
        seqid = self._varint(data, 2, end, 5)
        if seqid is None:
            return None
        length = self._varint(data, seqid[1], end, 5)
        if length is None:
            return None
        self._fits("method name", length[0], 1, length[1])
        after = length[1] + length[0]
        return after if end >= after else None

    def _walk(self, data: bytes | bytearray, pos: int, end: int) -> int:
        stack = self._stack
        varint = self._varint
        while stack:
            top = stack[-1]
            start = pos
            if top is None:
                if pos >= end:
                    return pos
                header = data[pos]
                if header == 0:
                    stack.pop()
                    pos += 1
                    continue
                ttype = header & 0x0F
                pos += 1
                if header < 0x10:  # no delta: the field id follows as a varint
                    field = varint(data, pos, end, 3)
                    if field is None:
                        return start
                    pos = field[1]
                if ttype in _COMPACT_BOOLS:  # a bool field's value is its type
                    continue
            else:
                left = top.left
                if left == 0:
                    stack.pop()
                    continue
                ttype = top.value if left & 1 or top.key == top.value else top.key
                top.left = left - 1
                if ttype in _COMPACT_BOOLS:  # in a container a bool is a byte
                    ttype = _COMPACT_BYTE
            most = _COMPACT_VARINTS.get(ttype)
            if most is not None:
                number = varint(data, pos, end, most)
                if number is None:
                    return self._rewind(top, start)
                pos = number[1]
            elif ttype == _COMPACT_BYTE or ttype == _COMPACT_DOUBLE:
                pos += 1 if ttype == _COMPACT_BYTE else 8
                if pos > end:
                    return self._rewind(top, start)
            elif ttype == _COMPACT_BINARY:
                length = varint(data, pos, end, 5)
                if length is None:
                    return self._rewind(top, start)
                if length[0]:
                    self._fits("string", length[0], 1, length[1])
                pos = length[1] + length[0]
                if pos > end:
                    return self._rewind(top, start)
            elif ttype == _COMPACT_STRUCT:
                self._nested()
                stack.append(_STRUCT)
            elif ttype == _COMPACT_LIST or ttype == _COMPACT_SET:
                if pos >= end:
                    return self._rewind(top, start)
                element, size = data[pos] & 0x0F, data[pos] >> 4
                pos += 1
                if size == 15:
                    declared = varint(data, pos, end, 5)
                    if declared is None:
                        return self._rewind(top, start)
                    size, pos = declared
                smallest = _COMPACT_SMALLEST.get(element)
                if smallest is None:
                    raise HostileMessage(f"a list or set of element type {element}")
                self._fits("list", size, smallest, pos)
                self._nested()
                stack.append(_Container(element, element, size))
            elif ttype == _COMPACT_MAP:
                declared = varint(data, pos, end, 5)
                if declared is None:
                    return self._rewind(top, start)
                size, pos = declared
                if size:
                    if pos >= end:
                        return self._rewind(top, start)
                    key, value = data[pos] >> 4, data[pos] & 0x0F
                    pos += 1
                    key_size, value_size = _COMPACT_SMALLEST.get(key), _COMPACT_SMALLEST.get(value)
                    if key_size is None or value_size is None:
                        raise HostileMessage(f"a map of key type {key} and value type {value}")
                    self._fits("map", size, key_size + value_size, pos)
                    self._nested()
                    stack.append(_Container(key, value, 2 * size))
            else:
                raise HostileMessage(f"a value of unknown type {ttype}")
        return pos


SCANNERS: dict[str, type[MessageScanner]] = {"binary": BinaryScanner, "compact": CompactScanner}
"""The scanner of each ``--protocol``."""
