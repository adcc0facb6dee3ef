"""Roles, privilege grants and the checks of ``--authorization``, on SQLite and MariaDB: what Hive's rules
allow and refuse, all-or-nothing batches, grants that follow their objects, and who may do what."""

from __future__ import annotations

import pytest

from hudi_catalog import Catalog
from hudi_catalog.authorization import (
    GLOBAL,
    AccessMode,
    AccessPolicy,
    ObjectType,
    Operation,
    Principal,
    PrincipalType,
    PrivilegeGrant,
    Role,
    SecuredObject,
)
from hudi_catalog.errors import (
    AccessDeniedError,
    AlreadyExistsError,
    InvalidInputError,
    InvalidObjectError,
    InvalidOperationError,
    NoSuchObjectError,
)
from hudi_catalog.model import Column, Database, Partition, StorageDescriptor, Table

ALICE, BOB, CAROL = Principal("alice"), Principal("bob"), Principal("carol")
ANALYSTS = Principal("analysts", PrincipalType.ROLE)
ORDERS = SecuredObject.of_table("sales", "orders")


def _table(name: str, owner: str = "alice", owner_type: str = "USER") -> Table:
    return Table(
        "sales",
        name,
        sd=StorageDescriptor(columns=[Column("x", "int")]),
        partition_keys=[Column("ds", "string")],
        owner=owner,
        owner_type=owner_type,
    )


@pytest.fixture
def sales(catalog: Catalog) -> Catalog:
    catalog.databases.create(Database("sales", owner_name="alice", owner_type="USER"))
    catalog.tables.create(_table("orders"))
    catalog.partitions.add("sales", "orders", [Partition("sales", "orders", ["2024"])])
    return catalog


def _enforcing(catalog: Catalog, mode: AccessMode, admins=("root",)) -> None:
    catalog.authorization.policy = AccessPolicy(mode, frozenset(admins))


def _grant(target: SecuredObject, grantee: Principal, privilege: str, grant_option: bool = False):
    return PrivilegeGrant(target, grantee, privilege, grant_option, grantor=Principal("root"))


# -- roles --------------------------------------------------------------------------------------


def test_roles_are_made_dropped_and_hives_built_in_roles_stay(catalog):
    roles = catalog.authorization
    assert roles.role_names() == ["admin", "public"]
    roles.create_role(Role("analysts"), None)
    with pytest.raises(AlreadyExistsError):
        roles.create_role(Role("analysts"), None)
    with pytest.raises(InvalidOperationError, match="public role implictly exists"):
        roles.create_role(Role("public"), None)
    with pytest.raises(InvalidInputError):
        roles.create_role(Role(" "), None)
    for built_in in ("admin", "public"):
        with pytest.raises(InvalidOperationError, match="can't be dropped"):
            roles.drop_role(built_in, None)
    assert roles.role_names() == ["admin", "analysts", "public"]
    roles.drop_role("analysts", None)
    with pytest.raises(NoSuchObjectError):
        roles.drop_role("analysts", None)
    assert roles.role_names() == ["admin", "public"]


def test_role_membership_nests_and_cycles_are_refused(catalog):
    roles = catalog.authorization
    for name in ("analysts", "staff"):
        roles.create_role(Role(name), None)
    roles.grant_role("staff", ANALYSTS, Principal("root"), False, None)
    roles.grant_role("analysts", BOB, Principal("root"), True, None)
    with pytest.raises(InvalidObjectError, match="already has the role"):
        roles.grant_role("analysts", BOB, Principal("root"), False, None)
    with pytest.raises(InvalidOperationError, match="cycle"):
        roles.grant_role("analysts", Principal("staff", PrincipalType.ROLE), Principal("root"), False, None)
    with pytest.raises(InvalidOperationError, match="No user can be added to public"):
        roles.grant_role("public", BOB, Principal("root"), False, None)
    assert [(g.role, g.grant_option) for g in roles.role_grants_of(BOB)] == [("analysts", True), ("public", False)]
    assert [(g.grantee.name, g.grantee.type) for g in roles.members("staff")] == [("analysts", PrincipalType.ROLE)]
    roles.revoke_role("analysts", BOB, True, None)  # only the admin option
    assert [(g.role, g.grant_option) for g in roles.role_grants_of(BOB)][0] == ("analysts", False)
    roles.revoke_role("analysts", BOB, False, None)
    assert [g.role for g in roles.role_grants_of(BOB)] == ["public"]
    with pytest.raises(NoSuchObjectError):
        roles.revoke_role("analysts", BOB, False, None)


