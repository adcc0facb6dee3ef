"""Role and privilege structs (``Role``, ``RolePrincipalGrant``, ``HiveObjectRef``, ``HiveObjectPrivilege``,
``PrincipalPrivilegeSet``) <-> ``hudi_catalog.authorization`` values."""

from __future__ import annotations

from hudi_catalog.authorization import (
    ObjectType,
    Principal,
    PrincipalType,
    PrivilegeGrant,
    PrivilegeSet,
    Role,
    RoleGrant,
    SecuredObject,
)
from hudi_catalog.catalog_scope import current_catalog
from hudi_catalog.errors import InvalidInputError

from ..idl import hive
from .names import strip_catalog


def principal_type(value: int | None) -> PrincipalType:
    """A Thrift ``PrincipalType`` (``USER`` when unset)."""
    if value is None:
        return PrincipalType.USER
    try:
        return PrincipalType(value)
    except ValueError:
        raise InvalidInputError(f"Unknown principal type {value}") from None


def principal(name: str | None, type_value: int | None) -> Principal:
    return Principal(name or "", principal_type(type_value))


def from_thrift_object(ref) -> SecuredObject:
    try:
        object_type = ObjectType(ref.objectType)
    except ValueError:
        raise InvalidInputError(f"Unsupported object type {ref.objectType}") from None
    if object_type is ObjectType.GLOBAL:
        return SecuredObject(ObjectType.GLOBAL)
    database = strip_catalog(ref.dbName) or ""
    if object_type is ObjectType.DATABASE:
        return SecuredObject(ObjectType.DATABASE, database)
    partition = tuple(ref.partValues) if ref.partValues else None
    return SecuredObject(
        object_type,
        database,
        ref.objectName or "",
        partition,
        ref.columnName if object_type is ObjectType.COLUMN else None,
    )


def to_thrift_object(target: SecuredObject):
    return hive.HiveObjectRef(
        objectType=target.type.value,
        dbName=target.database,
        objectName=target.table,
        partValues=list(target.partition) if target.partition else None,
        columnName=target.column,
        catName=current_catalog() if target.type is not ObjectType.GLOBAL else None,
    )


def from_thrift_privilege(privilege) -> PrivilegeGrant:
    if privilege.hiveObject is None:
        raise InvalidInputError("A privilege needs the object it is granted on")
    info = privilege.grantInfo or hive.PrivilegeGrantInfo()
    return PrivilegeGrant(
        from_thrift_object(privilege.hiveObject),
        principal(privilege.principalName, privilege.principalType),
        info.privilege or "",
        bool(info.grantOption),
        info.createTime or 0,
        principal(info.grantor, info.grantorType),
    )


def from_thrift_bag(bag) -> list[PrivilegeGrant]:
    return [from_thrift_privilege(p) for p in (bag.privileges if bag is not None else None) or []]


def from_thrift_privilege_set(privileges, target: SecuredObject) -> list[PrivilegeGrant]:
    """The grants of a ``PrincipalPrivilegeSet`` (users', groups' and roles' privileges) on ``target``."""
    if privileges is None:
        return []
    held = (
        (PrincipalType.USER, privileges.userPrivileges),
        (PrincipalType.GROUP, privileges.groupPrivileges),
        (PrincipalType.ROLE, privileges.rolePrivileges),
    )
    return [
        PrivilegeGrant(
            target,
            Principal(name or "", kind),
            info.privilege or "",
            bool(info.grantOption),
            info.createTime or 0,
            principal(info.grantor, info.grantorType),
        )
        for kind, by_name in held
        for name, infos in (by_name or {}).items()
        for info in infos or []
    ]


def from_thrift_table_privileges(tbl) -> list[PrivilegeGrant]:
    """The grants a ``Table`` struct carries in ``privileges`` (stored with the new table, as Hive does)."""
    target = SecuredObject.of_table(strip_catalog(tbl.dbName) or "", tbl.tableName or "")
    return from_thrift_privilege_set(tbl.privileges, target)


def _grant_info(grant: PrivilegeGrant):
    return hive.PrivilegeGrantInfo(
        privilege=grant.privilege,
        createTime=grant.create_time,
        grantor=grant.grantor.name,
        grantorType=grant.grantor.type.value,
        grantOption=grant.grant_option,
    )


def to_thrift_privilege(grant: PrivilegeGrant):
    return hive.HiveObjectPrivilege(
        hiveObject=to_thrift_object(grant.object),
        principalName=grant.grantee.name,
        principalType=grant.grantee.type.value,
        grantInfo=_grant_info(grant),
    )


def to_thrift_privilege_set(privileges: PrivilegeSet):
    def by_name(grants: dict[str, list[PrivilegeGrant]]):
        return {name: [_grant_info(g) for g in found] for name, found in grants.items()}

    return hive.PrincipalPrivilegeSet(
        userPrivileges=by_name(privileges.users),
        groupPrivileges=by_name(privileges.groups),
        rolePrivileges=by_name(privileges.roles),
    )


def to_thrift_role(role: Role):
    return hive.Role(roleName=role.name, createTime=role.create_time, ownerName=role.owner)


def to_thrift_role_grant(grant: RoleGrant):
    return hive.RolePrincipalGrant(
        roleName=grant.role,
        principalName=grant.grantee.name,
        principalType=grant.grantee.type.value,
        grantOption=grant.grant_option,
        grantTime=grant.grant_time,
        grantorName=grant.grantor.name if grant.grantor else None,
        grantorPrincipalType=grant.grantor.type.value if grant.grantor else None,
    )
