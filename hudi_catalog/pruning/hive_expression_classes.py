"""The Java classes a Hive partition expression is made of, and how Kryo's field serializer lays each out.

Kryo writes an object of a class it has no serializer for field by field, in the order of the field names,
the superclasses' fields among them, leaving out static and transient ones. Each field is written as its
declared type says (``hudi_catalog.pruning.kryo``):

- a primitive (``int``, ``long``, ``boolean``, ...) as its value;
- ``=Type``, a final declared type (``String``, an enum, ``LocalDate``, ``byte[]``): a reference marker and
  the value, no class;
- ``object``, any other declared type: the class, then the value.

The lists below are what Hive 4.0.1's classes declare (read from its jar with Kryo's own ``FieldSerializer``);
``HIVE3_CHANGES`` says where Hive 2/3's differ. Object inspectors and writables appear because Hive serializes
an initialized ``GenericUDF``: ``BETWEEN`` keeps its arguments' inspectors, and some functions their results.
A class not listed here cannot be read past, so an expression that holds one is not decoded.
"""

from __future__ import annotations

PLAN = "org.apache.hadoop.hive.ql.plan."
TYPES = "org.apache.hadoop.hive.serde2.typeinfo."
UDF = "org.apache.hadoop.hive.ql.udf.generic."
OI = "org.apache.hadoop.hive.serde2.objectinspector.primitive."
SERDE_IO = "org.apache.hadoop.hive.serde2.io."
HADOOP_IO = "org.apache.hadoop.io."
COMMON = "org.apache.hadoop.hive.common.type."
COMPARE_TYPE = UDF + "GenericUDFBaseCompare$CompareType"
ENUMS = frozenset({COMPARE_TYPE})

_COMPARISON = "compareOI:object compareType:=COMPARE_TYPE opDisplayName:=String opName:=String result:object"
"""The fields of every comparison (``GenericUDFBaseCompare``)."""
_FAST_DECIMAL = (
    "fast0:long fast1:long fast2:long fastIntegerDigitCount:int fastScale:int fastSerializationScale:int fastSignum:int"
)
"""A ``HiveDecimal``'s digits in three longs, its scale and sign."""

_TIMESTAMP_WRITABLE = (
    "bytesEmpty:boolean currentBytes:=[B externalBytes:=[B internalBytes:=[B offset:int timestamp:object "
    "timestampEmpty:boolean"
)
"""A timestamp writable's fields (Hive 3's holds a ``java.sql.Timestamp``, Hive 4's a Hive ``Timestamp``)."""

