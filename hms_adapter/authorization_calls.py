"""The roles and privileges calls of ``MetastoreHandler`` over ``Catalog.authorization``, and the check of
every call under ``serve --authorization`` (``authorize``, run by the processor before the call).

A call runs as the connection's authenticated user, a member of the groups its identity names (the password
file's; a Kerberos principal or a delegation token names none); a client's ``set_ugi`` claim, user or
groups, counts for nothing here.
Listings (databases, tables) are filtered by ``visible_databases`` and ``visible_tables``.
"""

from __future__ import annotations

from hudi_catalog import Catalog
from hudi_catalog.authorization import ObjectType, Operation, Principal, PrincipalType, Role
from hudi_catalog.errors import AccessDeniedError, NoSuchObjectError

from . import connection
from .access_rules import access, rule_of, target_of
from .call_target import CallTarget
from .convert.names import strip_catalog
from .convert.privileges import (
    from_thrift_bag,
    from_thrift_object,
    principal,
    to_thrift_privilege,
    to_thrift_privilege_set,
    to_thrift_role,
    to_thrift_role_grant,
)
from .idl import hive

GRANT, REVOKE = hive.GrantRevokeType.GRANT, hive.GrantRevokeType.REVOKE


def _caller() -> str | None:
    """The authenticated user of this connection (None without authentication)."""
    return connection.user() if connection.method() else None


def _groups() -> tuple[str, ...]:
    """The groups of this connection's authenticated user (none without authentication)."""
    return connection.groups() if connection.method() else ()


