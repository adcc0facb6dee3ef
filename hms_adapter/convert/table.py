"""``Table``, ``StorageDescriptor`` and ``FieldSchema`` structs <-> catalog models."""

from __future__ import annotations

from hudi_catalog.catalog_scope import current_catalog
from hudi_catalog.model import Column, SerDe, SkewedInfo, SortColumn, StorageDescriptor, Table, TableMeta

from ..idl import ThriftStruct, hive
from .database import owner_type_name, owner_type_value
from .names import strip_catalog

HiveTable = hive.Table


def from_thrift_columns(fields) -> list[Column]:
    return [Column(f.name, f.type, f.comment) for f in fields or []]


def to_thrift_columns(columns: list[Column]) -> list:
    return [hive.FieldSchema(name=c.name, type=c.type, comment=c.comment) for c in columns]


def from_thrift_sd(sd) -> StorageDescriptor:
    if sd is None:
        return StorageDescriptor()
    serde = sd.serdeInfo
    skewed = sd.skewedInfo
    return StorageDescriptor(
        columns=from_thrift_columns(sd.cols),
        location=sd.location or None,
        input_format=sd.inputFormat,
        output_format=sd.outputFormat,
        compressed=bool(sd.compressed),
        num_buckets=sd.numBuckets if sd.numBuckets is not None else -1,
        serde=SerDe(
            name=serde.name,
            serialization_lib=serde.serializationLib,
            parameters=dict(serde.parameters or {}),
            description=serde.description,
            serializer_class=serde.serializerClass,
            deserializer_class=serde.deserializerClass,
            serde_type=serde.serdeType,
        )
        if serde is not None
        else SerDe(),
        bucket_columns=list(sd.bucketCols or []),
        sort_columns=[SortColumn(o.col, o.order) for o in sd.sortCols or []],
        parameters=dict(sd.parameters or {}),
        skewed_info=SkewedInfo(
            column_names=list(skewed.skewedColNames or []),
            column_values=[list(v) for v in skewed.skewedColValues or []],
            value_locations=[(list(k), v) for k, v in (skewed.skewedColValueLocationMaps or {}).items()],
        )
        if skewed is not None
        else None,
        stored_as_sub_directories=bool(sd.storedAsSubDirectories),
    )


def to_thrift_sd(sd: StorageDescriptor):
    serde = sd.serde
    skewed = sd.skewed_info
    return hive.StorageDescriptor(
        cols=to_thrift_columns(sd.columns),
        location=sd.location,
        inputFormat=sd.input_format,
        outputFormat=sd.output_format,
        compressed=sd.compressed,
        numBuckets=sd.num_buckets,
        serdeInfo=hive.SerDeInfo(
            name=serde.name,
            serializationLib=serde.serialization_lib,
            parameters=dict(serde.parameters),
            description=serde.description,
            serializerClass=serde.serializer_class,
            deserializerClass=serde.deserializer_class,
            serdeType=serde.serde_type,
        ),
        bucketCols=list(sd.bucket_columns),
        sortCols=[hive.Order(col=s.column, order=s.order) for s in sd.sort_columns],
        parameters=dict(sd.parameters),
        skewedInfo=hive.SkewedInfo(
            skewedColNames=list(skewed.column_names),
            skewedColValues=[list(v) for v in skewed.column_values],
            skewedColValueLocationMaps={tuple(k): v for k, v in skewed.value_locations},
        )
        if skewed is not None
        else hive.SkewedInfo(skewedColNames=[], skewedColValues=[], skewedColValueLocationMaps={}),
        storedAsSubDirectories=sd.stored_as_sub_directories,
    )


def from_thrift_table(t) -> Table:
    return Table(
        database=strip_catalog(t.dbName or "") or "",
        name=t.tableName or "",
        owner=t.owner,
        owner_type=owner_type_name(t.ownerType),
        create_time=t.createTime or 0,
        last_access_time=t.lastAccessTime or 0,
        retention=t.retention or 0,
        sd=from_thrift_sd(t.sd),
        partition_keys=from_thrift_columns(t.partitionKeys),
        parameters=dict(t.parameters or {}),
        view_original_text=t.viewOriginalText,
        view_expanded_text=t.viewExpandedText,
        table_type=t.tableType or "MANAGED_TABLE",
        temporary=bool(t.temporary),
        rewrite_enabled=bool(t.rewriteEnabled),
    )


def to_thrift_table(t: Table) -> ThriftStruct:
    return HiveTable(
        tableName=t.name,
        dbName=t.database,
        owner=t.owner,
        createTime=t.create_time,
        lastAccessTime=t.last_access_time,
        retention=t.retention,
        sd=to_thrift_sd(t.sd),
        partitionKeys=to_thrift_columns(t.partition_keys),
        parameters=dict(t.parameters),
        viewOriginalText=t.view_original_text,
        viewExpandedText=t.view_expanded_text,
        tableType=t.table_type,
        temporary=t.temporary or None,  # unset unless true, as Hive 3 and 4 answer
        rewriteEnabled=t.rewrite_enabled,
        writeId=0,  # no write of a transaction has altered the table: Hive 3 and 4 answer 0
        catName=current_catalog(),
        hive3CatName=current_catalog(),
        ownerType=owner_type_value(t.owner_type),
        id=t.id,
    )


def to_thrift_table_meta(meta: TableMeta):
    return hive.TableMeta(
        dbName=meta.database,
        tableName=meta.name,
        tableType=meta.table_type,
        comments=meta.comment,
        catName=current_catalog(),
        ownerName=meta.owner,
        ownerType=owner_type_value(meta.owner_type),
    )
