"""``Function`` structs <-> ``hudi_catalog.model.Function``."""

from __future__ import annotations

from hudi_catalog.catalog_scope import current_catalog
from hudi_catalog.model import Function, ResourceUri

from ..idl import hive
from .database import owner_type_name, owner_type_value
from .names import strip_catalog

_RESOURCE_NAMES = {hive.ResourceType.JAR: "JAR", hive.ResourceType.FILE: "FILE", hive.ResourceType.ARCHIVE: "ARCHIVE"}


def from_thrift_function(f) -> Function:
    return Function(
        database=strip_catalog(f.dbName or "") or "",
        name=f.functionName or "",
        class_name=f.className or "",
        owner_name=f.ownerName,
        owner_type=owner_type_name(f.ownerType),
        create_time=f.createTime or 0,
        function_type=f.functionType or hive.FunctionType.JAVA,
        resource_uris=[ResourceUri(_RESOURCE_NAMES.get(r.resourceType, "JAR"), r.uri) for r in f.resourceUris or []],
    )


def to_thrift_function(f: Function):
    return hive.Function(
        functionName=f.name,
        dbName=f.database,
        className=f.class_name,
        ownerName=f.owner_name,
        ownerType=owner_type_value(f.owner_type),
        createTime=f.create_time,
        functionType=f.function_type,
        resourceUris=[
            hive.ResourceUri(resourceType=getattr(hive.ResourceType, r.kind), uri=r.uri) for r in f.resource_uris
        ],
        catName=current_catalog(),
    )
