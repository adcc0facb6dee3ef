"""Decode the partition expressions Hive serializes (``ExprNodeDesc`` trees written by Kryo) into a small tree.

Hive's clients send ``get_partitions_by_expr``, ``get_partition_names_req``, ``get_partitions_spec_by_expr``
and ``drop_partitions_req`` the expression its planner made, serialized by Hive's ``SerializationUtilities``:

- Hive 4 writes the class first (Kryo 5, ``writeClassAndObject``): the stream opens with the class name of
  the root node;
- Hive 2 and 3 write an ``ExprNodeGenericFuncDesc`` without its class (Kryo 3, ``writeObject``): the stream
  opens with the object's reference marker and its first field, the children list's class.

The tree is read field by field with the layouts of ``hive_expression_classes`` into ``Column``,
``Constant`` and ``Call`` nodes; ``expression_filter`` turns those into the pruning's filter. Reading is
bounded like a filter string: the stream's size by ``FilterLimits.max_length`` (bytes), its nodes by
``max_terms``, and its nesting by ``MAX_DEPTH`` objects. Anything else (a class not listed, a stream that
does not parse) raises ``UnsupportedExpressionError``.

Example (Hive 4's bytes for ``ds = '2024'`` decode to)::

    Call("=", (Column("ds", "string"), Constant("2024", "string")), "boolean")
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from ..errors import UnsupportedExpressionError
from .hive_expression_classes import (
    COMMON,
    ENUMS,
    HIVE3_FIELDS,
    HIVE4_FIELDS,
    PLAN,
    TYPES,
    UDF,
    Fields,
)
from .kryo import KRYO3, KRYO5, KryoFormatError, KryoReader
from .parse import FilterLimits

MAX_DEPTH = 128
"""Objects nested in objects (an expression level is about four: call, children list, child, its type)."""


@dataclass(frozen=True)
class Column:
    """A column (a partition key, in a partition expression) and its Hive type."""

    name: str
    type_name: str


@dataclass(frozen=True)
class Constant:
    """A constant: ``str``, ``int``, ``float``, ``bool``, ``Decimal``, ``date``, ``datetime`` or None."""

    value: Any
    type_name: str


@dataclass(frozen=True)
class Call:
    """A function of Hive's registry by its name (``=``, ``and``, ``in``, ``between``, ``isnull``, ``like``,
    ``date``...) over its arguments, as Hive orders them."""

    function: str
    children: tuple[Node, ...]
    type_name: str


Node = Column | Constant | Call

_FUNCTIONS = {
    "GenericUDFOPEqual": "=",
    "GenericUDFOPNotEqual": "<>",
    "GenericUDFOPLessThan": "<",
    "GenericUDFOPEqualOrLessThan": "<=",
    "GenericUDFOPGreaterThan": ">",
    "GenericUDFOPEqualOrGreaterThan": ">=",
    "GenericUDFOPEqualNS": "<=>",
    "GenericUDFOPNotEqualNS": "is distinct from",
    "GenericUDFOPAnd": "and",
    "GenericUDFOPOr": "or",
    "GenericUDFOPNot": "not",
    "GenericUDFIn": "in",
    "GenericUDFBetween": "between",
    "GenericUDFOPNull": "isnull",
    "GenericUDFOPNotNull": "isnotnull",
    "GenericUDFOPTrue": "istrue",
    "GenericUDFOPFalse": "isfalse",
    "GenericUDFOPNotTrue": "isnottrue",
    "GenericUDFOPNotFalse": "isnotfalse",
    "GenericUDFToDate": "date",
    "GenericUDFToVarchar": "varchar",
    "GenericUDFToChar": "char",
    "GenericUDFToDecimal": "decimal",
    "GenericUDFTimestamp": "timestamp",
    "GenericUDFToString": "string",
}
"""Hive's function name of each ``GenericUDF`` class read (in ``org.apache.hadoop.hive.ql.udf.generic``)."""
_BRIDGED = {"org.apache.hadoop.hive.ql.udf.UDFLike": "like"}
"""Old-style UDFs behind ``GenericUDFBridge`` known by their class; others go by the bridge's ``udfName``."""

