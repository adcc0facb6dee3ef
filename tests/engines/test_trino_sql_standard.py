"""Trino's ``hive.security=sql-standard``, replayed: the role and grant calls its Hive connector makes for
CREATE ROLE, GRANT/REVOKE role (with and without ADMIN OPTION), GRANT/REVOKE privileges on a table (with
and without GRANT OPTION), SHOW GRANTS and the current user's role grants, with the structs it builds
(trinodb/trino ``ThriftHiveMetastore``: ``listTablePrivileges``, ``grantTablePrivileges``,
``revokeTablePrivileges``; ``ThriftHiveMetastoreClient``: ``createRole``, ``grantRole``, ``revokeRole``,
``listRoleGrants``). Trino decides who may do what itself and keeps its roles and grants in the metastore:
the server stores and answers them (``--authorization none``)."""

from __future__ import annotations

from tests.conftest import hive
from tests.hms_adapter.helpers import make_table

USER, ROLE = hive.PrincipalType.USER, hive.PrincipalType.ROLE
ADMIN = "admin"  # the Trino user running the statements, a member of Trino's admin role


def _table_ref() -> hive.HiveObjectRef:
    return hive.HiveObjectRef(
        objectType=hive.HiveObjectType.TABLE, dbName="default", objectName="orders", partValues=None, columnName=None
    )


def _bag(grantee: str, grantee_type: int, privileges: list[str], grant_option: bool) -> hive.PrivilegeBag:
    """``buildPrivilegeBag``: one privilege per grant, its name in lower case, created 0, granted by the Trino
    user, authorizer ``SQL``."""
    return hive.PrivilegeBag(
        privileges=[
            hive.HiveObjectPrivilege(
                hiveObject=_table_ref(),
                principalName=grantee,
                principalType=grantee_type,
                authorizer="SQL",
                grantInfo=hive.PrivilegeGrantInfo(
                    privilege=p.lower(), createTime=0, grantor=ADMIN, grantorType=USER, grantOption=grant_option
                ),
            )
            for p in privileges
        ]
    )


def _role_grants(client, name: str, kind: int) -> list:
    """``listRoleGrants``."""
    return client.get_role_grants_for_principal(
        hive.GetRoleGrantsForPrincipalRequest(principal_name=name, principal_type=kind)
    ).principalGrants


def _grant_role(client, role: str, grantee: str, kind: int, admin_option: bool) -> None:
    """``grantRole``: nothing when granted alike; without the option, a revoke first to add it."""
    for grant in _role_grants(client, grantee, kind):
        if grant.roleName == role:
            if bool(grant.grantOption) == admin_option:
                return
            if admin_option:
                _revoke_role(client, role, grantee, kind, False)
                break
    answer = client.grant_revoke_role(
        hive.GrantRevokeRoleRequest(
            requestType=hive.GrantRevokeType.GRANT,
            roleName=role,
            principalName=grantee,
            principalType=kind,
            grantor=ADMIN,
            grantorType=USER,
            grantOption=admin_option,
        )
    )
    assert answer.success is not None  # Trino: "GrantRevokeResponse missing success field"


def _revoke_role(client, role: str, grantee: str, kind: int, admin_option: bool) -> None:
    """``revokeRole``: nothing when not granted, or when only the option is revoked and not held."""
    current = next((g for g in _role_grants(client, grantee, kind) if g.roleName == role), None)
    if current is None or (admin_option and not current.grantOption):
        return
    answer = client.grant_revoke_role(
        hive.GrantRevokeRoleRequest(
            requestType=hive.GrantRevokeType.REVOKE,
            roleName=role,
            principalName=grantee,
            principalType=kind,
            grantOption=admin_option,
        )
    )
    assert answer.success is not None


TRINO_PRIVILEGES = {"SELECT", "INSERT", "UPDATE", "DELETE", "OWNERSHIP"}


def _table_privileges(client, grantee: str | None = None, kind: int | None = None) -> set[tuple]:
    """``listTablePrivileges``: every grantee's (SHOW GRANTS), or one grantee's. Trino upper-cases each
    name and fails the whole call on a name it does not know."""
    found = client.list_privileges(grantee, kind, _table_ref())
    names = {p.grantInfo.privilege.upper() for p in found}
    assert names <= TRINO_PRIVILEGES | {"ALL"}, names
    return {(p.principalName, p.principalType, p.grantInfo.privilege.upper(), p.grantInfo.grantOption) for p in found}


