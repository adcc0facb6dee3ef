"""``message_scan``: where a request ends and whether it may be decoded, on messages thriftpy2 encodes (every
split of their bytes) and on hostile ones, which are refused before any declared element is walked and at
the cost of scanning a small valid message, whatever they declare."""

from __future__ import annotations

import struct
import time

import pytest
from thriftpy2.protocol import TCompactProtocolFactory, TCyBinaryProtocolFactory
from thriftpy2.thrift import TMessageType
from thriftpy2.transport import TCyMemoryBuffer

from hms_adapter.message_scan import MAX_DEPTH, SCANNERS, HostileMessage, MessageTooLarge
from tests.conftest import hive
from tests.hms_adapter.helpers import cols, make_partition, make_table

LIMIT = 100 * 1024 * 1024
FACTORIES = {"binary": TCyBinaryProtocolFactory(), "compact": TCompactProtocolFactory()}
BINARY_HEADER = struct.pack(">I", 0x80010001) + struct.pack(">I", 14) + b"get_partitions" + struct.pack(">i", 1)
COMPACT_HEADER = bytes([0x82, 0x21, 1, 14]) + b"get_partitions"


def _encode(protocol: str, method: str, args) -> bytes:
    buffer = TCyMemoryBuffer()
    writer = FACTORIES[protocol].get_protocol(buffer)
    writer.write_message_begin(method, TMessageType.CALL, 7)
    args.write(writer)
    writer.write_message_end()
    return buffer.getvalue()


def _calls():
    service = hive.ThriftHiveMetastore
    table = make_table("db", "t", cols("id:bigint", "name:string"), partition_keys=cols("dt"), params={"a": "b"})
    table.privileges = hive.PrincipalPrivilegeSet(userPrivileges={"alice": [hive.PrivilegeGrantInfo("ALL", 1)]})
    parts = [make_partition("db", "t", [str(day)], params={"k": "v" * day}) for day in range(3)]
    return [
        ("get_all_databases", service.get_all_databases_args()),
        ("create_table", service.create_table_args(tbl=table)),
        ("add_partitions", service.add_partitions_args(new_parts=parts)),
        ("get_partitions_by_names", service.get_partitions_by_names_args("db", "t", ["dt=1", "dt=2"])),
        ("set_ugi", service.set_ugi_args("alice", ["staff", "wheel"])),
        ("alter_partitions", service.alter_partitions_args("db", "t", parts)),
    ]


@pytest.mark.parametrize("protocol", ["binary", "compact"])
def test_every_split_of_a_valid_message_ends_where_it_ends(protocol):
    for method, args in _calls():
        message = _encode(protocol, method, args)
        stream = message + message[:5]  # the next request's first bytes behind it
        scanner = SCANNERS[protocol](LIMIT)
        assert scanner.scan(stream) == len(message), method
        for cut in range(1, len(message)):  # the bytes arrive in two parts, split anywhere
            scanner.reset()
            assert scanner.scan(message[:cut]) is None, (method, cut)
            assert scanner.scan(stream) == len(message), (method, cut)
        scanner.reset()
        received = b""
        for byte in message:  # or one at a time
            received += bytes([byte])
            found = scanner.scan(received)
        assert found == len(message), method


def _binary_call(*fields: bytes) -> bytes:
    return BINARY_HEADER + b"".join(fields) + b"\x00"


def _binary_list(field: int, element: int, size: int) -> bytes:
    return struct.pack(">bhbi", 15, field, element, size)


