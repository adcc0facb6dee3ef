"""Thrift structs in Apache Thrift's ``TJSONProtocol`` text, as Java's ``TSerializer`` writes it; Hive's JSON
event messages embed their objects this way (thriftpy2's own JSON protocol writes another format).

The format: a struct is ``{"<field id>":{"<type tag>":value},...}`` in field order, unset fields left out;
lists and sets are ``["<element tag>",count,...]``; maps ``["<key tag>","<value tag>",count,{...}]`` with
every key a JSON string; booleans are 1 or 0; binaries base64 without padding. No whitespace: Java's reader
refuses it.

Example:
    >>> from hms_adapter.idl import hive
    >>> to_tjson(hive.FieldSchema(name="k", type="string"))
    '{"1":{"str":"k"},"2":{"str":"string"}}'
"""

from __future__ import annotations

import base64
import json
import math

from thriftpy2.thrift import TType

_TAGS = {
    TType.BOOL: "tf",
    TType.BYTE: "i8",
    TType.I16: "i16",
    TType.I32: "i32",
    TType.I64: "i64",
    TType.DOUBLE: "dbl",
    TType.STRING: "str",
    TType.STRUCT: "rec",
    TType.LIST: "lst",
    TType.SET: "set",
    TType.MAP: "map",
    TType.BINARY: "str",
}
_INTEGERS = (TType.BYTE, TType.I16, TType.I32, TType.I64)


def _double(value: float) -> str:
    if math.isnan(value):
        return '"NaN"'
    if math.isinf(value):
        return '"Infinity"' if value > 0 else '"-Infinity"'
    return repr(float(value))


def _value(ttype: int, spec, value) -> str:
    if ttype == TType.BOOL:
        return "1" if value else "0"
    if ttype in _INTEGERS:
        return str(int(value))
    if ttype == TType.DOUBLE:
        return _double(value)
    if ttype in (TType.STRING, TType.BINARY):
        if isinstance(value, (bytes, bytearray)):
            return '"' + base64.b64encode(bytes(value)).decode().rstrip("=") + '"'
        return json.dumps(value, ensure_ascii=False)
    if ttype == TType.STRUCT:
        return to_tjson(value)
    if ttype in (TType.LIST, TType.SET):
        element, element_spec = spec if isinstance(spec, tuple) else (spec, None)
        items = [_value(element, element_spec, v) for v in value]
        return "[" + ",".join([f'"{_TAGS[element]}"', str(len(items)), *items]) + "]"
    if ttype == TType.MAP:
        (key, key_spec), (val, val_spec) = (s if isinstance(s, tuple) else (s, None) for s in spec)
        entries = []
        for k, v in value.items():
            text = _value(key, key_spec, k)
            entries.append((text if text.startswith('"') else f'"{text}"') + ":" + _value(val, val_spec, v))
        return f'["{_TAGS[key]}","{_TAGS[val]}",{len(entries)},{{' + ",".join(entries) + "}]"
    raise ValueError(f"no TJSONProtocol form for Thrift type {ttype}")


def to_tjson(struct) -> str:
    """``struct`` (a thriftpy2 struct) in ``TJSONProtocol`` text."""
    fields = []
    for field_id, spec in sorted(struct.thrift_spec.items()):
        value = getattr(struct, spec[1], None)
        if value is None:
            continue
        ttype = spec[0]
        sub = spec[2] if len(spec) > 3 else None
        fields.append(f'"{field_id}":{{"{_TAGS[ttype]}":{_value(ttype, sub, value)}}}')
    return "{" + ",".join(fields) + "}"
