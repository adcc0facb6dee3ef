"""Who may do what: the vocabulary of roles, privileges and their enforcement.

Roles and privilege grants follow Hive's model (``HiveObjectPrivilege``, ``RolePrincipalGrant``): a grantee
is a user, a role or a group; an object is the whole catalog (``GLOBAL``), a database, a table, a partition
or a column; a privilege is a name such as ``SELECT``, ``INSERT``, ``UPDATE``, ``DELETE`` or ``ALL``. The
catalog stores any privilege name a client grants, as Hive Metastore does; enforcement reads the ones below.

``AccessMode`` chooses how calls are checked (``serve --authorization``):

- ``none``: nothing is checked (and the roles and privileges API stores what clients send, unchecked);
- ``owner``: everyone reads; an object's owner and the admins change and drop it;
- ``privileges``: Hive's SQL-standard model: reading a table's metadata needs ``SELECT``, adding or changing
  its partitions and statistics ``INSERT``, dropping partitions ``DELETE``, changing or dropping a table
  or a database ownership; listings show only what the caller owns or holds a privilege on.

In both enforcing modes admins (``--admin`` users and members of the ``admin`` role) may do everything;
only they create and drop roles and catalogs.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

ADMIN_ROLE = "admin"
PUBLIC_ROLE = "public"
BUILTIN_ROLES = (ADMIN_ROLE, PUBLIC_ROLE)
"""Roles every catalog has, as Hive Metastore creates them: ``public`` holds every user implicitly."""
ALL = "ALL"
"""The privilege that stands for every other."""


class PrincipalType(enum.Enum):
    USER = 1
    ROLE = 2
    GROUP = 3


class ObjectType(enum.Enum):
    GLOBAL = 1
    DATABASE = 2
    TABLE = 3
    PARTITION = 4
    COLUMN = 5


class AccessMode(enum.Enum):
    NONE = "none"
    OWNER = "owner"
    PRIVILEGES = "privileges"


class Operation(enum.Enum):
    """What a call does to its object; ``privilege`` is what it needs on a table in ``privileges`` mode
    (``None``: ownership)."""

    READ = ("read", "SELECT")
    CREATE = ("create", None)
    WRITE = ("write", "INSERT")
    DELETE = ("delete", "DELETE")
    ALTER = ("alter", None)
    DROP = ("drop", None)
    ADMIN = ("administer", None)

    def __init__(self, verb: str, privilege: str | None) -> None:
        self.verb = verb
        self.privilege = privilege


@dataclass(frozen=True)
class Principal:
    name: str
    type: PrincipalType = PrincipalType.USER

    def __str__(self) -> str:
        return f"[name={self.name}, type={self.type.name}]"


@dataclass(frozen=True)
class SecuredObject:
    """What a privilege is granted on; ``partition``: the partition's values."""

    type: ObjectType
    database: str | None = None
    table: str | None = None
    partition: tuple[str, ...] | None = None
    column: str | None = None

    @classmethod
    def of_table(cls, database: str, table: str) -> SecuredObject:
        return cls(ObjectType.TABLE, database, table)

    @classmethod
    def of_database(cls, database: str) -> SecuredObject:
        return cls(ObjectType.DATABASE, database)

    def __str__(self) -> str:
        partition = "/".join(self.partition) if self.partition else None
        parts = [p for p in (self.database, self.table, partition, self.column) if p]
        return f"[type={self.type.name}, name={'.'.join(parts) or '*'}]"


GLOBAL = SecuredObject(ObjectType.GLOBAL)


@dataclass(frozen=True)
class PrivilegeGrant:
    object: SecuredObject
    grantee: Principal
    privilege: str
    grant_option: bool = False
    create_time: int = 0
    grantor: Principal = field(default_factory=lambda: Principal(""))


@dataclass
class PrivilegeSet:
    """What a user holds on an object, by grantee: Hive's ``PrincipalPrivilegeSet``."""

    users: dict[str, list[PrivilegeGrant]] = field(default_factory=dict)
    groups: dict[str, list[PrivilegeGrant]] = field(default_factory=dict)
    roles: dict[str, list[PrivilegeGrant]] = field(default_factory=dict)


@dataclass(frozen=True)
class Role:
    name: str
    create_time: int = 0
    owner: str = ""


@dataclass(frozen=True)
class RoleGrant:
    role: str
    grantee: Principal
    grant_option: bool = False
    grant_time: int = 0
    grantor: Principal | None = None
    """None for the implicit membership of ``public``."""


@dataclass(frozen=True)
class AccessPolicy:
    """How calls are checked: the mode and the users who are admins whatever the stored roles say."""

    mode: AccessMode = AccessMode.NONE
    admins: frozenset[str] = frozenset()

    @property
    def enforced(self) -> bool:
        return self.mode is not AccessMode.NONE


def normalize_privilege(name: str) -> str:
    """Privilege names compare case-insensitively, as Hive's (stored in upper case)."""
    return name.strip().upper()
