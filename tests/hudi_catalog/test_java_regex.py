"""Java regular expressions read for RE2 (``hudi_catalog.java_regex``): what Java means is what matches, and
what RE2 cannot match as Java would is refused with a reason. Expected answers are Java's
(``Pattern.compile(p).matcher(v).matches()``)."""

from __future__ import annotations

import time

import pytest

from hudi_catalog.errors import CatalogError
from hudi_catalog.java_regex import PatternError, compile_java, regexp

MATCHES = [
    # (pattern, value, Java's answer)
    ("2024-0[1-3]-.*", "2024-02-29", True),
    ("2024-0[1-3]-.*", "2024-04-01", False),
    ("a|b", "b", True),
    ("(?i)A", "a", True),
    ("a(?i)B", "aB", True),  # a flag anywhere applies from there on, as in Java
    ("(?i:A)b", "aB", False),
    ("(?iu)É", "é", True),  # u and d are dropped: RE2 does what they ask
    ("(?d)a.", "ab", True),
    ("(?<year>\\d{4})", "2024", True),
    ("\\d+", "٣", False),  # ASCII digits only, as in Java (Python's re says True)
    ("\\u0041", "A", True),
    ("\\0101", "A", True),  # octal
    ("\\x41\\x{42}", "AB", True),
    ("\\e", "\x1b", True),
    ("\\cA", "\x01", True),
    ("\\ca", "!", True),  # Java: 'a' ^ 64
    ("\\v", "\x85", True),  # Java's vertical whitespace, not RE2's vertical tab alone
    ("[\\v]", "\r", True),
    ("a\\Z", "a", True),
    ("a\\Z", "a\r\n", True),
    ("\\Qa.b\\E", "a.b", True),
    ("\\Qa.b\\E", "axb", False),
    ("\\Qa.b", "a.b", True),  # unterminated: quotes to the end
    ("[\\Q]\\E]", "]", True),
    ("[]a]", "]", True),
    ("[^]a]", "b", True),
    ("(a+)+b", "a" * 28, False),
    ("(a|a)*b", "a" * 40 + "b", True),
]

REFUSED = {
    "(?=a)a": "lookaround groups (?=...)",
    "(?!a)b": "lookaround groups (?!...)",
    "(?<=a)b": "lookaround groups (?<=...)",
    "(?<!a)b": "lookaround groups (?<!...)",
    "(?>a)": "atomic groups",
    "(a)\\1": "backreferences (\\1)",
    "(?<n>a)\\k<n>": "backreferences (\\k<)",
    "a*+": "bad repetition operator: *+",
    "[a[b]]": "nested character classes",
    "[a-z&&[^e]]": "character class intersections",
    "[[:alpha:]]": "nested character classes",  # Java reads a nested class; RE2 a POSIX one
    "(?U)a": "the flag U",
    "(?x)a b": "invalid perl operator",
    "\\p{Alpha}": "invalid character class range",
    "a{2000}": "invalid repetition size",
    "\\u12": "illegal Unicode escape",
    "\\0": "illegal octal escape",
    "a\\": "lone backslash",
    "a)(b": "unexpected )",  # never made valid by the anchoring around it
    "[": "missing ]",
    "x" * 300_000: "pattern too large",
}


@pytest.mark.parametrize(("pattern", "value", "expected"), MATCHES)
def test_java_meaning(pattern, value, expected):
    regex = compile_java(pattern)
    assert regex.matches(value) is expected
    assert regexp(regex.anchored, value) is expected  # SQLite's REGEXP agrees


@pytest.mark.parametrize("pattern", sorted(REFUSED))
def test_refused_with_the_reason(pattern):
    with pytest.raises(PatternError) as refused:
        compile_java(pattern)
    assert REFUSED[pattern] in str(refused.value)
    assert isinstance(refused.value, CatalogError)  # front ends answer MetaException


def test_matching_time_is_linear():
    """A pattern a backtracking engine takes exponential time over costs about what a plain one costs on the
    same long value: the hostile one's quickest of a few runs against the plain one's slowest, alternately,
    so that a busy machine slows both alike (the margin is for noise; backtracking would not finish)."""
    hostile, plain = compile_java("(a|aa)*(.*a){20}(a+)+b"), compile_java("a*b")
    value = "a" * 1_000_000
    runs: dict[object, list[float]] = {hostile: [], plain: []}
    for _ in range(5):
        for regex in (plain, hostile):
            begin = time.perf_counter()
            assert not regex.matches(value)
            runs[regex].append(time.perf_counter() - begin)
    assert min(runs[hostile]) <= 20 * max(runs[plain]), runs


def test_sqlite_regexp_passes_null_through():
    assert regexp(compile_java("a").anchored, None) is None