def _grant_privileges(client, grantee: str, kind: int, privileges: list[str], grant_option: bool) -> None:
    """``grantTablePrivileges``: only what the grantee does not hold yet, through ``grant_revoke_privileges``."""
    held = {privilege for _, _, privilege, _ in _table_privileges(client, grantee, kind)}
    wanted = [p for p in privileges if p not in held]
    if wanted:
        client.grant_revoke_privileges(
            hive.GrantRevokePrivilegeRequest(
                requestType=hive.GrantRevokeType.GRANT, privileges=_bag(grantee, kind, wanted, grant_option)
            )
        )


def _revoke_privileges(client, grantee: str, kind: int, privileges: list[str], grant_option: bool) -> None:
    """``revokeTablePrivileges``: only what the grantee holds, through ``grant_revoke_privileges``, each grant
    info carrying the grant option flag too."""
    held = {privilege for _, _, privilege, _ in _table_privileges(client, grantee, kind)}
    wanted = [p for p in privileges if p in held]
    if wanted:
        answer = client.grant_revoke_privileges(
            hive.GrantRevokePrivilegeRequest(
                requestType=hive.GrantRevokeType.REVOKE,
                privileges=_bag(grantee, kind, wanted, grant_option),
                revokeGrantOption=grant_option,
            )
        )
        assert answer.success is True


def test_trinos_role_and_grant_statements(client):
    client.create_table(make_table("default", "orders"))

    client.create_role(hive.Role(roleName="analysts", createTime=0))  # CREATE ROLE analysts: no owner sent
    assert "analysts" in client.get_role_names()  # SHOW ROLES

    _grant_role(client, "analysts", "bob", USER, False)  # GRANT analysts TO USER bob
    _grant_role(client, "analysts", "bob", USER, False)  # again: nothing to do
    _grant_role(client, "analysts", "bob", USER, True)  # ... WITH ADMIN OPTION
    grants = {(g.roleName, bool(g.grantOption)) for g in _role_grants(client, "bob", USER)}
    assert grants == {("analysts", True), ("public", False)}  # SHOW ROLE GRANTS, the roles Trino enables
    members = client.get_principals_in_role(hive.GetPrincipalsInRoleRequest(roleName="analysts")).principalGrants
    assert [(m.principalName, m.principalType, m.grantorName) for m in members] == [("bob", USER, ADMIN)]
    # the older connector's listGrantedPrincipals read get_principals_in_role; newer ones do not call it

    _grant_privileges(client, "analysts", ROLE, ["SELECT", "INSERT"], False)  # GRANT SELECT, INSERT ... TO ROLE
    _grant_privileges(client, "analysts", ROLE, ["SELECT"], False)  # already held: no call
    _grant_privileges(client, "carol", USER, ["DELETE"], True)  # ... TO USER carol WITH GRANT OPTION
    assert _table_privileges(client) == {
        ("analysts", ROLE, "SELECT", False),
        ("analysts", ROLE, "INSERT", False),
        ("carol", USER, "DELETE", True),
    }  # SHOW GRANTS ON orders

    _revoke_privileges(client, "carol", USER, ["DELETE"], True)  # REVOKE GRANT OPTION FOR DELETE
    assert _table_privileges(client, "carol", USER) == {("carol", USER, "DELETE", False)}
    _revoke_privileges(client, "analysts", ROLE, ["INSERT", "UPDATE"], False)  # UPDATE was never granted
    assert _table_privileges(client, "analysts", ROLE) == {("analysts", ROLE, "SELECT", False)}

    _revoke_role(client, "analysts", "bob", USER, True)  # REVOKE ADMIN OPTION FOR analysts FROM bob
    assert {(g.roleName, bool(g.grantOption)) for g in _role_grants(client, "bob", USER)} == {
        ("analysts", False),
        ("public", False),
    }
    _revoke_role(client, "analysts", "bob", USER, False)  # REVOKE analysts FROM bob
    assert [g.roleName for g in _role_grants(client, "bob", USER)] == ["public"]

    client.drop_role("analysts")  # DROP ROLE analysts: its grants go with it
    assert "analysts" not in client.get_role_names()
    assert _table_privileges(client) == {("carol", USER, "DELETE", False)}
    client.drop_table("default", "orders", True)  # DROP TABLE: its grants go with it
    client.create_table(make_table("default", "orders"))
    assert _table_privileges(client) == set()