_FIELDS = {
    PLAN + "ExprNodeGenericFuncDesc": "children:object genericUDF:object isSortedExpr:boolean typeInfo:object",
    PLAN + "ExprNodeColumnDesc": (
        "column:=String isPartitionColOrVirtualCol:boolean isSkewedCol:boolean tabAlias:=String typeInfo:object"
    ),
    PLAN + "ExprNodeConstantDesc": "typeInfo:object value:object",
    TYPES + "PrimitiveTypeInfo": "typeName:=String",
    TYPES + "VarcharTypeInfo": "length:int typeName:=String",
    TYPES + "CharTypeInfo": "length:int typeName:=String",
    TYPES + "DecimalTypeInfo": "precision:int scale:int typeName:=String",
    UDF + "GenericUDFOPEqual": _COMPARISON,
    UDF + "GenericUDFOPNotEqual": _COMPARISON,
    UDF + "GenericUDFOPLessThan": _COMPARISON,
    UDF + "GenericUDFOPEqualOrLessThan": _COMPARISON,
    UDF + "GenericUDFOPGreaterThan": _COMPARISON,
    UDF + "GenericUDFOPEqualOrGreaterThan": _COMPARISON,
    UDF + "GenericUDFOPEqualNS": _COMPARISON,
    UDF + "GenericUDFOPNotEqualNS": _COMPARISON,
    UDF + "GenericUDFOPAnd": "result:object",
    UDF + "GenericUDFOPOr": "result:object",
    UDF + "GenericUDFOPNot": "result:object",
    UDF + "GenericUDFIn": "bw:object isInSetConstant:boolean",
    UDF + "GenericUDFBetween": "argumentOIs:object egt:object elt:object result:object",
    UDF + "GenericUDFOPNull": "result:object",
    UDF + "GenericUDFOPNotNull": "result:object",
    UDF + "GenericUDFBridge": "isOperator:boolean udfClassName:=String udfName:=String",
    UDF + "GenericUDFToDate": "",
    UDF + "GenericUDFToVarchar": "typeInfo:object",
    UDF + "GenericUDFToChar": "typeInfo:object",
    UDF + "GenericUDFToDecimal": "typeInfo:object",
    UDF + "GenericUDFTimestamp": "intToTimestampInSeconds:boolean",
    UDF + "GenericUDFToString": "",
    UDF + "GenericUDFOPTrue": "conditionConverter:object result:object",
    UDF + "GenericUDFOPFalse": "conditionConverter:object result:object",
    UDF + "GenericUDFOPNotTrue": "conditionConverter:object result:object",
    UDF + "GenericUDFOPNotFalse": "conditionConverter:object result:object",
    OI + "WritableBooleanObjectInspector": "typeInfo:object",
    OI + "WritableConstantBooleanObjectInspector": "typeInfo:object value:object",
    OI + "WritableByteObjectInspector": "typeInfo:object",
    OI + "WritableConstantByteObjectInspector": "typeInfo:object value:object",
    OI + "WritableShortObjectInspector": "typeInfo:object",
    OI + "WritableConstantShortObjectInspector": "typeInfo:object value:object",
    OI + "WritableIntObjectInspector": "typeInfo:object",
    OI + "WritableConstantIntObjectInspector": "typeInfo:object value:object",
    OI + "WritableLongObjectInspector": "typeInfo:object",
    OI + "WritableConstantLongObjectInspector": "typeInfo:object value:object",
    OI + "WritableFloatObjectInspector": "typeInfo:object",
    OI + "WritableConstantFloatObjectInspector": "typeInfo:object value:object",
    OI + "WritableDoubleObjectInspector": "typeInfo:object",
    OI + "WritableConstantDoubleObjectInspector": "typeInfo:object value:object",
    OI + "WritableStringObjectInspector": "typeInfo:object",
    OI + "WritableConstantStringObjectInspector": "typeInfo:object value:object",
    OI + "WritableHiveVarcharObjectInspector": "typeInfo:object",
    OI + "WritableConstantHiveVarcharObjectInspector": "typeInfo:object value:object",
    OI + "WritableHiveCharObjectInspector": "typeInfo:object",
    OI + "WritableConstantHiveCharObjectInspector": "typeInfo:object value:object",
    OI + "WritableDateObjectInspector": "typeInfo:object",
    OI + "WritableConstantDateObjectInspector": "typeInfo:object value:object",
    OI + "WritableTimestampObjectInspector": "typeInfo:object",
    OI + "WritableConstantTimestampObjectInspector": "typeInfo:object value:object",
    OI + "WritableHiveDecimalObjectInspector": "typeInfo:object",
    OI + "WritableConstantHiveDecimalObjectInspector": "typeInfo:object value:=" + SERDE_IO + "HiveDecimalWritable",
    OI + "WritableBinaryObjectInspector": "typeInfo:object",
    OI + "WritableConstantBinaryObjectInspector": "typeInfo:object value:object",
    HADOOP_IO + "BooleanWritable": "value:boolean",
    SERDE_IO + "ByteWritable": "value:byte",
    SERDE_IO + "ShortWritable": "value:short",
    HADOOP_IO + "IntWritable": "value:int",
    HADOOP_IO + "LongWritable": "value:long",
    HADOOP_IO + "FloatWritable": "value:float",
    SERDE_IO + "DoubleWritable": "value:double",
    HADOOP_IO + "Text": "bytes:=[B length:int",
    SERDE_IO + "HiveVarcharWritable": "charLength:int value:object",
    SERDE_IO + "HiveCharWritable": "charLength:int value:object",
    SERDE_IO + "DateWritableV2": "date:object",
    SERDE_IO + "TimestampWritableV2": _TIMESTAMP_WRITABLE,
    SERDE_IO + "TimestampWritable": _TIMESTAMP_WRITABLE,
    SERDE_IO + "HiveDecimalWritable": _FAST_DECIMAL
    + " internalScratchBuffer:=[B internalScratchLongs:=[J isSet:boolean",
    COMMON + "Date": "localDate:=java.time.LocalDate",
    COMMON + "Timestamp": "localDateTime:=java.time.LocalDateTime",
    COMMON + "HiveDecimal": _FAST_DECIMAL,
    COMMON + "HiveVarchar": "value:=String",
    COMMON + "HiveChar": "value:=String",
    SERDE_IO + "DateWritable": "daysSinceEpoch:int",
}

HIVE3_CHANGES = {
    PLAN + "ExprNodeGenericFuncDesc": "chidren:object genericUDF:object isSortedExpr:boolean typeInfo:object",
    SERDE_IO + "HiveVarcharWritable": "value:object",
    SERDE_IO + "HiveCharWritable": "value:object",
}
"""Hive 2/3's layouts where they differ from Hive 4's (its children field is spelled ``chidren``)."""

Fields = tuple[tuple[str, str], ...]


def _parse(spec: str) -> Fields:
    return tuple(
        (name, kind.replace("=String", "=java.lang.String").replace("=COMPARE_TYPE", "=" + COMPARE_TYPE))
        for name, kind in (item.split(":", 1) for item in spec.split())
    )


HIVE4_FIELDS: dict[str, Fields] = {name: _parse(spec) for name, spec in _FIELDS.items()}
"""Each class's fields in Kryo's order, as ``(name, kind)``, for Hive 4's stream."""
HIVE3_FIELDS: dict[str, Fields] = HIVE4_FIELDS | {name: _parse(spec) for name, spec in HIVE3_CHANGES.items()}
"""The same for Hive 2/3's stream."""
