"""Backtracking patterns sent as a hostile client would, through a real Thrift server, on every store.

Each pattern below makes a backtracking engine (Python's ``re``, Java's, MariaDB's PCRE2) take time
exponential in the value it is matched against: ``(a+)+b`` against 28 ``a`` took 24 s on SQLite, holding
every other client. Here the attacked call must finish under 2 s (or be refused with a MetaException) while
another client's calls stay under 1 s: pattern matching is linear (RE2, ``hudi_catalog.java_regex``). The bounds
leave room for a loaded machine (the suite's other processes may be starting JVMs on the same two cores: an
attack took 0.83 s and a bystander waited 0.61 s so), and stay far below what backtracking costs.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import pytest

from tests.conftest import hive
from tests.hms_adapter.helpers import cols, make_database, make_partition, make_table
from tests.support.hive_functions import function

LONG = "a" * 28
"""A value backtracking engines choke on; 28 ``a`` took 24 s for ``(a+)+b`` on SQLite before RE2."""
LONGER = "a" * 120 + "!"
"""A longer one for the patterns PCRE2's optimisations let through quickly on 28 characters."""
WHITELIST = "hive.metastore.partition.name.whitelist.pattern"

BACKTRACKING = ["(a+)+b", "(a|a)*b", "(a|aa)*c", "(.*a){20}", "(\\w+\\s?)+$"]
UNSUPPORTED = {
    "(?=a)a*": "lookaround groups (?=...) are not supported",
    "(a)\\1": "backreferences (\\1) are not supported",
    "a*+b": "bad repetition operator: *+",
    "[a-z&&[^e]]": "character class intersections (&&) are not supported",
}


@pytest.fixture
def attacked(server, client):
    """A database, table, partitions, function and parameters whose names and values the patterns attack."""
    client.create_database(make_database("atk"))
    client.create_database(make_database(LONG))
    params = {"p": LONG}
    client.create_table(make_table("atk", "t", partition_keys=cols("dt:string"), params=params))
    client.create_table(make_table("atk", LONG, params=params))
    client.add_partitions(
        [make_partition("atk", "t", [v], params={LONG + "b" * 90: "x"}) for v in (LONG, LONGER, "2024-01-01")]
    )
    client.create_function(function("atk", LONG))
    return server


def _under_attack(server, attack: Callable) -> tuple[float, object, float]:
    """Run ``attack(client)`` on a client of its own while another client calls ``get_database`` in a loop.

    Returns the attack's seconds, its result (or the exception it raised), and the longest of the other
    client's calls in seconds.
    """
    outcome: dict[str, object] = {}
    started = threading.Event()

    def run() -> None:
        attacker = server.client()
        try:
            started.set()
            begin = time.monotonic()
            try:
                outcome["result"] = attack(attacker)
            except Exception as error:  # the typed refusal is an outcome too
                outcome["result"] = error
            outcome["seconds"] = time.monotonic() - begin
        finally:
            attacker.close()

    bystander = server.client()
    try:
        bystander.get_database("atk")
        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        started.wait(5)
        slowest = 0.0
        deadline = time.monotonic() + 60
        while thread.is_alive() and time.monotonic() < deadline:
            begin = time.monotonic()
            bystander.get_database("atk")
            slowest = max(slowest, time.monotonic() - begin)
            time.sleep(0.01)
        thread.join(60)
    finally:
        bystander.close()
    return float(outcome.get("seconds", 60.0)), outcome.get("result"), slowest


def _quoted(pattern: str) -> str:
    """``pattern`` in a filter's double-quoted literal (whose backslashes escape)."""
    return pattern.replace("\\", "\\\\").replace('"', '\\"')


def _assert_quick(seconds: float, slowest: float) -> None:
    assert seconds < 2.0, f"the attacked call took {seconds:.2f} s"
    assert slowest < 1.0, f"another client waited {slowest:.2f} s"


