"""``GROUP`` grants under ``serve --authorization privileges`` with ``--auth password``: a user's groups come
from the password file's groups column (``hudi-metastore passwd --groups``); a line in the format before it
(no groups column) still authenticates. A user reads a table only through its group's grant, and loses it
when the grant is revoked; ``set_ugi``'s groups claim nothing; ``get_privilege_set`` answers the group's
grants to its member and refuses other groups."""

from __future__ import annotations

import subprocess

import pytest
from hive_metastore.ttypes import Database, HiveObjectType, MetaException, PrincipalType

from hms_adapter.passwords import hash_password
from tests.support.authorization import _connect, _grant, _password, _table, _table_ref
from tests.support.servers import CLI, free_port, serve_command, wait_for_port, write_passwords


@pytest.fixture
def clients(tmp_path):
    passwords, port = tmp_path / "passwords", free_port()
    write_passwords(passwords, {"alice": _password("alice"), "carol": _password("carol")})
    subprocess.run(
        CLI + ["passwd", str(passwords), "carol", "--groups", "readers,staff", "--keep-password"],
        check=True,
        capture_output=True,
        timeout=60,
    )
    with open(passwords, "a", encoding="utf-8") as file:  # the format before the groups column
        file.write(f"bob:{hash_password(_password('bob'), iterations=1000)}\n")
    assert "carol:pbkdf2_sha256$" in passwords.read_text() and ":readers,staff\n" in passwords.read_text()
    log = open(tmp_path / "server.log", "w")
    options = ["--auth", "password", "--password-file", str(passwords), "--allow-plaintext-passwords"]
    options += ["--authorization", "privileges", "--admin", "root"]
    process = subprocess.Popen(
        serve_command(port, db_url=f"sqlite:///{tmp_path / 'c.db'}", warehouse=tmp_path / "wh", extra=options),
        stdout=log,
        stderr=subprocess.STDOUT,
        text=True,
    )
    transports = []
    try:
        wait_for_port(port, process)
        connected = {}
        for user in ("alice", "bob", "carol"):
            connected[user], transport = _connect(port, user)
            transports.append(transport)
        yield connected
    finally:
        for transport in transports:
            transport.close()
        process.terminate()
        process.wait(30)
        log.close()


def test_a_group_grant_gives_and_its_revocation_takes_a_table_privilege(clients):
    alice, bob, carol = clients["alice"], clients["bob"], clients["carol"]
    alice.create_database(Database(name="sales", parameters={}))
    alice.create_table(_table("sales", "orders"))
    ref = _table_ref("sales", "orders")
    bob.set_ugi("bob", ["readers"])  # a claim: bob is in no group
    for user in (bob, carol):
        with pytest.raises(MetaException, match="does not have following privileges"):
            user.get_table("sales", "orders")
        assert user.get_all_tables("sales") == []

    alice.grant_privileges(_grant(ref, "readers", PrincipalType.GROUP, "SELECT"))
    assert carol.get_table("sales", "orders").tableName == "orders"
    assert carol.get_all_tables("sales") == ["orders"]
    with pytest.raises(MetaException, match="does not have following privileges"):
        bob.get_table("sales", "orders")
    held = carol.get_privilege_set(ref, "carol", ["readers"])
    assert [g.privilege for g in held.groupPrivileges["readers"]] == ["SELECT"]
    assert held.userPrivileges == {"carol": []}
    with pytest.raises(MetaException, match="may not list"):
        bob.get_privilege_set(ref, "bob", ["readers"])
    listed = carol.list_privileges("readers", PrincipalType.GROUP, ref)
    assert [(p.principalName, p.grantInfo.privilege) for p in listed] == [("readers", "SELECT")]
    assert ref.objectType == HiveObjectType.TABLE

    alice.revoke_privileges(_grant(ref, "readers", PrincipalType.GROUP, "SELECT"))
    with pytest.raises(MetaException, match="does not have following privileges"):
        carol.get_table("sales", "orders")
    assert carol.get_all_tables("sales") == []
