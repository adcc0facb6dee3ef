"""``Database`` structs <-> ``hudi_catalog.model.Database``."""

from __future__ import annotations

from hudi_catalog.catalog_scope import current_catalog
from hudi_catalog.model import Database

from ..idl import ThriftStruct, hive
from .names import strip_catalog

HiveDatabase = hive.Database
HivePrincipalType = hive.PrincipalType


def owner_type_name(value: int | None) -> str | None:
    if value is None:
        return None
    return {HivePrincipalType.USER: "USER", HivePrincipalType.ROLE: "ROLE", HivePrincipalType.GROUP: "GROUP"}.get(value)


def owner_type_value(name: str | None) -> int | None:
    return None if name is None else getattr(HivePrincipalType, name, None)


def from_thrift_database(db) -> Database:
    return Database(
        name=strip_catalog(db.name) or "",
        description=db.description,
        location=db.locationUri or None,
        managed_location=db.managedLocationUri or None,
        parameters=dict(db.parameters or {}),
        owner_name=db.ownerName,
        owner_type=owner_type_name(db.ownerType),
        create_time=db.createTime or 0,
    )


def to_thrift_database(db: Database) -> ThriftStruct:
    return HiveDatabase(
        name=db.name,
        description=db.description,
        locationUri=db.location,
        parameters=dict(db.parameters),
        ownerName=db.owner_name,
        ownerType=owner_type_value(db.owner_type),
        catalogName=current_catalog(),
        createTime=db.create_time,
        managedLocationUri=db.managed_location,
        type=hive.DatabaseType.NATIVE,  # Hive 3 and 4 clients read it; no database here is a remote one
    )
