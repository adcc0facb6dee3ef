"""Backtracking patterns sent as a hostile client would, through a real Thrift server, on every store.

Each pattern below makes a backtracking engine (Python's ``re``, Java's, MariaDB's PCRE2) take time
exponential in the value it is matched against: ``(a+)+b`` against 28 ``a`` took 24 s on SQLite, holding
every other client. Here the attacked call (answered, or refused with a MetaException) costs what the same
call with a harmless pattern costs, and so does another client's call meanwhile: pattern matching is linear
(RE2, ``hudi_catalog.java_regex``).

Measured against that control, not against a fixed number of seconds: the attack and its control run
alternately on the same server, so a busy machine slows both alike (the suite's other processes may be
starting JVMs on the same two cores). The attack's quickest run may take ``FACTOR`` times its control's
slowest: room for noise, and still a small fraction of what backtracking costs (thousands of times a call).
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
ROUNDS = 3
"""Runs of the attack and of its control at the most, alternately; fewer once the attack compares well."""
FACTOR = 20
"""How many times the control's slowest run the attack's quickest may take (and a bystander's longest wait
during the attack the longest during the control)."""
CEILING_SECONDS = 300
"""How long one run may take before it counts as hung (a backtracking attack may take hours)."""

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
    client's calls in seconds (at least one of them, made while the attack ran or right after it).
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
        started.wait(CEILING_SECONDS)
        slowest = 0.0
        deadline = time.monotonic() + CEILING_SECONDS
        while True:
            begin = time.monotonic()
            bystander.get_database("atk")
            slowest = max(slowest, time.monotonic() - begin)
            if not thread.is_alive() or time.monotonic() > deadline:
                break
            time.sleep(0.01)
        thread.join(CEILING_SECONDS)
    finally:
        bystander.close()
    return float(outcome.get("seconds", CEILING_SECONDS)), outcome.get("result"), slowest


def _compared(server, attack: Callable, control: Callable) -> object:
    """``attack``'s result, once it ran no slower than ``FACTOR`` times ``control`` (the same call with a
    harmless pattern), and a bystander waited no longer during it than ``FACTOR`` times as long as during
    the control: both run by ``_under_attack`` alternately, up to ``ROUNDS`` times each, the attack's
    quickest run against the control's slowest (noise only ever slows a run down)."""
    attacks: list[tuple[float, object, float]] = []
    controls: list[tuple[float, object, float]] = []
    for _ in range(ROUNDS):
        controls.append(_under_attack(server, control))
        attacks.append(_under_attack(server, attack))
        seconds, waited = min(a[0] for a in attacks), min(a[2] for a in attacks)
        allowed, allowed_wait = FACTOR * max(c[0] for c in controls), FACTOR * max(c[2] for c in controls)
        if seconds <= allowed and waited <= allowed_wait:
            break
    assert seconds <= allowed, f"the attacked call took {seconds:.3f} s, its control at most {allowed / FACTOR:.3f} s"
    assert waited <= allowed_wait, (
        f"another client waited {waited:.3f} s during the attack, at most {allowed_wait / FACTOR:.3f} s during the control"
    )
    return attacks[-1][1]


def _quoted(pattern: str) -> str:
    """``pattern`` in a filter's double-quoted literal (whose backslashes escape)."""
    return pattern.replace("\\", "\\\\").replace('"', '\\"')


def _filtered(pattern: str) -> Callable:
    """``get_partitions_by_filter`` of ``atk.t`` with ``dt like "pattern"``."""
    return lambda c: c.get_partitions_by_filter("atk", "t", f'dt like "{_quoted(pattern)}"', -1)


HARMLESS = "2024.*"
"""The control's pattern: one any engine matches at once."""


@pytest.mark.parametrize("pattern", BACKTRACKING)
def test_partition_filter_like_is_linear(attacked, pattern):
    result = _compared(attacked, _filtered(pattern), _filtered(HARMLESS))
    assert not isinstance(result, Exception), result
    expected = [LONG] if pattern in ("(.*a){20}", "(\\w+\\s?)+$") else []
    assert sorted(p.values[0] for p in result) == sorted(expected)


