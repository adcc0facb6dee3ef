"""A Hive function as the function tests create it: a Java UDF of a database, with its resources."""

from __future__ import annotations

from tests.conftest import hive


def function(db: str, name: str, class_name: str = "com.example.udf.Upper", resources=None, owner="alice"):
    return hive.Function(
        functionName=name,
        dbName=db,
        className=class_name,
        ownerName=owner,
        ownerType=hive.PrincipalType.USER,
        createTime=0,
        functionType=hive.FunctionType.JAVA,
        resourceUris=list(resources or []),
    )
