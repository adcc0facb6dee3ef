"""Roles, role grants and privileges, copied as grants the target lacks.

Privileges are listed per object with ``list_privileges`` naming no principal (every grantee's): the
global ones, each copied database's and each copied table's, and granted where the target has no grant
of the same privilege to the same principal. Roles are created by name (Hive's own ``admin`` and
``public`` exist everywhere), then their members granted as the source has them. Column and partition
privileges are not copied (Hive's SQL-standard authorization keeps none).
"""

from __future__ import annotations

from typing import Any

from ..idl import hive
from .endpoint import DEFAULT_CATALOG, Endpoint, TableRef
from .report import Action, Report

BUILT_IN_ROLES = frozenset({"admin", "public"})


class GrantCopier:
    def __init__(self, source: Endpoint, target: Endpoint, report: Report, dry_run: bool) -> None:
        self.source, self.target, self.report, self.dry_run = source, target, report, dry_run

    def copy_roles(self) -> None:
        """Roles and their members, before the objects whose grants name them."""
        self._roles()

    def copy_global(self) -> None:
        """The global privileges (the databases' and tables' are copied with them)."""
        self._privileges("global", hive.HiveObjectRef(objectType=hive.HiveObjectType.GLOBAL))

    def copy_database(self, catalog: str, database: str) -> None:
        ref = hive.HiveObjectRef(objectType=hive.HiveObjectType.DATABASE, dbName=database, catName=_catalog(catalog))
        self._privileges(f"database {database}", ref)

    def copy_table(self, table: TableRef) -> None:
        ref = hive.HiveObjectRef(
            objectType=hive.HiveObjectType.TABLE,
            dbName=table.database,
            objectName=table.name,
            catName=_catalog(table.catalog),
        )
        self._privileges(f"table {table.display}", ref)

    # -- privileges -------------------------------------------------------------------------------------

    def _privileges(self, display: str, ref: Any) -> None:
        wanted = self.source.read("list_privileges", None, None, ref) or []
        if not wanted:
            return
        present = {_privilege_key(p) for p in self.target.read("list_privileges", None, None, ref) or []}
        missing = [p for p in wanted if _privilege_key(p) not in present]
        if not missing:
            return
        if not self.dry_run:
            for privilege in missing:
                privilege.hiveObject = ref
            self.target.write("grant_privileges", hive.PrivilegeBag(privileges=missing))
        self.report.add("grants", display, Action.CREATED, ", ".join(sorted(_describe(p) for p in missing)))

    # -- roles ------------------------------------------------------------------------------------------

    def _roles(self) -> None:
        names = [n for n in self.source.read("get_role_names") or [] if n.lower() not in BUILT_IN_ROLES]
        present = {n.lower() for n in self.target.read("get_role_names") or []}
        for name in sorted(names):
            if name.lower() not in present:
                if not self.dry_run:
                    self.target.write("create_role", hive.Role(roleName=name))
                self.report.add("role", name, Action.CREATED)
            self._members(name, exists=name.lower() in present)

    def _members(self, role: str, exists: bool) -> None:
        request = hive.GetPrincipalsInRoleRequest(roleName=role)
        wanted = self.source.read("get_principals_in_role", request).principalGrants or []
        present = (
            {_member_key(g) for g in self.target.read("get_principals_in_role", request).principalGrants or []}
            if exists
            else set()
        )
        missing = [g for g in wanted if _member_key(g) not in present]
        for grant in missing:
            if not self.dry_run:
                self.target.write(
                    "grant_role",
                    role,
                    grant.principalName,
                    grant.principalType,
                    grant.grantorName,
                    grant.grantorPrincipalType,
                    bool(grant.grantOption),
                )
        if missing:
            members = ", ".join(f"{_principal(g.principalType)} {g.principalName}" for g in missing)
            self.report.add("role", f"{role} members", Action.CREATED, members)


def _catalog(catalog: str) -> str | None:
    return None if catalog == DEFAULT_CATALOG else catalog


def _privilege_key(privilege: Any) -> tuple:
    info = privilege.grantInfo
    return (
        privilege.principalName,
        privilege.principalType,
        (info.privilege or "").upper(),
        bool(info.grantOption),
    )


def _member_key(grant: Any) -> tuple:
    return (grant.principalName, grant.principalType, bool(grant.grantOption))


def _principal(kind: int | None) -> str:
    return hive.PrincipalType._VALUES_TO_NAMES.get(kind, "USER").lower()


def _describe(privilege: Any) -> str:
    return f"{privilege.grantInfo.privilege} to {_principal(privilege.principalType)} {privilege.principalName}"