_BOXED = frozenset({"int", "long", "short", "byte", "float", "double", "boolean", "char"})
"""The boxed primitives (registered as the primitives), which Kryo writes without reference markers."""
_LISTS = frozenset({"java.util.ArrayList", "java.util.LinkedList"})


@dataclass
class _JavaObject:
    """An object read field by field."""

    class_name: str
    fields: dict[str, Any]


class _Decoder:
    def __init__(self, data: bytes, limits: FilterLimits) -> None:
        hive4 = len(data) > 1 and data[0] == 1 and data[1] == 0
        self.reader = KryoReader(data, KRYO5 if hive4 else KRYO3)
        self.hive4 = hive4
        self.layouts = HIVE4_FIELDS if hive4 else HIVE3_FIELDS
        self.untracked = _BOXED if self.reader.layout.enums_tracked else _BOXED | ENUMS
        self.max_terms = limits.max_terms
        self.terms = 0
        self.depth = 0

    def root(self) -> Node:
        if self.hive4:
            value = self.class_and_object()
        else:
            value = self.value_of(PLAN + "ExprNodeGenericFuncDesc")
        if self.reader.remaining:
            raise KryoFormatError(f"{self.reader.remaining} bytes follow the expression")
        return self.node(value)

    # Kryo's objects

    def class_and_object(self) -> Any:
        """A value written with its class (``writeClassAndObject``, and fields of non-final types)."""
        class_name = self.reader.class_name()
        return None if class_name is None else self.value_of(class_name)

    def value_of(self, class_name: str) -> Any:
        """A value of a known class written without its class (``writeObject``): no null marker."""
        if class_name in self.untracked:
            return self.body(class_name)
        return self.reader.tracked(lambda: self.body(class_name))

    def nullable_value_of(self, class_name: str) -> Any:
        """A field of a final declared type (``writeObjectOrNull``), or a list element that may be null."""
        if class_name in self.untracked:
            return self.reader.untracked(lambda: self.body(class_name), nullable=True)
        return self.reader.tracked(lambda: self.body(class_name))

    def body(self, class_name: str) -> Any:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise UnsupportedExpressionError(
                f"the expression nests more than {MAX_DEPTH} objects deep; this metastore does not read it"
            )
        try:
            return self._body(class_name)
        finally:
            self.depth -= 1

    def _body(self, class_name: str) -> Any:  # noqa: PLR0911 - one return per serializer
        reader = self.reader
        primitive = _PRIMITIVES.get(class_name)
        if primitive is not None:
            return primitive(reader)
        if class_name in ENUMS:
            return reader.varint() - 1
        if class_name == "java.lang.String":
            return reader.string()
        if class_name in _LISTS:
            return self.list_body()
        if class_name == "java.util.Arrays$ArrayList":
            count = reader.length()
            reader.class_name()  # the array's component type
            return [self.class_and_object() for _ in range(count)]
        if class_name.startswith("["):
            return self.array_body(class_name)
        if class_name.startswith("java.time."):
            return self.java_time(class_name)
        if class_name in ("java.sql.Timestamp", "java.sql.Date"):
            return self.sql_time(class_name)
        layout = self.layouts.get(class_name)
        if layout is None:
            raise UnsupportedExpressionError(_not_read(f"a {class_name}"))
        return _JavaObject(class_name, self.fields(layout))

    def fields(self, layout: Fields) -> dict[str, Any]:
        values: dict[str, Any] = {}
        for name, kind in layout:
            if kind == "object":
                values[name] = self.class_and_object()
            elif kind.startswith("="):
                values[name] = self.nullable_value_of(kind[1:])
            else:
                values[name] = _PRIMITIVES[kind](self.reader)
        return values

    def array_body(self, class_name: str) -> bytes | list[Any] | None:
        """An array: its length plus one (0 for null), then its elements."""
        reader = self.reader
        count = reader.length() - 1
        if count < 0:
            return None
        if class_name == "[B":
            return reader.raw(count)
        if class_name == "[J":
            return [reader.varlong(zigzag=True) for _ in range(count)]
        if class_name.startswith("[L"):
            return [self.class_and_object() for _ in range(count)]
        raise UnsupportedExpressionError(_not_read(f"an array {class_name}"))

    def list_body(self) -> list[Any]:
        """A ``java.util`` list: Kryo 5 flags a list whose elements share one class and writes that class
        once; Kryo 3 writes the count and each element with its class."""
        reader = self.reader
        if not self.hive4:
            return [self.class_and_object() for _ in range(reader.length())]
        same_class, count = reader.var_int_flag()
        count -= 1
        if count <= 0:
            return []
        if count > reader.remaining:
            raise KryoFormatError(f"a list of {count} elements at byte {reader.position} is longer than the stream")
        if not same_class:
            return [self.class_and_object() for _ in range(count)]
        element_class = reader.class_name()
        if element_class is None:
            return [None] * count
        if reader.boolean():  # some elements are null: each has a null marker
            return [self.nullable_value_of(element_class) for _ in range(count)]
        return [self.value_of(element_class) for _ in range(count)]

    def java_time(self, class_name: str) -> datetime.date | datetime.time | datetime.datetime:
        reader = self.reader
        if class_name == "java.time.LocalDateTime":
            if self.reader.layout.java_time_serializers:
                day, time = self.java_time("java.time.LocalDate"), self.java_time("java.time.LocalTime")
            else:  # fields date and time, each a final declared type
                day = self.nullable_value_of("java.time.LocalDate")
                time = self.nullable_value_of("java.time.LocalTime")
            return datetime.datetime.combine(day, time)  # type: ignore[arg-type]
        try:
            if class_name == "java.time.LocalDate":
                if reader.layout.java_time_serializers:
                    year = reader.varint()
                    month, day_of_month = reader.signed_byte(), reader.signed_byte()
                else:  # fields day, month (shorts), year
                    day_of_month, month, year = reader.short(), reader.short(), reader.varint(zigzag=True)
                return datetime.date(year, month, day_of_month)
            if class_name == "java.time.LocalTime":
                return self._local_time()
        except ValueError as bad:
            raise KryoFormatError(f"an invalid {class_name} at byte {reader.position}: {bad}") from None
        raise UnsupportedExpressionError(_not_read(f"a {class_name}"))

    def sql_time(self, class_name: str) -> datetime.datetime:
        """Hive's serializers of ``java.sql`` times: milliseconds since the epoch as a fixed ``long`` (and a
        timestamp's nanoseconds as a fixed ``int``), in UTC, as Hive 2 and 3 hold such constants."""
        reader = self.reader
        millis = reader.fixed_long()
        nanos = reader.fixed_int() if class_name == "java.sql.Timestamp" else (millis % 1000) * 1_000_000
        moment = datetime.datetime(1970, 1, 1) + datetime.timedelta(seconds=millis // 1000)
        return moment.replace(microsecond=nanos // 1000)

    def _local_time(self) -> datetime.time:
        reader = self.reader
        if not reader.layout.java_time_serializers:  # fields hour, minute (bytes), nano (int), second (byte)
            hour, minute = reader.signed_byte(), reader.signed_byte()
            nano, second = reader.varint(zigzag=True), reader.signed_byte()
            return datetime.time(hour, minute, second, nano // 1000)
        # each part is written until the rest are zero; the last one written is complemented
        parts = [0, 0, 0]
        for index in range(3):
            value = reader.signed_byte()
            parts[index] = ~value if value < 0 else value
            if value < 0:
                return datetime.time(parts[0], parts[1], parts[2])
        nano = reader.varint()
        return datetime.time(parts[0], parts[1], parts[2], nano // 1000)

    # the expression tree

    def node(self, value: Any) -> Node:
        if not isinstance(value, _JavaObject):
            raise UnsupportedExpressionError(f"the expression's node is a {type(value).__name__}, not an ExprNodeDesc")
        self.terms += 1
        if self.terms > self.max_terms:
            raise UnsupportedExpressionError(
                f"the expression has more than {self.max_terms} nodes, over the limit (serve --max-filter-terms)"
            )
        fields, kind = value.fields, value.class_name.removeprefix(PLAN)
        type_name = _type_name(fields["typeInfo"])
        if kind == "ExprNodeColumnDesc":
            return Column(fields["column"], type_name)
        if kind == "ExprNodeConstantDesc":
            return Constant(_constant(fields["value"]), type_name)
        if kind == "ExprNodeGenericFuncDesc":
            children = fields.get("children", fields.get("chidren")) or []
            return Call(_function(fields["genericUDF"]), tuple(self.node(child) for child in children), type_name)
        raise UnsupportedExpressionError(_not_read(f"a {value.class_name}"))


def _not_read(what: str) -> str:
    return f"the expression holds {what}, which this metastore does not read"


def _read_int(reader: KryoReader) -> int:
    return reader.varint(zigzag=True)


def _read_long(reader: KryoReader) -> int:
    return reader.varlong(zigzag=True)


_PRIMITIVES = {
    "boolean": KryoReader.boolean,
    "byte": KryoReader.signed_byte,
    "short": KryoReader.short,
    "char": KryoReader.char,
    "int": _read_int,
    "long": _read_long,
    "float": KryoReader.float32,
    "double": KryoReader.float64,
}


def _type_name(type_info: Any) -> str:
    if not isinstance(type_info, _JavaObject) or not type_info.class_name.startswith(TYPES):
        raise UnsupportedExpressionError("the expression has a node without a primitive type")
    fields = type_info.fields
    name = fields["typeName"]
    if "precision" in fields:
        return f"{name}({fields['precision']},{fields['scale']})"
    if "length" in fields:
        return f"{name}({fields['length']})"
    return name


def _function(udf: Any) -> str:
    if not isinstance(udf, _JavaObject):
        raise UnsupportedExpressionError("the expression has a function call without its function")
    if udf.class_name == UDF + "GenericUDFBridge":
        return _BRIDGED.get(udf.fields["udfClassName"], udf.fields["udfName"])
    name = _FUNCTIONS.get(udf.class_name.removeprefix(UDF))
    if name is None:
        raise UnsupportedExpressionError(f"the function {udf.class_name} is not one this metastore evaluates")
    return name


def _constant(value: Any) -> Any:
    if not isinstance(value, _JavaObject):
        if isinstance(value, (str, int, float, bool)) or value is None:
            return value
        raise UnsupportedExpressionError(f"a constant of type {type(value).__name__} is not one this metastore reads")
    kind, fields = value.class_name.removeprefix(COMMON), value.fields
    if kind in ("HiveVarchar", "HiveChar"):
        return fields["value"]
    if kind == "Date":
        return fields["localDate"]
    if kind == "Timestamp":
        return fields["localDateTime"]
    if kind == "HiveDecimal":
        digits = fields["fast0"] + fields["fast1"] * 10**16 + fields["fast2"] * 10**32
        return Decimal(fields["fastSignum"] * digits).scaleb(-fields["fastScale"])
    raise UnsupportedExpressionError(f"a constant of class {value.class_name} is not one this metastore reads")


def decode_expression(data: bytes, limits: FilterLimits = FilterLimits()) -> Node:
    """The expression tree Hive serialized into ``data``.

    Raises:
        UnsupportedExpressionError: ``data`` is longer than ``limits.max_length``, holds more than
            ``limits.max_terms`` nodes or a class this module does not read, or is not such a stream.
    """
    if len(data) > limits.max_length:
        raise UnsupportedExpressionError(
            f"the expression has {len(data)} bytes, over the limit of {limits.max_length} (serve --max-filter-length)"
        )
    try:
        return _Decoder(data, limits).root()
    except KryoFormatError as bad:
        raise UnsupportedExpressionError(f"the expression could not be read: {bad}") from None
    except RecursionError:  # MAX_DEPTH keeps well within Python's limit; a thread with less room ends here
        raise UnsupportedExpressionError("the expression is nested too deeply for this metastore") from None
