"""``serve --authorization``: a table of principal x call x object run over the wire in each mode, with
users authenticated by SASL PLAIN (``--auth password``) through the Hive 3.1 client of ``hive-metastore-client``.
Denials are ``MetaException``s naming the principal, the call and the object; ``set_ugi`` changes nobody's
rights; in ``privileges`` mode listings hold only what the caller may see; new objects belong to their
creator whatever owner the client names."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from hive_metastore.ttypes import (
    Database,
    MetaException,
    NotificationEventRequest,
    Partition,
    PrincipalType,
    Role,
)
from thrift.Thrift import TApplicationException

from hms_adapter.access_rules import rule_of
from hms_adapter.handler import MetastoreHandler
from hms_adapter.idl import hive
from tests.support.authorization import _grant, _table, _table_ref
from tests.support.servers import CLI, free_port

DENIED = "denied"


def _setup(clients) -> None:
    """alice owns sales (orders, drop_a, drop_b); root owns hr (staff); bob reads orders through a role."""
    alice, root = clients["alice"], clients["root"]
    alice.create_database(Database(name="sales", ownerName="mallory", ownerType=PrincipalType.USER, parameters={}))
    for name in ("orders", "drop_a", "drop_b"):
        alice.create_table(_table("sales", name))
    alice.add_partition(Partition(values=["1"], dbName="sales", tableName="orders", parameters={}))
    root.create_database(Database(name="hr", parameters={}))
    root.create_table(_table("hr", "staff", owner="root"))
    root.create_role(Role(roleName="analysts", createTime=0, ownerName="root"))
    root.grant_role("analysts", "bob", PrincipalType.USER, "root", PrincipalType.USER, False)
    alice.grant_privileges(_grant(_table_ref("sales", "orders"), "analysts", PrincipalType.ROLE, "SELECT"))


def _escalate(client) -> None:
    client.set_ugi("root", ["admin"])
    client.create_role(Role(roleName="mine", createTime=0, ownerName="root"))


def _alter(client, db: str, name: str) -> None:
    table = client.get_table(db, name)
    table.parameters["touched"] = "yes"
    client.alter_table(db, name, table)


@dataclass
class Row:
    user: str
    what: str
    call: Callable
    expected: dict[str, object]
    """By mode: ``DENIED``, or what the call answers (None: anything)."""
    names: tuple[str, ...] = ()
    """What a denial's message must name besides the user."""


def _same(none=None, owner=None, privileges=None) -> dict[str, object]:
    return {"none": none, "owner": owner, "privileges": privileges}