BINARY_HOSTILE = {
    # the 38 bytes: a list of 2^31 - 1 VOID elements
    "void-list": _binary_call(_binary_list(1, 1, 2**31 - 1)),
    "stop-list": _binary_call(_binary_list(1, 0, 2**31 - 1)),
    "unknown-element": _binary_call(_binary_list(1, 99, 5)),
    "void-map": _binary_call(struct.pack(">bhbbi", 13, 1, 1, 1, 2**31 - 1)),
    "nested-void-lists": _binary_call(_binary_list(1, 15, 1000) + struct.pack(">bi", 1, 2**31 - 1) * 3),
    "list-beyond-the-budget": _binary_call(_binary_list(1, 8, LIMIT // 4 + 1)),
    "struct-list-beyond-the-budget": _binary_call(_binary_list(1, 12, LIMIT + 1)),
    "map-beyond-the-budget": _binary_call(struct.pack(">bhbbi", 13, 1, 11, 11, LIMIT // 8 + 1)),
    "string-beyond-the-budget": _binary_call(struct.pack(">bhi", 11, 1, LIMIT)),
    "negative-list": _binary_call(_binary_list(1, 8, -1)),
    "negative-string": _binary_call(struct.pack(">bhi", 11, 1, -5)),
    "unknown-field-type": _binary_call(struct.pack(">bh", 1, 1)),
    "too-deep": _binary_call(struct.pack(">bh", 12, 1) * (MAX_DEPTH + 1)),
    "bad-version": struct.pack(">I", 0x80020001) + b"\x00" * 20,
    "huge-name": struct.pack(">I", 0x80010001) + struct.pack(">I", 1 << 30) + b"x" * 30,
}


def _compact_call(*fields: bytes) -> bytes:
    return COMPACT_HEADER + b"".join(fields) + b"\x00"


def _varint(value: int) -> bytes:
    out = bytearray()
    while value > 0x7F:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


COMPACT_HOSTILE = {
    "stop-list": _compact_call(bytes([0x19, 0xF0]) + _varint(2**31 - 1)),
    "unknown-element": _compact_call(bytes([0x19, 0xFD]) + _varint(5)),
    "stop-map": _compact_call(bytes([0x1B]) + _varint(2**31 - 1) + bytes([0x00])),
    "nested-lists-beyond-the-budget": _compact_call(
        bytes([0x19, 0xF9]) + _varint(1000) + (b"\xf9" + _varint(LIMIT)) * 3
    ),
    "list-beyond-the-budget": _compact_call(bytes([0x19, 0xF7]) + _varint(LIMIT // 8 + 1)),
    "string-beyond-the-budget": _compact_call(bytes([0x18]) + _varint(LIMIT)),
    "unknown-field-type": _compact_call(bytes([0x1D])),
    "over-long-varint": _compact_call(bytes([0x15]) + b"\xff" * 6),
    "too-deep": _compact_call(bytes([0x1C]) * (MAX_DEPTH + 1)),
    "bad-protocol": bytes([0x80, 0x01, 0, 0]),
}


@pytest.mark.parametrize(
    ("protocol", "message"),
    [("binary", m) for m in BINARY_HOSTILE.values()] + [("compact", m) for m in COMPACT_HOSTILE.values()],
    ids=[f"binary-{name}" for name in BINARY_HOSTILE] + [f"compact-{name}" for name in COMPACT_HOSTILE],
)
def test_hostile_messages_are_refused_before_any_work(protocol, message):
    """Refused, and at no more than the cost of scanning a valid message of a kilobyte or so (the control,
    scanned alternately with it, in this process's CPU time: the quickest of the hostile runs against the
    slowest of the control's, with a margin for noise), whatever it declares: walking the declared items
    would cost thousands of times that."""
    scanner = SCANNERS[protocol](LIMIT)
    with pytest.raises(HostileMessage):
        scanner.scan(message)
    control = max((_encode(protocol, method, args) for method, args in _calls()), key=len)
    runs: dict[bytes, list[float]] = {message: [], control: []}
    for _ in range(5):
        for scanned in (control, message):
            started = time.process_time()
            for _ in range(100):
                scanner.reset()
                try:
                    scanner.scan(scanned)
                except HostileMessage:
                    pass
            runs[scanned].append(time.process_time() - started)
    assert min(runs[message]) <= 20 * max(runs[control]), runs


def test_a_message_larger_than_the_maximum_is_refused_once_it_is_past_it():
    message = _encode(
        "binary",
        "get_partitions_by_names",
        hive.ThriftHiveMetastore.get_partitions_by_names_args("db", "t", ["dt=%d" % day for day in range(1000)]),
    )
    assert SCANNERS["binary"](len(message)).scan(message) == len(message)
    scanner = SCANNERS["binary"](len(message) - 1)
    with pytest.raises(MessageTooLarge):  # one byte over: refused where it ends
        scanner.scan(message)
    unfinished = SCANNERS["binary"](1000)
    with pytest.raises(MessageTooLarge):  # a stream that never ends its struct: refused past the maximum
        unfinished.scan(_binary_call(struct.pack(">bhi", 8, 1, 5) * 200)[:-1])
