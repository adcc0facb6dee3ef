"""Roles, privilege grants and the checks of ``serve --authorization`` (see ``hudi_catalog.authorization``).

The role and grant calls take the ``caller`` (the authenticated user): with an enforcing policy only admins
create and drop roles, an admin or a member holding the role's admin option grants and revokes it, and an
admin, the object's owner or a holder of the privilege with its grant option grants and revokes a privilege.
Without a policy (``none``) the calls store what they are given, as Hive Metastore does for engines (Trino's
``sql-standard`` security, HiveServer2) that decide themselves.

A user holds the privileges granted to it, to its groups, to ``public`` and to every role it or one of its
groups belongs to, directly or through other roles, as in Hive. Its groups are those its identity names
(``groups`` of the calls below: the front end's authenticated caller's; none when it names none).
Privileges on the catalog (``GLOBAL``) and on a database count for its tables.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from sqlalchemy import Connection

from ..authorization import (
    ADMIN_ROLE,
    ALL,
    BUILTIN_ROLES,
    GLOBAL,
    PUBLIC_ROLE,
    AccessMode,
    AccessPolicy,
    ObjectType,
    Operation,
    Principal,
    PrincipalType,
    PrivilegeGrant,
    PrivilegeSet,
    Role,
    RoleGrant,
    SecuredObject,
    normalize_privilege,
)
from ..catalog_scope import current_catalog
from ..errors import (
    AccessDeniedError,
    AlreadyExistsError,
    InvalidInputError,
    InvalidObjectError,
    InvalidOperationError,
    NoSuchObjectError,
    NoSuchTableError,
)
from ..names import normalize
from ..partition_names import make_partition_name, partition_name_to_values
from ..store import authorization as grant_store
from ..store import databases as db_store
from ..store import partitions as partition_store
from ..store import tables as table_store
from ..store.authorization import (
    DatabaseOwnerRecord,
    MembershipRecord,
    NamedGrantRecord,
    ObjectIds,
    RoleRecord,
    TableOwnerRecord,
)
from .context import ServiceContext

log = logging.getLogger(__name__)


def _principal(name: str | None, type_name: str | None) -> Principal:
    return Principal(name or "", PrincipalType[type_name] if type_name else PrincipalType.USER)


def _role_grant(row: MembershipRecord) -> RoleGrant:
    return RoleGrant(
        row.role_name,
        _principal(row.principal_name, row.principal_type),
        bool(row.grant_option),
        row.grant_time,
        _principal(row.grantor, row.grantor_type),
    )


def _privilege_grant(row: NamedGrantRecord) -> PrivilegeGrant:
    object_type = ObjectType[row.object_type]
    secured = SecuredObject(
        object_type,
        row.db_name,
        row.tbl_name,
        tuple(partition_name_to_values(row.part_name)) if row.part_name else None,
        row.column_name,
    )
    return PrivilegeGrant(
        secured,
        _principal(row.principal_name, row.principal_type),
        row.privilege,
        bool(row.grant_option),
        row.grant_time,
        _principal(row.grantor, row.grantor_type),
    )


class AuthorizationService:
    def __init__(self, ctx: ServiceContext, policy: AccessPolicy | None = None) -> None:
        self.ctx = ctx
        self.policy = policy or AccessPolicy()

    # -- who the caller is ------------------------------------------------------------------------

    def _roles_of(self, conn: Connection, user: str | None, groups: Sequence[str] = ()) -> set[str]:
        """Every role ``user`` or one of its ``groups`` belongs to, directly or through other roles, and
        ``public``."""
        roles = {PUBLIC_ROLE}
        frontier = [Principal(user)] if user else []
        frontier += [Principal(g, PrincipalType.GROUP) for g in groups]
        while frontier:
            found = {row.role_name for row in grant_store.memberships(conn, frontier)} - roles
            roles |= found
            frontier = [Principal(name, PrincipalType.ROLE) for name in found]
        return roles

    @staticmethod
    def _holders(user: str, roles: set[str], groups: Sequence[str] = ()) -> list[Principal]:
        """``user``, its ``groups`` and its ``roles``: the grantees whose grants ``user`` holds."""
        return (
            [Principal(user)]
            + [Principal(g, PrincipalType.GROUP) for g in groups]
            + [Principal(r, PrincipalType.ROLE) for r in sorted(roles)]
        )

    def _is_admin(self, conn: Connection, user: str, roles: set[str] | None = None, groups: Sequence[str] = ()) -> bool:
        if user in self.policy.admins:
            return True
        return ADMIN_ROLE in (roles if roles is not None else self._roles_of(conn, user, groups))

    def is_admin(self, user: str, groups: Sequence[str] = ()) -> bool:
        with self.ctx.store.read() as conn:
            return self._is_admin(conn, user, groups=groups)

    @staticmethod
    def _owns(owner_name: str | None, owner_type: str | None, user: str, roles: set[str]) -> bool:
        if owner_type == PrincipalType.ROLE.name:
            return owner_name in roles
        return owner_type in (None, PrincipalType.USER.name) and owner_name == user

    # -- enforcement ------------------------------------------------------------------------------

    def require(
        self, user: str | None, action: Operation, target: SecuredObject, operation: str, groups: Sequence[str] = ()
    ) -> None:
        """``AccessDeniedError`` unless the policy lets ``user`` (a member of ``groups``) do ``action`` to
        ``target``. An object that does not exist passes: the call itself then answers that it does not
        exist."""
        if not self.policy.enforced:
            return
        if user is None:
            raise AccessDeniedError(f"Permission denied: an unauthenticated caller may not {operation}")
        if self._open_to_every_user(action, target):  # decided without reading the database
            return
        with self.ctx.store.read() as conn:
            roles = self._roles_of(conn, user, groups)
            if self._is_admin(conn, user, roles):
                return
            needed = self._missing(conn, user, roles, action, target, groups)
        if needed is not None:
            raise AccessDeniedError(
                f"Permission denied: Principal {Principal(user)} does not have following privileges for operation "
                f"{operation} [[{needed}] on Object {target}]"
            )

    def _open_to_every_user(self, action: Operation, target: SecuredObject) -> bool:
        """Whether any authenticated user may do ``action`` to ``target``: reading the catalog, a database
        (and, with ``owner``, anything), creating in the catalog (and, with ``owner``, anywhere)."""
        privileges = self.policy.mode is AccessMode.PRIVILEGES
        if action is Operation.READ:
            return not privileges or target.type in (ObjectType.GLOBAL, ObjectType.DATABASE)
        if action is Operation.CREATE:
            return not privileges or target.type is ObjectType.GLOBAL
        return False

    def _missing(
        self,
        conn: Connection,
        user: str,
        roles: set[str],
        action: Operation,
        target: SecuredObject,
        groups: Sequence[str] = (),
    ) -> str | None:
        """What ``user`` (a member of ``roles`` and ``groups``) lacks to do ``action`` to ``target`` (None:
        nothing)."""
        if action is Operation.ADMIN:
            return "ADMIN PRIVILEGE"
        owner = self._owner(conn, target)
        if owner is None:  # no such object
            return None
        if self._owns(owner.owner_name, owner.owner_type, user, roles):
            return None
        wanted = action.privilege if self.policy.mode is AccessMode.PRIVILEGES else None
        if action is Operation.CREATE:
            wanted = "CREATE"
        if wanted is not None and wanted in self._held(conn, self._holders(user, roles, groups), target):
            return None
        return wanted or "OBJECT OWNERSHIP"

    def _owner(self, conn: Connection, target: SecuredObject) -> DatabaseOwnerRecord | TableOwnerRecord | None:
        """The ``owner_name``/``owner_type`` of the database or table ``target`` names, None if missing."""
        if target.database is None:
            return None
        rows = grant_store.database_owners(conn, [normalize(target.database)], current_catalog())
        if not rows:
            return None
        if target.table is None:
            return rows[0]
        tables = grant_store.table_owners(conn, rows[0].db_id, [normalize(target.table)])
        return tables[0] if tables else None

    def _held(self, conn: Connection, holders: list[Principal], target: SecuredObject) -> set[str]:
        """The privileges ``holders`` hold on ``target``, on its database or globally; ``ALL`` stands for each."""
        keys = [ObjectIds(ObjectType.GLOBAL).key]
        db_rows = grant_store.database_owners(conn, [normalize(target.database or "")], current_catalog())
        if db_rows:
            keys.append(ObjectIds(ObjectType.DATABASE, db_rows[0].db_id).key)
            if target.table is not None:
                tables = grant_store.table_owners(conn, db_rows[0].db_id, [normalize(target.table)])
                if tables:
                    keys.append(ObjectIds(ObjectType.TABLE, db_rows[0].db_id, tables[0].tbl_id).key)
        held = {row.privilege for row in grant_store.held(conn, holders, keys)}
        if ALL in held:
            held |= {a.privilege for a in Operation if a.privilege} | {"CREATE"}
        return held

    def _listing_scope(
        self, conn: Connection, user: str, groups: Sequence[str]
    ) -> tuple[set[str], list[Principal]] | None:
        """``user``'s roles and the grantees whose grants it holds; None when it sees everything (an admin,
        or a holder of a privilege on the whole catalog)."""
        roles = self._roles_of(conn, user, groups)
        if self._is_admin(conn, user, roles):
            return None
        holders = self._holders(user, roles, groups)
        if grant_store.held(conn, holders, [ObjectIds(ObjectType.GLOBAL).key]):
            return None
        return roles, holders

    def visible_databases(self, user: str | None, names: Sequence[str], groups: Sequence[str] = ()) -> list[str]:
        """Of ``names``, the databases ``user`` may see: in ``privileges`` mode those it owns or holds a
        privilege on (or on one of their tables); all of them otherwise."""
        if self.policy.mode is not AccessMode.PRIVILEGES:
            return list(names)
        if user is None:
            return []
        with self.ctx.store.read() as conn:
            scope = self._listing_scope(conn, user, groups)
            if scope is None:
                return list(names)
            roles, holders = scope
            granted = grant_store.granted_databases(conn, holders)
            rows = grant_store.database_owners(conn, list(names), current_catalog())
            seen = {r.name for r in rows if r.db_id in granted or self._owns(r.owner_name, r.owner_type, user, roles)}
        return [name for name in names if name in seen]

    def visible_tables(
        self, user: str | None, database: str, names: Sequence[str], groups: Sequence[str] = ()
    ) -> list[str]:
        """Of the tables ``names`` of ``database``, those ``user`` may see: in ``privileges`` mode those it owns
        or holds a privilege on (there, on the database or globally); all of them otherwise."""
        if self.policy.mode is not AccessMode.PRIVILEGES:
            return list(names)
        if user is None:
            return []
        with self.ctx.store.read() as conn:
            scope = self._listing_scope(conn, user, groups)
            if scope is None:
                return list(names)
            roles, holders = scope
            databases = grant_store.database_owners(conn, [normalize(database)], current_catalog())
            if not databases:
                return []
            db_id = databases[0].db_id
            if grant_store.held(conn, holders, [ObjectIds(ObjectType.DATABASE, db_id).key]):
                return list(names)
            granted = grant_store.granted_tables(conn, holders, db_id)
            rows = grant_store.table_owners(conn, db_id, [normalize(n) for n in names])
            seen = {r.name for r in rows if r.tbl_id in granted or self._owns(r.owner_name, r.owner_type, user, roles)}
        return [name for name in names if normalize(name) in seen]

    # -- roles ------------------------------------------------------------------------------------

    def _require_admin(self, conn: Connection, caller: str | None, operation: str, groups: Sequence[str]) -> None:
        if self.policy.enforced and (caller is None or not self._is_admin(conn, caller, groups=groups)):
            raise AccessDeniedError(
                f"Permission denied: Principal {Principal(caller or '')} does not have "
                f"following privileges for operation {operation} [[ADMIN PRIVILEGE] on Object "
                f"{GLOBAL}]"
            )

    def create_role(self, role: Role, caller: str | None, groups: Sequence[str] = ()) -> None:
        name = (role.name or "").strip()
        if not name:
            raise InvalidInputError("Role name cannot be empty")
        if name == PUBLIC_ROLE:
            # Hive's text, spelling included
            raise InvalidOperationError(f"{PUBLIC_ROLE} role implictly exists. It can't be created.")
        with self.ctx.store.write() as conn:
            self._require_admin(conn, caller, "CREATEROLE", groups)
            if grant_store.role_row(conn, name) is not None:
                raise AlreadyExistsError(f"Role {name} already exists.")
            grant_store.add_role(conn, name, role.create_time or self.ctx.now(), role.owner or caller or "")
        log.info("created role %s (by %s)", name, caller or "-")

    def drop_role(self, name: str, caller: str | None, groups: Sequence[str] = ()) -> None:
        if name in BUILTIN_ROLES:
            raise InvalidOperationError(f"{PUBLIC_ROLE},{ADMIN_ROLE} roles can't be dropped.")
        with self.ctx.store.write() as conn:
            self._require_admin(conn, caller, "DROPROLE", groups)
            grant_store.remove_role(conn, self._role(conn, name).role_id, name)
        log.info("dropped role %s (by %s)", name, caller or "-")

    @staticmethod
    def _role(conn: Connection, name: str) -> RoleRecord:
        row = grant_store.role_row(conn, name or "")
        if row is None:
            raise NoSuchObjectError(f"Role {name} does not exist")
        return row

    def role_names(self) -> list[str]:
        with self.ctx.store.read() as conn:
            return [row.name for row in grant_store.role_rows(conn)]

    def roles(self) -> dict[str, Role]:
        with self.ctx.store.read() as conn:
            return {r.name: Role(r.name, r.create_time, r.owner_name or "") for r in grant_store.role_rows(conn)}

    def grant_role(
        self,
        role: str,
        grantee: Principal,
        grantor: Principal,
        grant_option: bool,
        caller: str | None,
        groups: Sequence[str] = (),
    ) -> None:
        """Make ``grantee`` a member of ``role`` (with its admin option when ``grant_option``); a member
        granted the option again gains it."""
        if not grantee.name:
            raise InvalidInputError("The principal to grant a role to has no name")
        with self.ctx.store.write() as conn:
            row = self._role(conn, role)
            self._require_role_admin(conn, caller, row, "GRANT_ROLE", groups)
            if role == PUBLIC_ROLE:
                raise InvalidOperationError(
                    f"No user can be added to {PUBLIC_ROLE}. Since all users implicitly belong to {PUBLIC_ROLE} role."
                )
            if grantee.type is PrincipalType.ROLE:
                self._role(conn, grantee.name)
                if (
                    grantee.name == role
                    or role in self._roles_of_role(conn, grantee.name) - {PUBLIC_ROLE}
                    or grantee.name in self._roles_of_role(conn, role)
                ):
                    raise InvalidOperationError(f"Cannot grant role {role} to {grantee.name}: it would make a cycle")
            member = grant_store.member_row(conn, row.role_id, grantee, lock=True)
            if member is not None:
                if grant_option and not member.grant_option:
                    grant_store.set_member_grant_option(conn, row.role_id, grantee, True)
                    return
                raise InvalidObjectError(f"Principal {grantee.name} already has the role {role}")
            grant_store.add_member(conn, row.role_id, grantee, grant_option, self.ctx.now(), grantor)

    def _roles_of_role(self, conn: Connection, role: str) -> set[str]:
        roles: set[str] = set()
        frontier = [Principal(role, PrincipalType.ROLE)]
        while frontier:
            found = {r.role_name for r in grant_store.memberships(conn, frontier)} - roles
            roles |= found
            frontier = [Principal(name, PrincipalType.ROLE) for name in found]
        return roles

    def _require_role_admin(
        self, conn: Connection, caller: str | None, role: RoleRecord, operation: str, groups: Sequence[str]
    ) -> None:
        """Admins, and members holding the role's admin option, grant and revoke it."""
        if not self.policy.enforced or (caller is not None and self._is_admin(conn, caller, groups=groups)):
            return
        if caller is not None:
            holders = self._holders(caller, self._roles_of(conn, caller, groups), groups)
            members = (grant_store.member_row(conn, role.role_id, h) for h in holders)
            if any(m is not None and m.grant_option for m in members):
                return
        raise AccessDeniedError(
            f"Permission denied: Principal {Principal(caller or '')} does not have following "
            f"privileges for operation {operation} [[ADMIN OPTION] on Object "
            f"[type=ROLE, name={role.name}]]"
        )

    def revoke_role(
        self, role: str, grantee: Principal, grant_option_only: bool, caller: str | None, groups: Sequence[str] = ()
    ) -> None:
        """End ``grantee``'s membership of ``role``, or only its admin option when ``grant_option_only``."""
        with self.ctx.store.write() as conn:
            row = self._role(conn, role)
            self._require_role_admin(conn, caller, row, "REVOKE_ROLE", groups)
            if grant_store.member_row(conn, row.role_id, grantee, lock=True) is None:
                raise NoSuchObjectError(f"Cannot find role grant: {grantee.name} does not have the role {role}")
            if grant_option_only:
                grant_store.set_member_grant_option(conn, row.role_id, grantee, False)
            else:
                grant_store.remove_member(conn, row.role_id, grantee)

    def role_grants_of(self, principal: Principal) -> list[RoleGrant]:
        """The roles granted to ``principal`` directly (``public`` implied for every user)."""
        with self.ctx.store.read() as conn:
            grants = [_role_grant(r) for r in grant_store.memberships(conn, [principal])]
        if principal.type is PrincipalType.USER:
            grants.append(RoleGrant(PUBLIC_ROLE, principal, grantor=None))
        return grants

    def members(self, role: str) -> list[RoleGrant]:
        with self.ctx.store.read() as conn:
            return [_role_grant(r) for r in grant_store.members(conn, self._role(conn, role).role_id)]

    # -- privileges -------------------------------------------------------------------------------

    def _ids(self, conn: Connection, target: SecuredObject) -> ObjectIds:
        """The rows ``target`` lies in; ``NoSuchObjectError`` when it does not exist."""
        if target.type is ObjectType.GLOBAL:
            return ObjectIds(ObjectType.GLOBAL)
        db_row = db_store.get_row(conn, normalize(target.database or ""))
        if target.type is ObjectType.DATABASE:
            return ObjectIds(ObjectType.DATABASE, db_row.db_id)
        try:
            tbl_row = table_store.get_row(conn, db_row.name, normalize(target.table or ""))
        except NoSuchTableError as e:
            raise NoSuchObjectError(str(e)) from e
        part_id = None
        if target.partition:
            keys = table_store.get_keys(conn, db_row.name, tbl_row.name).partition_keys
            if len(keys) != len(target.partition):
                raise InvalidInputError(
                    f"{db_row.name}.{tbl_row.name} has {len(keys)} partition keys, the "
                    f"privilege's partition {len(target.partition)} values"
                )
            name = make_partition_name([k.name for k in keys], list(target.partition))
            part_id = partition_store.ids_by_name(conn, tbl_row.tbl_id, [name]).get(name)
            if part_id is None:
                raise NoSuchObjectError(f"Partition {name} of {db_row.name}.{tbl_row.name} does not exist")
        if target.type is ObjectType.PARTITION and part_id is None:
            raise InvalidInputError("A partition privilege needs the partition's values")
        if target.type is ObjectType.COLUMN and not target.column:
            raise InvalidInputError("A column privilege needs the column's name")
        return ObjectIds(
            target.type,
            db_row.db_id,
            tbl_row.tbl_id,
            part_id,
            normalize(target.column) if target.type is ObjectType.COLUMN and target.column else None,
        )

    def _require_grantable(
        self,
        conn: Connection,
        caller: str | None,
        target: SecuredObject,
        ids: ObjectIds,
        privilege: str,
        operation: str,
        groups: Sequence[str],
    ) -> None:
        """Admins, the object's owner, and holders of the privilege (or ``ALL``) with its grant option grant
        and revoke it."""
        if not self.policy.enforced or (caller is not None and self._is_admin(conn, caller, groups=groups)):
            return
        if caller is not None:
            roles = self._roles_of(conn, caller, groups)
            owner = self._owner(conn, target) if target.type is not ObjectType.GLOBAL else None
            if owner is not None and self._owns(owner.owner_name, owner.owner_type, caller, roles):
                return
            holders = self._holders(caller, roles, groups)
            held = grant_store.held(conn, holders, [ids.key])
            if any(r.grant_option and r.privilege in (privilege, ALL) for r in held):
                return
        raise AccessDeniedError(
            f"Permission denied: Principal {Principal(caller or '')} does not have following "
            f"privileges for operation {operation} [[{privilege} with grant] on Object {target}]"
        )

    def grant_privileges(
        self, grants: Sequence[PrivilegeGrant], caller: str | None, groups: Sequence[str] = ()
    ) -> None:
        """All of ``grants`` or none; one already granted is ``InvalidObjectError``, as in Hive, except that a
        grant with its grant option adds the option to one without."""
        with self.ctx.store.write() as conn:
            for grant in grants:
                privilege = self._privilege_name(grant)
                ids = self._ids(conn, grant.object)
                self._require_grantable(conn, caller, grant.object, ids, privilege, "GRANT_PRIVILEGE", groups)
                existing = grant_store.grant_row(conn, ids, grant.grantee, privilege, lock=True)
                if existing is not None:
                    if grant.grant_option and not existing.grant_option:
                        grant_store.set_grant_option(conn, existing.grant_id, True)
                        continue
                    raise InvalidObjectError(
                        f"{privilege} is already granted on {grant.object} to "
                        f"{grant.grantee.name} by {existing.grantor}"
                    )
                grantor = grant.grantor if grant.grantor.name else Principal(caller or "")
                grant_store.add_grant(
                    conn,
                    ids,
                    grant.grantee,
                    privilege,
                    grant.grant_option,
                    grant.create_time or self.ctx.now(),
                    grantor,
                )
        log.info("granted %d privileges (by %s)", len(grants), caller or "-")

    def revoke_privileges(
        self,
        grants: Sequence[PrivilegeGrant],
        grant_option_only: bool,
        caller: str | None,
        groups: Sequence[str] = (),
    ) -> None:
        """All of ``grants`` or none; one not granted is ``InvalidObjectError``. ``grant_option_only``
        revokes only the grant option."""
        with self.ctx.store.write() as conn:
            for grant in grants:
                privilege = self._privilege_name(grant)
                ids = self._ids(conn, grant.object)
                self._require_grantable(conn, caller, grant.object, ids, privilege, "REVOKE_PRIVILEGE", groups)
                existing = grant_store.grant_row(conn, ids, grant.grantee, privilege, lock=True)
                if existing is None:
                    raise InvalidObjectError(
                        f"No privilege {privilege} is granted on {grant.object} to {grant.grantee.name}"
                    )
                if grant_option_only:
                    grant_store.set_grant_option(conn, existing.grant_id, False)
                else:
                    grant_store.remove_grant(conn, existing.grant_id)
        log.info(
            "revoked %d privileges%s (by %s)",
            len(grants),
            " (grant option)" if grant_option_only else "",
            caller or "-",
        )

    @staticmethod
    def _privilege_name(grant: PrivilegeGrant) -> str:
        privilege = normalize_privilege(grant.privilege or "")
        if not privilege:
            raise InvalidInputError("A privilege grant needs a privilege name")
        if not grant.grantee.name:
            raise InvalidInputError("A privilege grant needs a grantee")
        return privilege

    def list_privileges(self, principal: Principal | None, target: SecuredObject | None) -> list[PrivilegeGrant]:
        """Grants to ``principal`` (every grantee when None) on ``target`` (every object when None)."""
        with self.ctx.store.read() as conn:
            ids = self._ids(conn, target) if target is not None else None
            return [_privilege_grant(r) for r in grant_store.grants(conn, principal, ids)]

    def privilege_set(self, target: SecuredObject, user: str | None, groups: Sequence[str]) -> PrivilegeSet:
        """What ``user`` (and ``groups``) hold on ``target`` itself: its own grants, its groups' and those of
        every role it or one of its groups belongs to, each of them listed even when it holds nothing there,
        as in Hive. On an object that does not exist they hold nothing, as Hive answers: HiveServer2's SQL
        standard authorization asks about a table before it is renamed to it."""
        with self.ctx.store.read() as conn:
            try:
                rows = grant_store.grants(conn, None, self._ids(conn, target))
            except NoSuchObjectError:  # a database's too
                rows = []
            roles = self._roles_of(conn, user, groups) if user or groups else set()
        answer = PrivilegeSet(
            users={user: []} if user else {}, groups={g: [] for g in groups}, roles={r: [] for r in sorted(roles)}
        )
        for row in rows:
            grant = _privilege_grant(row)
            name, kind = grant.grantee.name, grant.grantee.type
            if kind is PrincipalType.USER and name == user:
                answer.users[name].append(grant)
            elif kind is PrincipalType.GROUP and name in groups:
                answer.groups[name].append(grant)
            elif kind is PrincipalType.ROLE and name in roles:
                answer.roles[name].append(grant)
        return answer

    def may_list_grants(
        self,
        caller: str | None,
        principal: Principal | None,
        target: SecuredObject | None = None,
        groups: Sequence[str] = (),
    ) -> bool:
        """Whether ``caller`` (a member of ``groups``) may list ``principal``'s roles or grants (every
        grantee's on ``target`` when ``principal`` is None): admins anyone's, others their own, their
        groups' and their roles', an object's owner every grant on it; everyone when nothing is enforced."""
        if not self.policy.enforced:
            return True
        if caller is None:
            return False
        with self.ctx.store.read() as conn:
            roles = self._roles_of(conn, caller, groups)
            if self._is_admin(conn, caller, roles):
                return True
            if principal is None:
                owner = self._owner(conn, target) if target is not None else None
                return owner is not None and self._owns(owner.owner_name, owner.owner_type, caller, roles)
            if principal.type is PrincipalType.USER:
                return principal.name == caller
            if principal.type is PrincipalType.GROUP:
                return principal.name in groups
            return principal.type is PrincipalType.ROLE and principal.name in roles