# -- grants ---------------------------------------------------------------------------------------


def test_grants_are_listed_by_grantee_and_object_and_a_bad_batch_changes_nothing(sales):
    roles = sales.authorization
    partition = SecuredObject(ObjectType.PARTITION, "sales", "orders", ("2024",))
    column = SecuredObject(ObjectType.COLUMN, "sales", "orders", None, "x")
    roles.grant_privileges(
        [
            _grant(ORDERS, BOB, "select"),
            _grant(partition, BOB, "INSERT"),
            _grant(column, CAROL, "SELECT"),
            _grant(GLOBAL, CAROL, "ALL"),
        ],
        None,
    )
    listed = {
        (g.object.type, g.object.partition, g.object.column, g.privilege) for g in roles.list_privileges(BOB, None)
    }
    assert listed == {(ObjectType.TABLE, None, None, "SELECT"), (ObjectType.PARTITION, ("2024",), None, "INSERT")}
    assert [(g.grantee.name, g.privilege) for g in roles.list_privileges(None, column)] == [("carol", "SELECT")]
    assert [g.grantor.name for g in roles.list_privileges(CAROL, GLOBAL)] == ["root"]

    with pytest.raises(InvalidObjectError, match="already granted"):
        roles.grant_privileges([_grant(ORDERS, CAROL, "DELETE"), _grant(ORDERS, BOB, "SELECT")], None)
    with pytest.raises(NoSuchObjectError):
        roles.grant_privileges(
            [_grant(ORDERS, CAROL, "DELETE"), _grant(SecuredObject.of_table("sales", "nope"), CAROL, "SELECT")], None
        )
    assert roles.list_privileges(CAROL, ORDERS) == []  # neither batch left a grant behind

    roles.grant_privileges([_grant(ORDERS, BOB, "SELECT", grant_option=True)], None)  # adds the option
    assert [g.grant_option for g in roles.list_privileges(BOB, ORDERS)] == [True]
    roles.revoke_privileges([_grant(ORDERS, BOB, "SELECT")], True, None)  # only the option
    assert [g.grant_option for g in roles.list_privileges(BOB, ORDERS)] == [False]
    roles.revoke_privileges([_grant(ORDERS, BOB, "SELECT")], False, None)
    assert roles.list_privileges(BOB, ORDERS) == []
    with pytest.raises(InvalidObjectError, match="No privilege SELECT"):
        roles.revoke_privileges([_grant(ORDERS, BOB, "SELECT")], False, None)


def test_grants_follow_their_objects_and_their_roles(sales):
    roles = sales.authorization
    roles.create_role(Role("analysts"), None)
    roles.grant_privileges([_grant(ORDERS, ANALYSTS, "SELECT"), _grant(ORDERS, BOB, "INSERT")], None)
    table = sales.tables.get("sales", "orders")
    table.name = "orders_2024"
    sales.tables.alter("sales", "orders", table)
    renamed = SecuredObject.of_table("sales", "orders_2024")
    assert {g.privilege for g in roles.list_privileges(None, renamed)} == {"SELECT", "INSERT"}
    roles.drop_role("analysts", None)
    assert [g.privilege for g in roles.list_privileges(None, renamed)] == ["INSERT"]
    sales.tables.drop("sales", "orders_2024", False)
    sales.tables.create(_table("orders_2024"))
    assert roles.list_privileges(None, renamed) == []  # a new table of the old name inherits nothing


