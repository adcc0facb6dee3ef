"""The roles and privileges calls side by side with Apache Hive Metastore 2.3.10 (ours on SQLite, MariaDB and
PostgreSQL) and 4.0.1 (ours on SQLite): one scripted session of the calls Trino's ``sql-standard`` security
and Hive's clients make, its answers and its errors (type and text) compared with the peer's. Without
``--authorization`` the metastore stores what it is given, as Hive's does."""

from __future__ import annotations

import uuid

import pytest

from tests.conftest import RunningServer, hive
from tests.locks.conftest import Target

# Hive Metastore 2.3's and 4's starts (session fixtures) with a test: past the default 600 s on a machine 3-4 times slower
pytestmark = pytest.mark.timeout(1800)

PUBLIC_EXISTS = ("MetaException", "public role implictly exists. It can't be created.")
"""Hive 2.3.10's answer to creating ``public``, spelling and all."""
HIVE_4_DIFFERENCES = {
    "create public": (
        ("MetaException", "public role implicitly exists. It can't be created."),
        "Hive 4 corrected the spelling of the message; Hive 2.3.10's text is kept (no client matches it)",
    ),
}
"""Steps Hive 4.0.1 answers otherwise than Hive 2.3.10 and this server: its answer, and why ours stays
(docs/compatibility.md, "Against Hive Metastore 4.0.1")."""

USER, ROLE = hive.PrincipalType.USER, hive.PrincipalType.ROLE


def _outcome(call, *args):
    """What a call answered, or the type and text of its error."""
    try:
        return call(*args)
    except Exception as error:  # compared, not raised: the peer's errors are facts too
        return (type(error).__name__, getattr(error, "message", str(error)))


def _refused(call, *args) -> object:
    """``refused`` when a call answered an error, else its answer. Hive Metastore answers a duplicate grant or
    role, or a revoke of what is not granted, with ``TApplicationException`` (an internal error: its
    ``InvalidObjectException`` escapes the handler); ours answers ``MetaException``, the exception these calls
    declare, with a message saying what is wrong."""
    answer = _outcome(call, *args)
    return "refused" if isinstance(answer, tuple) else answer


def _table(db: str, name: str):
    sd = hive.StorageDescriptor(
        cols=[hive.FieldSchema(name="x", type="int")],
        location=None,
        inputFormat="org.apache.hadoop.mapred.TextInputFormat",
        outputFormat="org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat",
        serdeInfo=hive.SerDeInfo(serializationLib="org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe", parameters={}),
        parameters={},
    )
    return hive.Table(
        tableName=name, dbName=db, owner="alice", sd=sd, partitionKeys=[], parameters={}, tableType="MANAGED_TABLE"
    )


def _bag(ref, grantee: str, grantee_type: int, privilege: str, grant_option: bool = False):
    info = hive.PrivilegeGrantInfo(
        privilege=privilege, createTime=0, grantor="alice", grantorType=USER, grantOption=grant_option
    )
    return hive.PrivilegeBag(
        privileges=[
            hive.HiveObjectPrivilege(hiveObject=ref, principalName=grantee, principalType=grantee_type, grantInfo=info)
        ]
    )


def _grants(found) -> list:
    """``list_privileges``' answer without times (each server's clock)."""
    if not isinstance(found, list):
        return found
    return sorted(
        (
            p.hiveObject.objectType,
            p.hiveObject.dbName,
            p.hiveObject.objectName,
            p.principalName,
            p.principalType,
            p.grantInfo.privilege,
            p.grantInfo.grantor,
            p.grantInfo.grantorType,
            p.grantInfo.grantOption,
        )
        for p in found
    )


