"""Hive partition names: escaping like Hive's ``FileUtils.escapePathName``, parsing, the default partition."""

from __future__ import annotations

import doctest

import pytest

from hudi_catalog import partition_names
from hudi_catalog.errors import InvalidObjectError, NoSuchObjectError
from hudi_catalog.partition_names import (
    DEFAULT_PARTITION_NAME,
    escape_path_name,
    make_partition_name,
    partition_name_to_spec,
    partition_name_to_values,
    unescape_path_name,
    values_for_keys,
)

# Hive's FileUtils.charToEscape: every char below ' ', then this list (not on Windows).
HIVE_ESCAPED = {chr(c) for c in range(0, 32)} | set("\"#%'*/:=?\\\x7f{[]^")


@pytest.mark.parametrize("code", range(128))
def test_each_ascii_char_is_escaped_exactly_as_hive_does(code):
    ch = chr(code)
    expected = f"%{code:02X}" if ch in HIVE_ESCAPED else ch
    assert escape_path_name(ch) == expected
    assert escape_path_name(f"a{ch}b") == f"a{expected}b"


@pytest.mark.parametrize(
    "value, escaped",
    [
        ("a/b:c", "a%2Fb%3Ac"),
        ("k=v", "k%3Dv"),
        ("50%", "50%25"),
        ("%2F", "%252F"),
        ("2024-01-01 10:00:00", "2024-01-01 10%3A00%3A00"),
        ("new\nline", "new%0Aline"),
        ("with space", "with space"),
        ("plain_value-1.5", "plain_value-1.5"),
        ("ünïcødé/日本", "ünïcødé%2F日本"),
        ("a~b!c@d$e&f(g)h+i,j;k<l>m|n", "a~b!c@d$e&f(g)h+i,j;k<l>m|n"),
    ],
)
def test_escape_examples(value, escaped):
    assert escape_path_name(value) == escaped
    assert unescape_path_name(escaped) == value


@pytest.mark.parametrize(
    "value",
    [
        "",
        "x",
        "a/b/c",
        "%",
        "%%",
        "%zz",
        "100%",
        "%41",
        "\x00\x01\x1f\x7f",
        "".join(sorted(HIVE_ESCAPED)),
        "ñ%é",
        "'\"",
        "=/=",
        "a%2",
        "%G1",
    ],
)
def test_round_trip(value):
    escaped = escape_path_name(value)
    if value:
        assert unescape_path_name(escaped) == value
    assert all(ch not in HIVE_ESCAPED - {"%"} for ch in escaped)


def test_escape_uses_upper_case_hex():
    assert escape_path_name("\x1b") == "%1B"
    assert escape_path_name("^") == "%5E"


@pytest.mark.parametrize(
    "text, expected",
    [
        ("%zz", "%zz"),
        ("%", "%"),
        ("a%", "a%"),
        ("a%4", "a%4"),
        ("%41%42", "AB"),
        ("%2f", "/"),
        ("%252F", "%2F"),
    ],
)
def test_unescape_leaves_percent_signs_not_followed_by_two_hex_digits(text, expected):
    assert unescape_path_name(text) == expected


@pytest.mark.parametrize("value", ["", None])
def test_empty_or_missing_value_is_the_default_partition(value):
    assert escape_path_name(value) == DEFAULT_PARTITION_NAME == "__HIVE_DEFAULT_PARTITION__"
    assert make_partition_name(["ds"], [value]) == "ds=__HIVE_DEFAULT_PARTITION__"


def test_make_partition_name_lower_cases_and_escapes_keys():
    assert make_partition_name(["DS", "Hr"], ["2024-01-01", "10:00"]) == "ds=2024-01-01/hr=10%3A00"
    assert make_partition_name(["a=b"], ["Value"]) == "a%3Db=Value"
    assert make_partition_name([], []) == ""


def test_make_partition_name_needs_one_value_per_key():
    with pytest.raises(InvalidObjectError):
        make_partition_name(["a", "b"], ["1"])


def test_partition_name_to_spec_keeps_order_and_unescapes():
    spec = partition_name_to_spec("z=1/a=x%2Fy/m=%3D")
    assert list(spec.items()) == [("z", "1"), ("a", "x/y"), ("m", "=")]
    assert partition_name_to_values("z=1/a=x%2Fy/m=%3D") == ["1", "x/y", "="]
    assert partition_name_to_spec("") == {}


@pytest.mark.parametrize(
    "keys, values",
    [
        (["ds", "hr"], ["2024-01-01", "10"]),
        (["k"], ["a/b:c=d%e"]),
        (["p1", "p2", "p3"], ["#", "?", "\\"]),
    ],
)
def test_name_round_trip(keys, values):
    name = make_partition_name(keys, values)
    assert partition_name_to_spec(name) == dict(zip(keys, values))


def test_values_for_keys_orders_by_the_keys():
    assert values_for_keys(["ds", "hr"], "hr=10/ds=2024") == ["2024", "10"]
    assert values_for_keys(["DS"], "ds=x") == ["x"]
    with pytest.raises(NoSuchObjectError):
        values_for_keys(["ds", "hr"], "ds=2024")
    with pytest.raises(NoSuchObjectError):
        values_for_keys(["ds"], "ds=2024/hr=1")


def test_doctests():
    result = doctest.testmod(partition_names, raise_on_error=False)
    assert result.attempted > 0
    assert result.failed == 0