def test_privilege_set_holds_the_users_its_groups_and_its_roles_grants(sales):
    roles = sales.authorization
    roles.create_role(Role("analysts"), None)
    roles.grant_role("analysts", BOB, Principal("root"), False, None)
    roles.grant_privileges(
        [
            _grant(ORDERS, ANALYSTS, "SELECT"),
            _grant(ORDERS, BOB, "INSERT"),
            _grant(ORDERS, Principal("etl", PrincipalType.GROUP), "DELETE"),
            _grant(ORDERS, CAROL, "UPDATE"),
        ],
        None,
    )
    held = roles.privilege_set(ORDERS, "bob", ["etl"])
    assert {n: [g.privilege for g in gs] for n, gs in held.users.items()} == {"bob": ["INSERT"]}
    assert {n: [g.privilege for g in gs] for n, gs in held.groups.items()} == {"etl": ["DELETE"]}
    assert {n: [g.privilege for g in gs] for n, gs in held.roles.items()} == {"analysts": ["SELECT"], "public": []}


# -- enforcement ----------------------------------------------------------------------------------


OWNER_MODE = [
    # (user, action, object, allowed)
    ("bob", Operation.READ, ORDERS, True),
    ("bob", Operation.CREATE, SecuredObject.of_database("sales"), True),
    ("bob", Operation.WRITE, ORDERS, False),
    ("bob", Operation.ALTER, ORDERS, False),
    ("bob", Operation.DROP, ORDERS, False),
    ("bob", Operation.DROP, SecuredObject.of_database("sales"), False),
    ("bob", Operation.ADMIN, GLOBAL, False),
    ("alice", Operation.DROP, ORDERS, True),
    ("alice", Operation.ALTER, SecuredObject.of_database("sales"), True),
    ("root", Operation.DROP, ORDERS, True),
    ("root", Operation.ADMIN, GLOBAL, True),
    ("bob", Operation.DROP, SecuredObject.of_table("sales", "missing"), True),  # the call says it is missing
]


@pytest.mark.parametrize("user, action, target, allowed", OWNER_MODE)
def test_owner_mode(sales, user, action, target, allowed):
    _enforcing(sales, AccessMode.OWNER)
    _check(sales, user, action, target, allowed)


def _check(catalog, user, action, target, allowed):
    if allowed:
        catalog.authorization.require(user, action, target, "op")
        return
    with pytest.raises(AccessDeniedError) as denied:
        catalog.authorization.require(user, action, target, "op")
    assert f"Principal [name={user}, type=USER]" in str(denied.value)
    assert str(target) in str(denied.value)


PRIVILEGES_MODE = [
    ("bob", Operation.READ, ORDERS, True),  # SELECT through the analysts role
    ("bob", Operation.WRITE, ORDERS, False),
    ("carol", Operation.READ, ORDERS, False),
    ("carol", Operation.WRITE, ORDERS, True),  # INSERT on the database
    ("carol", Operation.DELETE, ORDERS, True),
    ("carol", Operation.DROP, ORDERS, False),
    ("carol", Operation.CREATE, SecuredObject.of_database("sales"), True),
    ("dave", Operation.READ, ORDERS, False),
    ("dave", Operation.CREATE, SecuredObject.of_database("sales"), False),
    ("dave", Operation.CREATE, GLOBAL, True),
    ("dave", Operation.READ, SecuredObject.of_database("sales"), True),
    ("erin", Operation.DROP, SecuredObject.of_table("sales", "team_table"), True),  # owned by her role
    ("erin", Operation.ADMIN, GLOBAL, True),  # a member of the admin role
    ("alice", Operation.DROP, ORDERS, True),
]


@pytest.mark.parametrize("user, action, target, allowed", PRIVILEGES_MODE)
def test_privileges_mode(sales, user, action, target, allowed):
    roles = sales.authorization
    roles.create_role(Role("analysts"), None)
    roles.create_role(Role("team"), None)
    roles.grant_role("analysts", BOB, Principal("root"), False, None)
    roles.grant_role("team", Principal("erin"), Principal("root"), False, None)
    roles.grant_role("admin", Principal("team", PrincipalType.ROLE), Principal("root"), False, None)
    sales.tables.create(_table("team_table", owner="team", owner_type="ROLE"))
    sales_db = SecuredObject.of_database("sales")
    roles.grant_privileges(
        [
            _grant(ORDERS, ANALYSTS, "SELECT"),
            _grant(sales_db, CAROL, "INSERT"),
            _grant(sales_db, CAROL, "DELETE"),
            _grant(sales_db, CAROL, "CREATE"),
        ],
        None,
    )
    _enforcing(sales, AccessMode.PRIVILEGES)
    _check(sales, user, action, target, allowed)


