"""Users, clients and Thrift structs of the ``serve --authorization`` tests: each user authenticated with a
password of its own by SASL PLAIN through the Hive 3.1 client of ``hive-metastore-client``, a partitioned
table, table references and grants."""

from __future__ import annotations

from hive_metastore import ThriftHiveMetastore
from hive_metastore.ttypes import (
    FieldSchema,
    HiveObjectPrivilege,
    HiveObjectRef,
    HiveObjectType,
    PrincipalType,
    PrivilegeBag,
    PrivilegeGrantInfo,
    SerDeInfo,
    StorageDescriptor,
    Table,
)
from puresasl.client import SASLClient
from thrift.protocol import TBinaryProtocol
from thrift.transport import TSocket
from thrift_sasl import TSaslClientTransport

from tests.support.sasl import _SaslClient

USERS = ("root", "alice", "bob", "carol")


def _password(user: str) -> str:
    return f"{user}-pw-1"


def _connect(port: int, user: str):
    sock = TSocket.TSocket("127.0.0.1", port)
    sock.setTimeout(20_000)
    transport = TSaslClientTransport(
        lambda: _SaslClient(
            SASLClient("localhost", "hive", mechanism="PLAIN", username=user, password=_password(user))
        ),
        "PLAIN",
        sock,
    )
    transport.open()
    return ThriftHiveMetastore.Client(TBinaryProtocol.TBinaryProtocol(transport)), transport


def _table(db: str, name: str, owner: str = "mallory") -> Table:
    """A partitioned table whose struct names ``owner`` (a creator who is not an admin owns it anyway)."""
    sd = StorageDescriptor(
        cols=[FieldSchema("x", "int", None)],
        serdeInfo=SerDeInfo(parameters={}),
        inputFormat="org.apache.hadoop.mapred.TextInputFormat",
        outputFormat="org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat",
    )
    return Table(
        tableName=name,
        dbName=db,
        owner=owner,
        sd=sd,
        partitionKeys=[FieldSchema("ds", "string", None)],
        parameters={},
        tableType="MANAGED_TABLE",
    )


def _table_ref(db: str, table: str) -> HiveObjectRef:
    return HiveObjectRef(objectType=HiveObjectType.TABLE, dbName=db, objectName=table)


def _grant(ref: HiveObjectRef, grantee: str, grantee_type: int, privilege: str) -> PrivilegeBag:
    return PrivilegeBag(
        privileges=[
            HiveObjectPrivilege(
                hiveObject=ref,
                principalName=grantee,
                principalType=grantee_type,
                grantInfo=PrivilegeGrantInfo(
                    privilege=privilege,
                    createTime=0,
                    grantor="alice",
                    grantorType=PrincipalType.USER,
                    grantOption=False,
                ),
            )
        ]
    )