def test_negated_and_counted_like_are_linear(attacked):
    result = _compared(
        attacked,
        lambda c: c.get_num_partitions_by_filter("atk", "t", 'not dt like "(a+)+b" and dt like "(a|a)*b|2024.*"'),
        lambda c: c.get_num_partitions_by_filter("atk", "t", 'not dt like "x" and dt like "y|2024.*"'),
    )
    assert result == 1


@pytest.mark.parametrize("pattern", sorted(UNSUPPORTED))
def test_patterns_re2_cannot_match_are_refused_with_a_meta_exception(attacked, pattern):
    result = _compared(attacked, _filtered(pattern), _filtered(HARMLESS))
    assert isinstance(result, hive.MetaException), result
    assert UNSUPPORTED[pattern] in result.message


NAME_CALLS: dict[str, tuple[Callable, tuple[str, ...], tuple[str, ...]]] = {
    # the call on its patterns, the attacking patterns, harmless ones (the control's)
    "get_databases": (lambda c, p: c.get_databases(p), ("(a+)+b|atk",), ("atk",)),
    "get_tables": (lambda c, p: c.get_tables("atk", p), ("(a+)+b|t",), ("t",)),
    "get_tables_by_type": (lambda c, p: c.get_tables_by_type("atk", p, "MANAGED_TABLE"), ("(a|a)*b|t",), ("t",)),
    "get_table_meta": (
        lambda c, d, t: sorted(m.tableName for m in c.get_table_meta(d, t, None)),
        ("(a+)+b|atk", "(a|a)*b|t"),
        ("atk", "t"),
    ),
    "get_functions": (lambda c, p: c.get_functions("atk", p), ("(a+)+b",), ("x",)),
    "get_table_names_by_filter": (
        lambda c, p: c.get_table_names_by_filter("atk", f'hive_filter_field_params__p like "{p}"', -1),
        ("(a+)+b",),
        ("x",),
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


@pytest.mark.parametrize("call", sorted(NAME_CALLS))
def test_name_patterns_are_linear(attacked, call):
    named, attacking, harmless = NAME_CALLS[call]
    result = _compared(attacked, lambda c: named(c, *attacking), lambda c: named(c, *harmless))
    assert result == NAME_ANSWERS[call]


def _whitelisted(pattern: str, values: list[str], throw: bool) -> Callable:
    """``partition_name_has_valid_characters(values, throw)`` with the whitelist ``pattern``."""

    def call(c):
        c.setMetaConf(WHITELIST, pattern)
        return c.partition_name_has_valid_characters(values, throw)

    return call


def test_partition_value_whitelist_is_linear(attacked):
    result = _compared(attacked, _whitelisted("(a+)+b", [LONG], False), _whitelisted("b", [LONG], False))
    assert result is False


def test_an_unsupported_whitelist_is_refused_with_a_meta_exception(attacked):
    result = _compared(attacked, _whitelisted("(a)\\1", ["aa"], True), _whitelisted("a*", ["aa"], True))
    assert isinstance(result, hive.MetaException), result
    assert "backreferences" in result.message


def _by_parameter_keys(pattern: str) -> Callable:
    """``get_partitions_by_filter_req`` of one partition of ``atk.t``, its parameters whose keys match."""
    request = hive.GetPartitionsByFilterRequest(
        dbName="atk", tblName="t", filter='dt = "2024-01-01"', includeParamKeyPattern=pattern
    )
    return lambda c: c.get_partitions_by_filter_req(request)


def test_parameter_key_patterns_are_linear(attacked):
    result = _compared(attacked, _by_parameter_keys("%a%a%a%a%a%a%a%c"), _by_parameter_keys("%c"))
    assert not isinstance(result, Exception), result
    assert [p.parameters for p in result] == [{}]
