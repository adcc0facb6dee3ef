"""Queries on ``role``, ``role_member`` and ``privilege_grant`` (see ``schema``)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from sqlalchemy import Connection, and_, delete, insert, select, tuple_, update

from ..authorization import ObjectType, Principal, PrincipalType
from . import schema

_r = schema.role.c
_m = schema.role_member.c
_g = schema.privilege_grant.c
_d = schema.db.c
_t = schema.tbl.c
_p = schema.partitions.c


@dataclass(frozen=True)
class ObjectIds:
    """A secured object by the ids of the rows it lies in (``GLOBAL``: none of them)."""

    type: ObjectType
    db_id: int | None = None
    tbl_id: int | None = None
    part_id: int | None = None
    column: str | None = None

    @property
    def key(self) -> str:
        ids = ":".join("" if i is None else str(i) for i in (self.db_id, self.tbl_id, self.part_id))
        return f"{self.type.name}:{ids}:{self.column or ''}"


# -- roles ----------------------------------------------------------------------------------------


class RoleRecord(NamedTuple):
    """A ``role`` row."""

    role_id: int
    name: str
    create_time: int
    owner_name: str | None


def role_row(conn: Connection, name: str) -> RoleRecord | None:
    row = conn.execute(select(schema.role).where(_r.name == name)).first()
    return None if row is None else RoleRecord._make(row)


def add_role(conn: Connection, name: str, create_time: int, owner: str) -> None:
    conn.execute(insert(schema.role).values(name=name, create_time=create_time, owner_name=owner))


def remove_role(conn: Connection, role_id: int, name: str) -> None:
    """The role, its members, its own memberships of other roles and the privileges granted to it."""
    role_type = PrincipalType.ROLE.name
    conn.execute(delete(schema.role_member).where(_m.principal_type == role_type, _m.principal_name == name))
    conn.execute(delete(schema.privilege_grant).where(_g.principal_type == role_type, _g.principal_name == name))
    conn.execute(delete(schema.role).where(_r.role_id == role_id))


def role_rows(conn: Connection) -> list[RoleRecord]:
    return [RoleRecord._make(row) for row in conn.execute(select(schema.role).order_by(_r.name))]


# -- membership -----------------------------------------------------------------------------------


class MemberRecord(NamedTuple):
    """A ``role_member`` row: ``principal`` is a member of role ``role_id``, granted by ``grantor``."""

    role_id: int
    principal_name: str
    principal_type: str
    grant_option: bool
    grant_time: int
    grantor: str | None
    grantor_type: str | None


class MembershipRecord(NamedTuple):
    """A ``role_member`` row with its role's name."""

    role_name: str
    role_id: int
    principal_name: str
    principal_type: str
    grant_option: bool
    grant_time: int
    grantor: str | None
    grantor_type: str | None


def _member_of(role_id: int, principal: Principal):
    return and_(_m.role_id == role_id, _m.principal_type == principal.type.name, _m.principal_name == principal.name)


def member_row(conn: Connection, role_id: int, principal: Principal, lock: bool = False) -> MemberRecord | None:
    query = select(schema.role_member).where(_member_of(role_id, principal))
    row = conn.execute(query.with_for_update() if lock else query).first()
    return None if row is None else MemberRecord._make(row)


def add_member(
    conn: Connection, role_id: int, principal: Principal, grant_option: bool, grant_time: int, grantor: Principal
) -> None:
    conn.execute(
        insert(schema.role_member).values(
            role_id=role_id,
            principal_name=principal.name,
            principal_type=principal.type.name,
            grant_option=grant_option,
            grant_time=grant_time,
            grantor=grantor.name,
            grantor_type=grantor.type.name,
        )
    )


def set_member_grant_option(conn: Connection, role_id: int, principal: Principal, grant_option: bool) -> None:
    conn.execute(update(schema.role_member).where(_member_of(role_id, principal)).values(grant_option=grant_option))


