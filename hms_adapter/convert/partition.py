"""``Partition`` structs <-> ``hudi_catalog.model.Partition``."""

from __future__ import annotations

from dataclasses import replace

from hudi_catalog.catalog_scope import current_catalog
from hudi_catalog.java_regex import JavaRegex, compile_java, escape
from hudi_catalog.model import Partition

from ..idl import hive
from .names import strip_catalog
from .table import from_thrift_sd, to_thrift_sd


def from_thrift_partition(p) -> Partition:
    return Partition(
        database=strip_catalog(p.dbName or "") or "",
        table=p.tableName or "",
        values=list(p.values or []),
        sd=from_thrift_sd(p.sd),
        parameters=dict(p.parameters or {}),
        create_time=p.createTime or 0,
        last_access_time=p.lastAccessTime or 0,
    )


def to_thrift_partition(p: Partition):
    return hive.Partition(
        values=list(p.values),
        dbName=p.database,
        tableName=p.table,
        createTime=p.create_time,
        lastAccessTime=p.last_access_time,
        sd=to_thrift_sd(p.sd),
        parameters=dict(p.parameters),
        catName=current_catalog(),
    )


def to_thrift_partition_spec(database: str, table: str, root: str | None, parts: list[Partition]):
    """Partitions as one ``PartitionSpec`` listing full partitions (Hive's composing form)."""
    return hive.PartitionSpec(
        dbName=database,
        tableName=table,
        rootPath=root,
        partitionList=hive.PartitionListComposingSpec(partitions=[to_thrift_partition(p) for p in parts]),
        catName=current_catalog(),
    )


def _like(pattern: str) -> JavaRegex:
    """SQL ``LIKE`` (``%`` any run, ``_`` one character) as a regular expression matched by RE2 in linear time
    (``%a%a%a%a%a%a%c`` took Python's ``re`` minutes over a 120-character key)."""
    return compile_java("(?s)" + "".join(".*" if c == "%" else "." if c == "_" else escape(c) for c in pattern))


def key_pattern(pattern: str | None) -> str | None:
    """A parameter key pattern of Hive 4's partition requests; an empty one is no pattern, as Hive Metastore
    4 reads it (Hive 4's client sends ``""`` by default, and the partitions it reads it writes back whole)."""
    return pattern or None


def trim_partition(
    p: Partition, skip_columns: bool | None, include_keys: str | None, exclude_keys: str | None
) -> Partition:
    """A partition trimmed as Hive 4's requests ask: without its columns, and with only the parameters whose
    keys match ``include_keys`` and not ``exclude_keys`` (SQL ``LIKE`` patterns; None: no pattern)."""
    include = _like(include_keys) if include_keys is not None else None
    exclude = _like(exclude_keys) if exclude_keys is not None else None
    parameters = {
        k: v
        for k, v in p.parameters.items()
        if (include is None or include.matches(k)) and (exclude is None or not exclude.matches(k))
    }
    sd = replace(p.sd, columns=[]) if skip_columns else p.sd
    return replace(p, sd=sd, parameters=parameters)