@pytest.mark.parametrize("pattern", BACKTRACKING)
def test_partition_filter_like_is_linear(attacked, pattern):
    seconds, result, slowest = _under_attack(
        attacked, lambda c: c.get_partitions_by_filter("atk", "t", f'dt like "{_quoted(pattern)}"', -1)
    )
    _assert_quick(seconds, slowest)
    assert not isinstance(result, Exception), result
    expected = [LONG] if pattern in ("(.*a){20}", "(\\w+\\s?)+$") else []
    assert sorted(p.values[0] for p in result) == sorted(expected)


def test_negated_and_counted_like_are_linear(attacked):
    seconds, result, slowest = _under_attack(
        attacked,
        lambda c: c.get_num_partitions_by_filter("atk", "t", 'not dt like "(a+)+b" and dt like "(a|a)*b|2024.*"'),
    )
    _assert_quick(seconds, slowest)
    assert result == 1


@pytest.mark.parametrize("pattern", sorted(UNSUPPORTED))
def test_patterns_re2_cannot_match_are_refused_with_a_meta_exception(attacked, pattern):
    seconds, result, slowest = _under_attack(
        attacked, lambda c: c.get_partitions_by_filter("atk", "t", f'dt like "{_quoted(pattern)}"', -1)
    )
    _assert_quick(seconds, slowest)
    assert isinstance(result, hive.MetaException), result
    assert UNSUPPORTED[pattern] in result.message


NAME_ATTACKS = {
    "get_databases": lambda c: c.get_databases("(a+)+b|atk"),
    "get_tables": lambda c: c.get_tables("atk", "(a+)+b|t"),
    "get_tables_by_type": lambda c: c.get_tables_by_type("atk", "(a|a)*b|t", "MANAGED_TABLE"),
    "get_table_meta": lambda c: sorted(m.tableName for m in c.get_table_meta("(a+)+b|atk", "(a|a)*b|t", None)),
    "get_functions": lambda c: c.get_functions("atk", "(a+)+b"),
    "get_table_names_by_filter": lambda c: c.get_table_names_by_filter(
        "atk", 'hive_filter_field_params__p like "(a+)+b"', -1
    ),
}
NAME_ANSWERS = {
    "get_databases": ["atk"],
    "get_tables": ["t"],
    "get_tables_by_type": ["t"],
    "get_table_meta": ["t"],
    "get_functions": [],
    "get_table_names_by_filter": [],
}


@pytest.mark.parametrize("call", sorted(NAME_ATTACKS))
def test_name_patterns_are_linear(attacked, call):
    seconds, result, slowest = _under_attack(attacked, NAME_ATTACKS[call])
    _assert_quick(seconds, slowest)
    assert result == NAME_ANSWERS[call]


def test_partition_value_whitelist_is_linear(attacked):
    def attack(c):
        c.setMetaConf(WHITELIST, "(a+)+b")
        return c.partition_name_has_valid_characters([LONG], False)

    seconds, result, slowest = _under_attack(attacked, attack)
    _assert_quick(seconds, slowest)
    assert result is False


def test_an_unsupported_whitelist_is_refused_with_a_meta_exception(attacked):
    def attack(c):
        c.setMetaConf(WHITELIST, "(a)\\1")
        return c.partition_name_has_valid_characters(["aa"], True)

    seconds, result, slowest = _under_attack(attacked, attack)
    _assert_quick(seconds, slowest)
    assert isinstance(result, hive.MetaException), result
    assert "backreferences" in result.message


def test_parameter_key_patterns_are_linear(attacked):
    request = hive.GetPartitionsByFilterRequest(
        dbName="atk", tblName="t", filter='dt = "2024-01-01"', includeParamKeyPattern="%a%a%a%a%a%a%a%c"
    )
    seconds, result, slowest = _under_attack(attacked, lambda c: c.get_partitions_by_filter_req(request))
    _assert_quick(seconds, slowest)
    assert not isinstance(result, Exception), result
    assert [p.parameters for p in result] == [{}]