def remove_member(conn: Connection, role_id: int, principal: Principal) -> None:
    conn.execute(delete(schema.role_member).where(_member_of(role_id, principal)))


_MEMBERSHIP = select(_r.name.label("role_name"), schema.role_member).join(schema.role, _r.role_id == _m.role_id)


def members(conn: Connection, role_id: int) -> list[MembershipRecord]:
    query = _MEMBERSHIP.where(_m.role_id == role_id).order_by(_m.principal_type, _m.principal_name)
    return [MembershipRecord._make(row) for row in conn.execute(query)]


def memberships(conn: Connection, principals: Sequence[Principal]) -> list[MembershipRecord]:
    """The role grants whose grantee is one of ``principals``."""
    if not principals:
        return []
    wanted = tuple_(_m.principal_type, _m.principal_name).in_([(p.type.name, p.name) for p in principals])
    return [MembershipRecord._make(row) for row in conn.execute(_MEMBERSHIP.where(wanted).order_by(_r.name))]


# -- privilege grants -----------------------------------------------------------------------------


class GrantRecord(NamedTuple):
    """A ``privilege_grant`` row: ``privilege`` on the object of ``object_key`` granted to a principal."""

    grant_id: int
    object_key: str
    object_type: str
    db_id: int | None
    tbl_id: int | None
    part_id: int | None
    column_name: str | None
    principal_name: str
    principal_type: str
    privilege: str
    grant_option: bool
    grant_time: int
    grantor: str | None
    grantor_type: str | None


class NamedGrantRecord(NamedTuple):
    """A ``privilege_grant`` row with the names of its object (None where the object has no such part)."""

    grant_id: int
    object_key: str
    object_type: str
    db_id: int | None
    tbl_id: int | None
    part_id: int | None
    column_name: str | None
    principal_name: str
    principal_type: str
    privilege: str
    grant_option: bool
    grant_time: int
    grantor: str | None
    grantor_type: str | None
    cat_name: str | None
    db_name: str | None
    tbl_name: str | None
    part_name: str | None


class HeldPrivilegeRecord(NamedTuple):
    """A privilege held on the object of ``object_key``, and whether with its grant option."""

    object_key: str
    privilege: str
    grant_option: bool


def _grant_of(ids: ObjectIds, principal: Principal, privilege: str):
    return and_(
        _g.object_key == ids.key,
        _g.principal_type == principal.type.name,
        _g.principal_name == principal.name,
        _g.privilege == privilege,
    )


def grant_row(
    conn: Connection, ids: ObjectIds, principal: Principal, privilege: str, lock: bool = False
) -> GrantRecord | None:
    query = select(schema.privilege_grant).where(_grant_of(ids, principal, privilege))
    row = conn.execute(query.with_for_update() if lock else query).first()
    return None if row is None else GrantRecord._make(row)


def add_grant(
    conn: Connection,
    ids: ObjectIds,
    principal: Principal,
    privilege: str,
    grant_option: bool,
    grant_time: int,
    grantor: Principal,
) -> None:
    conn.execute(
        insert(schema.privilege_grant).values(
            object_key=ids.key,
            object_type=ids.type.name,
            db_id=ids.db_id,
            tbl_id=ids.tbl_id,
            part_id=ids.part_id,
            column_name=ids.column,
            principal_name=principal.name,
            principal_type=principal.type.name,
            privilege=privilege,
            grant_option=grant_option,
            grant_time=grant_time,
            grantor=grantor.name,
            grantor_type=grantor.type.name,
        )
    )


def set_grant_option(conn: Connection, grant_id: int, grant_option: bool) -> None:
    conn.execute(update(schema.privilege_grant).where(_g.grant_id == grant_id).values(grant_option=grant_option))


def remove_grant(conn: Connection, grant_id: int) -> None:
    conn.execute(delete(schema.privilege_grant).where(_g.grant_id == grant_id))