def _session(client, tag: str) -> dict:
    """Trino's and Hive's role and grant calls in order; every answer by step."""
    role, db = f"analysts_{tag}", f"grants_{tag}"
    table_ref = hive.HiveObjectRef(objectType=hive.HiveObjectType.TABLE, dbName=db, objectName="orders")
    db_ref = hive.HiveObjectRef(objectType=hive.HiveObjectType.DATABASE, dbName=db)
    facts: dict = {}
    facts["built-in roles"] = sorted(set(client.get_role_names()) & {"admin", "public"})
    facts["create role"] = _outcome(client.create_role, hive.Role(roleName=role, createTime=0, ownerName="alice"))
    facts["create it again"] = _refused(client.create_role, hive.Role(roleName=role, createTime=0, ownerName="alice"))
    facts["create public"] = _outcome(client.create_role, hive.Role(roleName="public", createTime=0, ownerName="x"))
    facts["roles"] = sorted(r for r in client.get_role_names() if r in ("admin", "public", role))
    facts["grant role"] = _outcome(
        client.grant_revoke_role,
        hive.GrantRevokeRoleRequest(
            requestType=hive.GrantRevokeType.GRANT,
            roleName=role,
            principalName=f"bob_{tag}",
            principalType=USER,
            grantor="alice",
            grantorType=USER,
            grantOption=True,
        ),
    )
    facts["grant role again"] = _refused(client.grant_role, role, f"bob_{tag}", USER, "alice", USER, False)
    facts["list roles"] = sorted((r.roleName, r.ownerName) for r in client.list_roles(f"bob_{tag}", USER))
    facts["role grants"] = sorted(
        (g.roleName, g.principalName, g.principalType, g.grantOption, g.grantorName, g.grantorPrincipalType)
        for g in client.get_role_grants_for_principal(
            hive.GetRoleGrantsForPrincipalRequest(principal_name=f"bob_{tag}", principal_type=USER)
        ).principalGrants
    )
    facts["members"] = sorted(
        (g.principalName, g.principalType, g.grantOption)
        for g in client.get_principals_in_role(hive.GetPrincipalsInRoleRequest(roleName=role)).principalGrants
    )
    facts["revoke admin option"] = _outcome(
        client.grant_revoke_role,
        hive.GrantRevokeRoleRequest(
            requestType=hive.GrantRevokeType.REVOKE,
            roleName=role,
            principalName=f"bob_{tag}",
            principalType=USER,
            grantOption=True,
        ),
    )
    facts["members after"] = sorted(
        (g.principalName, g.grantOption)
        for g in client.get_principals_in_role(hive.GetPrincipalsInRoleRequest(roleName=role)).principalGrants
    )

    client.create_database(hive.Database(name=db, parameters={}))
    client.create_table(_table(db, "orders"))
    facts["grant select"] = _outcome(client.grant_privileges, _bag(table_ref, role, ROLE, "SELECT"))
    facts["grant insert"] = _outcome(
        client.grant_revoke_privileges,
        hive.GrantRevokePrivilegeRequest(
            requestType=hive.GrantRevokeType.GRANT, privileges=_bag(table_ref, f"bob_{tag}", USER, "INSERT", True)
        ),
    )
    facts["grant on database"] = _outcome(client.grant_privileges, _bag(db_ref, f"bob_{tag}", USER, "SELECT"))
    facts["grant select again"] = _refused(client.grant_privileges, _bag(table_ref, role, ROLE, "SELECT"))
    facts["role's grants"] = _grants(_outcome(client.list_privileges, role, ROLE, table_ref))
    facts["bob's grants on the table"] = _grants(_outcome(client.list_privileges, f"bob_{tag}", USER, table_ref))
    facts["bob's grants on the database"] = _grants(_outcome(client.list_privileges, f"bob_{tag}", USER, db_ref))
    held = client.get_privilege_set(table_ref, f"bob_{tag}", [])
    facts["privilege set"] = (
        {k: sorted(g.privilege for g in v) for k, v in (held.userPrivileges or {}).items()},
        {k: sorted(g.privilege for g in v) for k, v in (held.rolePrivileges or {}).items()},
    )
    facts["revoke grant option"] = _outcome(
        client.grant_revoke_privileges,
        hive.GrantRevokePrivilegeRequest(
            requestType=hive.GrantRevokeType.REVOKE,
            privileges=_bag(table_ref, f"bob_{tag}", USER, "INSERT"),
            revokeGrantOption=True,
        ),
    )
    facts["bob's grants after"] = _grants(_outcome(client.list_privileges, f"bob_{tag}", USER, table_ref))
    facts["revoke select"] = _outcome(client.revoke_privileges, _bag(table_ref, role, ROLE, "SELECT"))
    facts["revoke it again"] = _refused(client.revoke_privileges, _bag(table_ref, role, ROLE, "SELECT"))

    facts["drop admin"] = _outcome(client.drop_role, "admin")
    facts["drop role"] = _outcome(client.drop_role, role)
    facts["drop it again"] = _refused(client.drop_role, role)
    facts["roles after"] = sorted(r for r in client.get_role_names() if r in ("admin", "public", role))
    client.drop_table(db, "orders", True)
    client.drop_database(db, True, True)
    return facts


def _differences(catalog, target: Target) -> dict:
    """The session on ours (serving ``catalog``) and on ``target``: ``{step: (ours, peer)}`` where they differ."""
    running = RunningServer(catalog)
    ours, peer = running.client(), target.client()
    try:
        tag = uuid.uuid4().hex[:8]
        answers = _session(ours, tag), _session(peer, tag)
    finally:
        ours.close(), peer.close()
        running.stop()
    assert answers[0]["create public"] == PUBLIC_EXISTS
    return {
        step: (answers[0].get(step), answer) for step, answer in answers[1].items() if answers[0].get(step) != answer
    }


def test_role_and_grant_calls_answer_as_hive_metastore(catalog, hive_peer: Target):
    """``catalog``: ours on SQLite, MariaDB and PostgreSQL, each compared with the peer."""
    different = _differences(catalog, hive_peer)
    assert not different, f"differs from Hive Metastore 2.3.10 (ours, peer): {different}"


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_role_and_grant_calls_answer_as_hive_metastore_4(catalog, hive4_peer: Target):
    """Ours on SQLite (the stores are compared with Hive 2.3.10 above) and Hive Metastore 4.0.1."""
    different = _differences(catalog, hive4_peer)
    assert {step: peer for step, (_, peer) in different.items()} == {
        step: answer for step, (answer, _) in HIVE_4_DIFFERENCES.items()
    }
