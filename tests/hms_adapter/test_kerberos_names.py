"""Principal names without a KDC: ``_HOST`` in the server principal, and the user names calls run as."""

from __future__ import annotations

import socket

import pytest

from hms_adapter.kerberos import server_principal, short_name


@pytest.mark.parametrize(
    "principal, user",
    [
        ("alice@EXAMPLE.COM", "alice"),
        ("alice/admin@EXAMPLE.COM", "alice"),
        ("hive/metastore.example.com@EXAMPLE.COM", "hive"),
        ("alice@OTHER.ORG", "alice@OTHER.ORG"),  # another realm's alice is not ours
        ("alice", "alice"),
    ],
)
def test_user_names_follow_the_default_auth_to_local_rule(principal, user):
    assert short_name(principal, "EXAMPLE.COM") == user


def test_host_placeholder_is_the_bind_address_name():
    assert server_principal("hive/_HOST@R", "127.0.0.1") == f"hive/{socket.getfqdn('127.0.0.1').lower()}@R"
    assert server_principal("hive/_HOST@R", "0.0.0.0") == f"hive/{socket.getfqdn().lower()}@R"
    assert server_principal("hive/fixed@R", "0.0.0.0") == "hive/fixed@R"