ROWS = [
    # listings first: the rows after them change what there is
    Row(
        "carol",
        "lists the tables of sales",
        lambda c: sorted(c.get_all_tables("sales")),
        _same(["drop_a", "drop_b", "orders"], ["drop_a", "drop_b", "orders"], []),
    ),
    Row(
        "bob",
        "lists the tables of sales",
        lambda c: sorted(c.get_all_tables("sales")),
        _same(["drop_a", "drop_b", "orders"], ["drop_a", "drop_b", "orders"], ["orders"]),
    ),
    Row(
        "bob",
        "lists databases",
        lambda c: c.get_all_databases(),
        _same(["default", "hr", "sales"], ["default", "hr", "sales"], ["default", "sales"]),
    ),
    Row(
        "carol",
        "lists databases",
        lambda c: c.get_all_databases(),
        _same(["default", "hr", "sales"], ["default", "hr", "sales"], ["default"]),
    ),
    Row(
        "bob",
        "reads tables by name",
        lambda c: sorted(t.tableName for t in c.get_table_objects_by_name("sales", ["orders", "drop_a"])),
        _same(["drop_a", "orders"], ["drop_a", "orders"], ["orders"]),
    ),
    Row(
        "bob",
        "lists table metas",
        lambda c: sorted(m.tableName for m in c.get_table_meta("*", "*", [])),
        _same(["drop_a", "drop_b", "orders", "staff"], ["drop_a", "drop_b", "orders", "staff"], ["orders"]),
    ),
    Row(
        "alice",
        "owns what she made, whatever owner she named",
        lambda c: (c.get_database("sales").ownerName, c.get_table("sales", "orders").owner),
        _same(("mallory", "mallory"), ("alice", "alice"), ("alice", "alice")),
    ),
    Row(
        "bob",
        "reads orders (SELECT through analysts)",
        lambda c: c.get_table("sales", "orders").tableName,
        _same("orders", "orders", "orders"),
    ),
    Row(
        "carol",
        "reads orders",
        lambda c: c.get_table("sales", "orders").tableName,
        _same("orders", "orders", DENIED),
        ("get_table", "sales.orders"),
    ),
    Row(
        "carol",
        "reads orders' partitions",
        lambda c: len(c.get_partitions("sales", "orders", -1)),
        _same(1, 1, DENIED),
        ("get_partitions", "sales.orders"),
    ),
    Row(
        "bob",
        "adds a partition to orders",
        lambda c: c.add_partition(Partition(values=["2"], dbName="sales", tableName="orders", parameters={})).values,
        _same(["2"], DENIED, DENIED),
        ("add_partition", "sales.orders"),
    ),
    Row(
        "bob",
        "alters orders",
        lambda c: _alter(c, "sales", "orders"),
        _same(None, DENIED, DENIED),
        ("alter_table", "sales.orders"),
    ),
    Row("root", "alters orders (admin)", lambda c: _alter(c, "sales", "orders"), _same()),
    Row(
        "bob",
        "drops drop_b",
        lambda c: c.drop_table("sales", "drop_b", False),
        _same(None, DENIED, DENIED),
        ("drop_table", "sales.drop_b"),
    ),
    Row("alice", "drops drop_a (owner)", lambda c: c.drop_table("sales", "drop_a", False), _same()),
    Row(
        "carol",
        "creates a table in sales",
        lambda c: c.create_table(_table("sales", "carols")),
        _same(None, None, DENIED),
        ("create_table", "sales"),
    ),
    Row(
        "carol",
        "creates a table in default (owned by public)",
        lambda c: c.create_table(_table("default", "c")),
        _same(),
    ),
    Row("carol", "creates a database", lambda c: c.create_database(Database(name="carols", parameters={})), _same()),
    Row(
        "bob",
        "creates a role",
        lambda c: c.create_role(Role(roleName="bobs", createTime=0, ownerName="bob")),
        _same(True, DENIED, DENIED),
        ("CREATEROLE",),
    ),
    Row(
        "bob",
        "claims to be root with set_ugi and creates a role",
        _escalate,
        _same(None, DENIED, DENIED),
        ("CREATEROLE",),
    ),
    Row(
        "bob",
        "reads notification events",
        lambda c: c.get_next_notification(NotificationEventRequest(lastEvent=0, maxEvents=10)).events is not None,
        _same(True, DENIED, DENIED),
        ("get_next_notification",),
    ),
    Row(
        "bob",
        "lists his own grants",
        lambda c: [
            (p.hiveObject.objectName, p.grantInfo.privilege)
            for p in c.list_privileges("analysts", PrincipalType.ROLE, None)
        ],
        _same([("orders", "SELECT")], [("orders", "SELECT")], [("orders", "SELECT")]),
    ),
    Row(
        "bob",
        "lists carol's grants",
        lambda c: c.list_privileges("carol", PrincipalType.USER, None),
        _same([], DENIED, DENIED),
        ("carol",),
    ),
    Row(
        "bob",
        "asks what he holds on orders",
        lambda c: {
            name: [g.privilege for g in grants]
            for name, grants in (
                c.get_privilege_set(_table_ref("sales", "orders"), "bob", []).rolePrivileges or {}
            ).items()
        },
        _same(*[{"analysts": ["SELECT"], "public": []}] * 3),
    ),
    Row(
        "bob",
        "grants SELECT on orders to carol",
        lambda c: c.grant_privileges(_grant(_table_ref("sales", "orders"), "carol", PrincipalType.USER, "SELECT")),
        _same(True, DENIED, DENIED),
        ("GRANT_PRIVILEGE", "sales.orders"),
    ),
    Row(
        "bob",
        "drops the hr database",
        lambda c: c.drop_database("hr", False, True),
        _same(None, DENIED, DENIED),
        ("drop_database", "hr"),
    ),
]


@pytest.mark.parametrize("mode", ["none", "owner", "privileges"])
def test_who_may_do_what(serve, mode):
    clients = serve(mode)
    _setup(clients)
    mismatches = []
    for row in ROWS:
        expected = row.expected[mode]
        try:
            answer = row.call(clients[row.user])
        except (MetaException, TApplicationException) as error:  # the latter where a call declares no exception
            if expected != DENIED:
                mismatches.append(f"{row.user} {row.what}: denied ({error.message})")
                continue
            for name in (f"name={row.user}", *row.names):
                if name not in error.message:
                    mismatches.append(f"{row.user} {row.what}: the denial does not name {name}: {error.message}")
            continue
        if expected == DENIED:
            mismatches.append(f"{row.user} {row.what}: allowed, answering {answer!r}")
        elif expected is not None and answer != expected:
            mismatches.append(f"{row.user} {row.what}: answered {answer!r}, expected {expected!r}")
    assert not mismatches, "\n".join(mismatches)
    # every denied call left the connection and the server serving
    assert clients["bob"].get_table("sales", "orders").tableName == "orders"


def test_authorization_needs_authenticated_callers(tmp_path):
    done = subprocess.run(
        CLI
        + [
            "serve",
            "--port",
            str(free_port()),
            "--no-metaserver",
            "--db-url",
            f"sqlite:///{tmp_path / 'c.db'}",
            "--authorization",
            "owner",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0
    assert "--authorization owner needs authenticated callers" in done.stderr


def test_every_served_method_has_an_access_rule():
    """A method served without a rule would be refused to everyone under --authorization."""
    served = {m for m in hive.ThriftHiveMetastore.thrift_services if callable(getattr(MetastoreHandler, m, None))}
    assert len(served) > 150
    assert sorted(m for m in served if rule_of(getattr(MetastoreHandler, m)) is None) == []
