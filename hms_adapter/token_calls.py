"""The delegation token calls of ``MetastoreHandler``: ``get_delegation_token``, ``renew_delegation_token``
and ``cancel_delegation_token`` over ``Catalog.delegation_tokens``, for the connection's authenticated user.

As in Hive Metastore, only a Kerberos-authenticated caller gets a token, and only for itself (there is no
proxy-user configuration); a token's renewer renews it; its owner or renewer cancels it. A client that
authenticated with a token (DIGEST-MD5) may renew or cancel, not get another.
"""

from __future__ import annotations

from collections.abc import Callable

from hudi_catalog import Catalog
from hudi_catalog.authorization import ObjectType, Operation

from . import connection
from .access_rules import access
from .idl import hive


class TokenCalls:
    """Mixed into ``MetastoreHandler``."""

    catalog: Catalog
    user_name: Callable[[str], str]
    """A principal's user name (the server's ``auth_to_local`` mapping)."""

    def _caller(self) -> str:
        user = connection.user() if connection.method() else None
        if not user:
            raise hive.MetaException(
                message="Delegation tokens need an authenticated connection (serve --auth kerberos)"
            )
        return user

    @access(Operation.READ, ObjectType.GLOBAL)
    def get_delegation_token(self, token_owner, renewer_kerberos_principal_name):
        caller, method = self._caller(), connection.method()
        if method != "KERBEROS":
            raise hive.MetaException(
                message="Delegation Token can be issued only with kerberos authentication. "
                f"Current AuthenticationMethod: {method}"
            )
        owner = self.user_name(token_owner) if token_owner else caller
        if owner != caller:
            raise hive.MetaException(
                message=f"User: {connection.principal()} is not allowed to impersonate {token_owner}"
            )
        renewer = self.user_name(renewer_kerberos_principal_name) if renewer_kerberos_principal_name else ""
        return self.catalog.delegation_tokens.issue(owner, renewer)

    @access(Operation.READ, ObjectType.GLOBAL)
    def renew_delegation_token(self, token_str_form):
        return self.catalog.delegation_tokens.renew(token_str_form or "", self._caller())

    @access(Operation.READ, ObjectType.GLOBAL)
    def cancel_delegation_token(self, token_str_form):
        self.catalog.delegation_tokens.cancel(token_str_form or "", self._caller())
