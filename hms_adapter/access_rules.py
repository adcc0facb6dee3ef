"""Access rules of the Hive Metastore calls, for ``serve --authorization``: each handler method declares with
``@access(action, level)`` the ``Operation`` its call makes and the level of the object it acts on (the
catalog, a database or a table); ``call_target`` reads which object that is.

Every method the handler serves has a rule (a test keeps it so); a call without one is refused when
authorization is enforced. Calls that name no object and change nothing of others' (fb303, session
settings, locks and transactions, delegation tokens, whose own rules apply) read the catalog. The roles and
privileges calls check their callers themselves (``AuthorizationService``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from hudi_catalog.authorization import GLOBAL, ObjectType, Operation, SecuredObject

from .call_target import CallTarget


@dataclass(frozen=True)
class Rule:
    action: Operation
    level: ObjectType
    """``GLOBAL``, ``DATABASE`` or ``TABLE``."""


ACCESS_RULE = "access_rule"
"""The attribute ``access`` sets on the method it decorates."""

Method = TypeVar("Method", bound=Callable[..., Any])


def access(action: Operation, level: ObjectType) -> Callable[[Method], Method]:
    """Declares the rule of the handler method it decorates: the ``action`` a call makes on the object of
    ``level`` (``GLOBAL``, ``DATABASE`` or ``TABLE``) its arguments name."""
    rule = Rule(action, level)

    def declare(method: Method) -> Method:
        setattr(method, ACCESS_RULE, rule)
        return method

    return declare


def rule_of(method: object) -> Rule | None:
    """The rule ``access`` declared on a handler method (bound or not); ``None`` when it has none."""
    return getattr(method, ACCESS_RULE, None)


def target_of(rule: Rule, call: CallTarget) -> SecuredObject | None:
    """The object a call acts on at its rule's level; None when its arguments do not name one."""
    if rule.level is ObjectType.GLOBAL:
        return GLOBAL
    if not call.database:
        return None
    if rule.level is ObjectType.DATABASE:
        return SecuredObject.of_database(call.database)
    return SecuredObject.of_table(call.database, call.table) if call.table else None