_GRANTS_WITH_NAMES = select(
    schema.privilege_grant, _d.cat_name, _d.name.label("db_name"), _t.name.label("tbl_name"), _p.part_name
).select_from(
    schema.privilege_grant.outerjoin(schema.db, _d.db_id == _g.db_id)
    .outerjoin(schema.tbl, _t.tbl_id == _g.tbl_id)
    .outerjoin(schema.partitions, _p.part_id == _g.part_id)
)
"""Grants with the names of their objects (``db_name``, ``tbl_name``, ``part_name``)."""


def grants(
    conn: Connection, principal: Principal | None = None, ids: ObjectIds | None = None
) -> list[NamedGrantRecord]:
    """Grants to ``principal`` (all when None) on ``ids``'s object (every object when None), named."""
    query = _GRANTS_WITH_NAMES
    if principal is not None:
        query = query.where(_g.principal_type == principal.type.name, _g.principal_name == principal.name)
    if ids is not None:
        query = query.where(_g.object_key == ids.key)
    query = query.order_by(_g.object_type, _g.principal_type, _g.principal_name, _g.privilege)
    return [NamedGrantRecord._make(row) for row in conn.execute(query)]


def held(conn: Connection, principals: Sequence[Principal], keys: Iterable[str]) -> list[HeldPrivilegeRecord]:
    """The grants any of ``principals`` holds on the objects of ``keys``."""
    keys = list(keys)
    if not principals or not keys:
        return []
    query = select(_g.object_key, _g.privilege, _g.grant_option).where(
        _g.object_key.in_(keys), _principal_in(principals)
    )
    return [HeldPrivilegeRecord._make(row) for row in conn.execute(query)]


def _principal_in(principals: Sequence[Principal]):
    return tuple_(_g.principal_type, _g.principal_name).in_([(p.type.name, p.name) for p in principals])


def granted_tables(conn: Connection, principals: Sequence[Principal], db_id: int) -> set[int]:
    """Ids of the tables of database ``db_id`` on which any of ``principals`` holds a privilege."""
    query = (
        select(_g.tbl_id)
        .distinct()
        .join(schema.tbl, _t.tbl_id == _g.tbl_id)
        .where(_t.db_id == db_id, _principal_in(principals))
    )
    return set(conn.execute(query).scalars()) if principals else set()


def granted_databases(conn: Connection, principals: Sequence[Principal]) -> set[int]:
    """Ids of the databases on which, or on a table of which, any of ``principals`` holds a privilege."""
    if not principals:
        return set()
    direct = select(_g.db_id).where(_g.db_id.is_not(None), _principal_in(principals))
    via_table = select(_t.db_id).join(schema.privilege_grant, _g.tbl_id == _t.tbl_id).where(_principal_in(principals))
    return set(conn.execute(direct.union(via_table)).scalars())


class DatabaseOwnerRecord(NamedTuple):
    """A database's id, name and owner."""

    db_id: int
    name: str
    owner_name: str | None
    owner_type: str | None


class TableOwnerRecord(NamedTuple):
    """A table's id, name and owner."""

    tbl_id: int
    name: str
    owner_name: str | None
    owner_type: str | None


def database_owners(conn: Connection, names: Sequence[str], catalog: str) -> list[DatabaseOwnerRecord]:
    """The databases ``names`` of ``catalog`` that exist, with their owners."""
    if not names:
        return []
    query = select(_d.db_id, _d.name, _d.owner_name, _d.owner_type).where(_d.cat_name == catalog, _d.name.in_(names))
    return [DatabaseOwnerRecord._make(row) for row in conn.execute(query)]


def table_owners(conn: Connection, db_id: int, names: Sequence[str] | None = None) -> list[TableOwnerRecord]:
    """The tables ``names`` (all when None) of ``db_id`` that exist, with their owners."""
    query = select(_t.tbl_id, _t.name, _t.owner_name, _t.owner_type).where(_t.db_id == db_id)
    if names is not None:
        query = query.where(_t.name.in_(list(names)))
    return [TableOwnerRecord._make(row) for row in conn.execute(query)]