def test_all_stands_for_every_privilege(sales):
    sales.authorization.grant_privileges([_grant(ORDERS, BOB, "ALL")], None)
    _enforcing(sales, AccessMode.PRIVILEGES)
    for action in (Operation.READ, Operation.WRITE, Operation.DELETE):
        sales.authorization.require("bob", action, ORDERS, "op")
    with pytest.raises(AccessDeniedError, match="OBJECT OWNERSHIP"):
        sales.authorization.require("bob", Operation.ALTER, ORDERS, "op")


def test_listings_show_only_what_the_caller_may_see(sales):
    roles = sales.authorization
    sales.databases.create(Database("hr", owner_name="root", owner_type="USER"))
    sales.tables.create(_table("customers", owner="root"))
    roles.grant_privileges([_grant(ORDERS, BOB, "SELECT")], None)
    _enforcing(sales, AccessMode.PRIVILEGES)
    every = ["default", "hr", "sales"]
    assert sales.databases.get("default").owner_type == "ROLE"  # owned by public, as in Hive: everyone's
    assert roles.visible_databases("bob", every) == ["default", "sales"]
    assert roles.visible_databases("alice", every) == ["default", "sales"]
    assert roles.visible_databases("carol", every) == ["default"]
    assert roles.visible_databases("root", every) == every
    assert roles.visible_tables("bob", "sales", ["customers", "orders"]) == ["orders"]
    assert roles.visible_tables("alice", "sales", ["customers", "orders"]) == ["orders"]
    assert roles.visible_tables("carol", "sales", ["customers", "orders"]) == []
    roles.grant_privileges([_grant(SecuredObject.of_database("sales"), CAROL, "SELECT")], "root")
    assert roles.visible_tables("carol", "sales", ["customers", "orders"]) == ["customers", "orders"]
    _enforcing(sales, AccessMode.OWNER)
    assert roles.visible_tables("dave", "sales", ["customers", "orders"]) == ["customers", "orders"]


def test_only_admins_manage_roles_and_owners_or_grant_holders_grant(sales):
    roles = sales.authorization
    roles.create_role(Role("analysts"), None)
    roles.grant_role("analysts", BOB, Principal("root"), True, None)
    _enforcing(sales, AccessMode.PRIVILEGES)
    with pytest.raises(AccessDeniedError, match="ADMIN PRIVILEGE"):
        roles.create_role(Role("mine"), "bob")
    roles.create_role(Role("mine"), "root")
    roles.grant_role("analysts", CAROL, Principal("bob"), False, "bob")  # bob holds the admin option
    with pytest.raises(AccessDeniedError, match="ADMIN OPTION"):
        roles.grant_role("analysts", Principal("dave"), Principal("carol"), False, "carol")
    with pytest.raises(AccessDeniedError, match="SELECT with grant"):
        roles.grant_privileges([_grant(ORDERS, CAROL, "SELECT")], "bob")
    roles.grant_privileges([_grant(ORDERS, BOB, "SELECT", grant_option=True)], "alice")  # the owner
    roles.grant_privileges([_grant(ORDERS, CAROL, "SELECT")], "bob")  # with the grant option now
    assert {g.grantee.name for g in roles.list_privileges(None, ORDERS)} == {"bob", "carol"}
    assert roles.may_list_grants("bob", BOB) and not roles.may_list_grants("bob", CAROL)
    assert roles.may_list_grants("bob", ANALYSTS) and roles.may_list_grants("alice", None, ORDERS)
    assert not roles.may_list_grants("bob", None, ORDERS)
    with pytest.raises(AccessDeniedError):
        roles.require(None, Operation.READ, ORDERS, "get_table")
