"""Builders of HMS Thrift structs for the adapter tests, and small file-system helpers.

Tables default to Parquet storage (Hive's ``ParquetHiveSerDe`` with the ``MapredParquet`` formats), as Hudi
syncs them.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlparse

from tests.conftest import hive

PARQUET_SERDE = "org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe"
PARQUET_INPUT = "org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat"
PARQUET_OUTPUT = "org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat"


def cols(*specs: str) -> list:
    """``cols("id:bigint", "name:string")`` -> FieldSchema list."""
    out = []
    for spec in specs:
        name, _, type_ = spec.partition(":")
        out.append(hive.FieldSchema(name=name, type=type_ or "string", comment=None))
    return out


def parquet_sd(columns=None, location=None, **extra):
    return hive.StorageDescriptor(
        cols=list(columns or []),
        location=location,
        inputFormat=PARQUET_INPUT,
        outputFormat=PARQUET_OUTPUT,
        compressed=False,
        numBuckets=-1,
        serdeInfo=hive.SerDeInfo(name=None, serializationLib=PARQUET_SERDE, parameters={"serialization.format": "1"}),
        bucketCols=[],
        sortCols=[],
        parameters={},
        skewedInfo=hive.SkewedInfo(skewedColNames=[], skewedColValues=[], skewedColValueLocationMaps={}),
        storedAsSubDirectories=False,
        **extra,
    )


def make_database(
    name: str,
    location: str | None = None,
    params: dict | None = None,
    owner: str | None = "alice",
    description: str | None = None,
):
    return hive.Database(
        name=name,
        description=description,
        locationUri=location,
        parameters=dict(params or {}),
        ownerName=owner,
        ownerType=hive.PrincipalType.USER if owner else None,
    )


def make_table(
    db: str,
    name: str,
    columns=None,
    partition_keys=None,
    location: str | None = None,
    table_type: str = "MANAGED_TABLE",
    params: dict | None = None,
    owner: str = "alice",
):
    params = dict(params or {})
    if table_type == "EXTERNAL_TABLE":
        params.setdefault("EXTERNAL", "TRUE")
    return hive.Table(
        tableName=name,
        dbName=db,
        owner=owner,
        createTime=0,
        lastAccessTime=0,
        retention=0,
        sd=parquet_sd(columns if columns is not None else cols("id:bigint", "name:string"), location),
        partitionKeys=list(partition_keys or []),
        parameters=params,
        tableType=table_type,
    )


def make_partition(
    db: str, table: str, values: list[str], columns=None, location: str | None = None, params: dict | None = None
):
    return hive.Partition(
        values=list(values),
        dbName=db,
        tableName=table,
        createTime=0,
        lastAccessTime=0,
        sd=parquet_sd(columns if columns is not None else cols("id:bigint", "name:string"), location),
        parameters=dict(params or {}),
    )


def path_of(location: str) -> Path:
    """The local path of a ``file:`` location."""
    parsed = urlparse(location)
    assert parsed.scheme in ("", "file"), location
    return Path(parsed.path)


def file_uri(path: Path) -> str:
    """A local path written the way the catalog stores it (``file:/abs/path``)."""
    return "file:" + str(path)


def table_lock_request(db: str, table: str, user: str = "other", hostname: str = "elsewhere") -> object:
    """A request for an EXCLUSIVE lock on the table ``db.table``, as another client holding it would send."""
    component = hive.LockComponent(type=hive.LockType.EXCLUSIVE, level=hive.LockLevel.TABLE, dbname=db, tablename=table)
    return hive.LockRequest(component=[component], user=user, hostname=hostname)