class AuthorizationCalls:
    """Mixed into ``MetastoreHandler``."""

    catalog: Catalog

    # -- enforcement ------------------------------------------------------------------------------

    def authorize(self, api: str, args: list, call: CallTarget) -> None:
        """``AccessDeniedError`` unless the policy lets the caller make this call with these arguments. A
        creator who is not an admin becomes the owner of what it creates, whatever owner it names."""
        authorization = self.catalog.authorization
        if not authorization.policy.enforced:
            return
        rule = rule_of(getattr(self, api, None))
        if rule is None:
            raise AccessDeniedError(f"Permission denied: {api} has no access rule")
        if rule.action is Operation.READ and rule.level is ObjectType.GLOBAL:
            return
        target = target_of(rule, call)
        if target is None:
            raise AccessDeniedError(f"Permission denied: the arguments of {api} name no {rule.level.name.lower()}")
        user = _caller()
        authorization.require(user, rule.action, target, api, _groups())
        if rule.action is Operation.CREATE and user is not None and not authorization.is_admin(user, _groups()):
            for value in args:
                _make_owner(getattr(value, "table", value), user)

    def visible_databases(self, names: list[str]) -> list[str]:
        return self.catalog.authorization.visible_databases(_caller(), names, _groups())

    def visible_tables(self, database: str | None, names: list[str]) -> list[str]:
        return self.catalog.authorization.visible_tables(_caller(), strip_catalog(database) or "", names, _groups())

    def _require_listing(self, who: Principal | None, target=None) -> None:
        if not self.catalog.authorization.may_list_grants(_caller(), who, target, _groups()):
            subject = f"the grants of {who}" if who is not None else "every grant"
            raise AccessDeniedError(f"Permission denied: Principal {Principal(_caller() or '')} may not list {subject}")

    # -- roles ------------------------------------------------------------------------------------

    @access(Operation.READ, ObjectType.GLOBAL)
    def create_role(self, role):
        role = role or hive.Role()
        self.catalog.authorization.create_role(
            Role(role.roleName or "", role.createTime or 0, role.ownerName or ""), _caller(), _groups()
        )
        return True

    @access(Operation.READ, ObjectType.GLOBAL)
    def drop_role(self, role_name):
        """Dropping a role that does not exist succeeds, as in Hive Metastore."""
        try:
            self.catalog.authorization.drop_role(role_name or "", _caller(), _groups())
        except NoSuchObjectError:
            pass
        return True

    @access(Operation.READ, ObjectType.GLOBAL)
    def get_role_names(self):
        return self.catalog.authorization.role_names()

    @access(Operation.READ, ObjectType.GLOBAL)
    def grant_role(self, role_name, principal_name, principal_type, grantor, grantorType, grant_option):
        self.catalog.authorization.grant_role(
            role_name or "",
            principal(principal_name, principal_type),
            self._grantor(grantor, grantorType),
            bool(grant_option),
            _caller(),
            _groups(),
        )
        return True

    @access(Operation.READ, ObjectType.GLOBAL)
    def revoke_role(self, role_name, principal_name, principal_type):
        self.catalog.authorization.revoke_role(
            role_name or "", principal(principal_name, principal_type), False, _caller(), _groups()
        )
        return True

    @access(Operation.READ, ObjectType.GLOBAL)
    def grant_revoke_role(self, request):
        """``REVOKE`` with ``grantOption`` revokes only the admin option, as in Hive."""
        if request.requestType == GRANT:
            self.grant_role(
                request.roleName,
                request.principalName,
                request.principalType,
                request.grantor,
                request.grantorType,
                request.grantOption,
            )
        elif request.requestType == REVOKE:
            self.catalog.authorization.revoke_role(
                request.roleName or "",
                principal(request.principalName, request.principalType),
                bool(request.grantOption),
                _caller(),
                _groups(),
            )
        else:
            raise hive.MetaException(message=f"Unknown request type {request.requestType}")
        return hive.GrantRevokeRoleResponse(success=True)

    @staticmethod
    def _grantor(name: str | None, type_value: int | None) -> Principal:
        """The grantor a client names, or the caller when it names none."""
        return principal(name, type_value) if name else Principal(_caller() or "")

    @access(Operation.READ, ObjectType.GLOBAL)
    def list_roles(self, principal_name, principal_type):
        who = principal(principal_name, principal_type)
        self._require_listing(who)
        roles = self.catalog.authorization.roles()
        return [
            to_thrift_role(roles[g.role]) for g in self.catalog.authorization.role_grants_of(who) if g.role in roles
        ]

    @access(Operation.READ, ObjectType.GLOBAL)
    def get_principals_in_role(self, request):
        self._require_listing(Principal(request.roleName or "", PrincipalType.ROLE))
        grants = self.catalog.authorization.members(request.roleName or "")
        return hive.GetPrincipalsInRoleResponse(principalGrants=[to_thrift_role_grant(g) for g in grants])

    @access(Operation.READ, ObjectType.GLOBAL)
    def get_role_grants_for_principal(self, request):
        who = principal(request.principal_name, request.principal_type)
        self._require_listing(who)
        grants = self.catalog.authorization.role_grants_of(who)
        return hive.GetRoleGrantsForPrincipalResponse(principalGrants=[to_thrift_role_grant(g) for g in grants])

    # -- privileges -------------------------------------------------------------------------------

    @access(Operation.READ, ObjectType.GLOBAL)
    def grant_privileges(self, privileges):
        self.catalog.authorization.grant_privileges(from_thrift_bag(privileges), _caller(), _groups())
        return True

    @access(Operation.READ, ObjectType.GLOBAL)
    def revoke_privileges(self, privileges):
        self.catalog.authorization.revoke_privileges(from_thrift_bag(privileges), False, _caller(), _groups())
        return True

    @access(Operation.READ, ObjectType.GLOBAL)
    def grant_revoke_privileges(self, request):
        """``REVOKE`` with ``revokeGrantOption`` revokes only the grant option, as in Hive."""
        grants = from_thrift_bag(request.privileges)
        if request.requestType == GRANT:
            self.catalog.authorization.grant_privileges(grants, _caller(), _groups())
        elif request.requestType == REVOKE:
            self.catalog.authorization.revoke_privileges(grants, bool(request.revokeGrantOption), _caller(), _groups())
        else:
            raise hive.MetaException(message=f"Unknown request type {request.requestType}")
        return hive.GrantRevokePrivilegeResponse(success=True)

    @access(Operation.READ, ObjectType.GLOBAL)
    def list_privileges(self, principal_name, principal_type, hiveObject):
        """Grants to the principal (every grantee when it names none) on the object (every object when it
        names none)."""
        who = principal(principal_name, principal_type) if principal_name else None
        target = from_thrift_object(hiveObject) if hiveObject is not None and hiveObject.objectType else None
        self._require_listing(who, target)
        return [to_thrift_privilege(g) for g in self.catalog.authorization.list_privileges(who, target)]

    @access(Operation.READ, ObjectType.GLOBAL)
    def get_privilege_set(self, hiveObject, user_name, group_names):
        """What ``user_name`` and ``group_names`` hold on the object, as Hive answers it: the grants to the
        user, to each group, and to every role the user or one of the groups belongs to. Under an enforced
        policy a caller asks about itself and its own groups (an admin about anyone)."""
        if hiveObject is None:
            raise hive.MetaException(message="get_privilege_set needs an object")
        groups = list(group_names or [])
        if user_name:
            self._require_listing(Principal(user_name))
        for group in groups:
            self._require_listing(Principal(group, PrincipalType.GROUP))
        privileges = self.catalog.authorization.privilege_set(from_thrift_object(hiveObject), user_name, groups)
        return to_thrift_privilege_set(privileges)


def _make_owner(struct, user: str) -> None:
    """Set a ``Table``'s ``owner`` or a ``Database``'s ``ownerName`` (and their ``ownerType``) to ``user``."""
    if not hasattr(struct, "thrift_spec"):
        return
    field = "owner" if isinstance(struct, hive.Table) else "ownerName"
    if hasattr(struct, field):
        setattr(struct, field, user)
        if hasattr(struct, "ownerType"):
            struct.ownerType = hive.PrincipalType.USER
