"""Java regular expressions, as Hive takes them from clients, matched by RE2 in time linear in the value.

Hive reads a partition filter's ``LIKE`` pattern, the sub-patterns of a name pattern and the partition value
whitelist (``hive.metastore.partition.name.whitelist.pattern``) as ``java.util.regex`` patterns, which
backtrack: ``(a+)+b`` against 28 ``a`` takes seconds, and every character more doubles it. RE2 never
backtracks, so a match costs time proportional to the value whatever the pattern, and a pattern's compiled
form is bounded in memory (``MAX_MEMORY``; a larger one is refused).

RE2 reads most Java syntax alike. ``to_re2`` rewrites what it spells differently (``\\uXXXX``, ``\\0ooo``,
``\\e``, ``\\cX``, ``\\v``, ``\\Z``, ``\\Q...\\E`` in a class) and refuses, with a ``PatternError`` naming the
construct, what RE2 cannot match (backreferences, lookaround, atomic groups, possessive quantifiers) or would
read differently without a word (nested classes and class intersections, the ``U`` flag). The flags ``u`` and
``d`` are dropped: RE2 always folds case over Unicode and ends lines at ``\\n`` only. Differences that
remain are in docs/pruning.md ("LIKE patterns").

Example:
    >>> regex = compile_java("2024-0[1-3]-.*")
    >>> regex.matches("2024-02-29"), regex.matches("2024-04-01")
    (True, False)
    >>> try:
    ...     compile_java(r"(a)\\1")
    ... except PatternError as error:
    ...     print(error)
    backreferences (\\1) are not supported
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import Any

import re2

from .errors import CatalogError

MAX_MEMORY = 2 << 20
"""Bytes RE2 may use for one compiled pattern (program and match cache); a pattern needing more is refused.
RE2 keeps the last 128 compiled patterns, so this bounds that cache too."""

_LINE_END = r"(?:\r\n|[\n\r\x{85}\x{2028}\x{2029}])"
"""Java's line terminators (without the UNIX_LINES flag)."""
_VERTICAL_SPACE = r"\n\x0B\f\r\x{85}\x{2028}\x{2029}"
"""The members of Java's ``\\v`` (RE2's ``\\v`` is the vertical tab alone)."""
_OCTAL = re.compile(r"[0-3][0-7]{2}|[0-7]{1,2}")
_HEX4 = re.compile(r"[0-9A-Fa-f]{4}")
_GROUP_FLAGS = re.compile(r"[A-Za-z-]*[:)]")


class PatternError(CatalogError):
    """A pattern that RE2 cannot match as Java would, or that Java itself refuses; the message says why (Hive
    answers a bad pattern with a MetaException, and so do front ends for this catalog error)."""


def _options() -> Any:
    options = re2.Options()
    options.max_mem = MAX_MEMORY
    options.never_capture = True  # only whether it matches is asked: the fastest of RE2's engines serves
    options.log_errors = False  # a refused pattern is the client's error, reported to the client
    return options


_OPTIONS = _options()


@dataclass(frozen=True)
class JavaRegex:
    """A Java pattern compiled by RE2; ``matches`` tests a whole value, as Java's ``Matcher.matches``."""

    source: str
    """The pattern as the client gave it."""
    re2_pattern: str
    """Its RE2 spelling (unanchored)."""
    _compiled: Any = field(repr=False, compare=False)

    def matches(self, value: str) -> bool:
        return self._compiled.fullmatch(value) is not None

    @property
    def anchored(self) -> str:
        """The RE2 pattern that finds a match anywhere only when the whole value matches (for SQL's
        ``REGEXP``, which searches)."""
        return rf"\A(?:{self.re2_pattern})\z"


def compile_java(pattern: str) -> JavaRegex:
    """A Java regular expression compiled for linear-time matching.

    Raises:
        PatternError: RE2 cannot match the pattern as Java would, or it is not a valid pattern.
    """
    translated = to_re2(pattern)
    return JavaRegex(pattern, translated, compile_re2(translated))


def compile_re2(pattern: str) -> Any:
    """An RE2 pattern compiled with this module's options (RE2 keeps the last 128 compiled).

    Raises:
        PatternError: RE2 refuses the pattern (its reason in the message).
    """
    try:
        return re2.compile(pattern, _OPTIONS)
    except re2.error as error:
        reason = error.args[0] if error.args else error
        if isinstance(reason, bytes):
            reason = reason.decode("utf-8", "replace")
        raise PatternError(str(reason)) from None


@functools.lru_cache(maxsize=256)
def _search(pattern: str) -> Any:
    return compile_re2(pattern)


def regexp(pattern: str, value: str | None) -> bool | None:
    """SQL's ``value REGEXP pattern`` (a search) with RE2; registered as SQLite's ``regexp`` function."""
    if value is None:
        return None
    return _search(pattern).search(value) is not None


def escape(text: str) -> str:
    """``text`` as a pattern matching exactly it (valid in Java and RE2 alike)."""
    return re2.escape(text)


def to_re2(pattern: str) -> str:
    """The RE2 spelling of a Java regular expression.

    Raises:
        PatternError: a construct RE2 cannot match, or would read differently (see the module's text).
    """
    out: list[str] = []
    in_class = False
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            text, i = _escape_sequence(pattern, i, in_class)
            out.append(text)
            continue
        if in_class:
            if ch == "[":
                raise PatternError("nested character classes ([a[b]]) are not supported")
            if pattern.startswith("&&", i):
                raise PatternError("character class intersections (&&) are not supported")
            in_class = ch != "]"
        elif ch == "[":
            in_class = True
            out.append(ch)
            i += 1
            if pattern.startswith("^", i):
                out.append("^")
                i += 1
            if pattern.startswith("]", i):  # a leading ] is a literal, in Java as in RE2
                out.append(r"\]")
                i += 1
            continue
        elif ch == "(" and pattern.startswith("?", i + 1):
            _check_group(pattern[i + 2 : i + 64])
            flags = _GROUP_FLAGS.match(pattern, i + 2)
            if flags:
                out.append(_flags(flags.group(0)))
                i = flags.end()
                continue
        out.append(ch)
        i += 1
    return "".join(out)


def _check_group(head: str) -> None:
    """Refuse the ``(?...`` groups RE2 cannot match or would read differently; ``head`` follows ``(?``."""
    if head.startswith(("=", "!", "<=", "<!")):
        marker = head[:2] if head.startswith("<") else head[:1]
        raise PatternError(f"lookaround groups (?{marker}...) are not supported")
    if head.startswith(">"):
        raise PatternError("atomic groups (?>...) are not supported")
    flags = _GROUP_FLAGS.match(head)
    if flags and "U" in flags.group(0):  # Java's UNICODE_CHARACTER_CLASS; RE2 reads U as "ungreedy"
        raise PatternError("the flag U (UNICODE_CHARACTER_CLASS) is not supported")


def _flags(group: str) -> str:
    """The RE2 form of a flag group (``(?iu)``, ``(?s-d:``; ``group`` follows ``(?``): Java's ``u`` (Unicode
    case folding) and ``d`` (only ``\\n`` ends a line) are what RE2 always does, so they are dropped."""
    kept = group[:-1].replace("u", "").replace("d", "")
    on, _, off = kept.partition("-")
    letters = on + ("-" + off if off else "")
    if not letters and group[:-1] and group[-1] == ")":
        return ""  # (?u): nothing left to set
    return f"(?{letters}{group[-1]}"


def _escape_sequence(pattern: str, i: int, in_class: bool) -> tuple[str, int]:
    """The RE2 form of the escape sequence at ``pattern[i]`` (a backslash), and the index after it."""
    if i + 1 >= len(pattern):
        raise PatternError("the pattern ends with a lone backslash")
    kind = pattern[i + 1]
    after = i + 2
    if kind == "Q":  # \Q...\E quotes; RE2 has it too, but not inside a class
        end = pattern.find(r"\E", after)
        literal = pattern[after:] if end < 0 else pattern[after:end]
        return re2.escape(literal), len(pattern) if end < 0 else end + 2
    if kind in "123456789" or (kind == "k" and pattern.startswith("<", after)):
        shown = pattern[i : after + 1] if kind == "k" else pattern[i:after]
        raise PatternError(f"backreferences ({shown}) are not supported")
    if kind == "0":  # Java's octal escape; RE2 reads \0 as NUL and the digits after it as literals
        digits = _OCTAL.match(pattern, after)
        if digits is None:
            raise PatternError(r"illegal octal escape sequence (\0 needs an octal digit after it)")
        return rf"\x{{{int(digits.group(0), 8):X}}}", digits.end()
    if kind == "u":
        code = _HEX4.match(pattern, after)
        if code is None:
            raise PatternError(r"illegal Unicode escape sequence (\u needs four hexadecimal digits)")
        return rf"\x{{{code.group(0)}}}", code.end()
    if kind == "c":
        if after >= len(pattern):
            raise PatternError(r"illegal control escape sequence (\c needs a character after it)")
        return rf"\x{{{ord(pattern[after]) ^ 64:X}}}", after + 1
    if kind == "e":
        return r"\x{1B}", after
    if kind == "v":
        return (_VERTICAL_SPACE if in_class else f"[{_VERTICAL_SPACE}]"), after
    if kind == "Z" and not in_class:
        return rf"{_LINE_END}?\z", after
    return pattern[i:after], after


def sql_like_to_regex(pattern: str) -> str:
    """SQL's and Hive's ``LIKE`` pattern (``%`` any run, ``_`` one character, ``\\`` taking the next one as it
    is) as a Java regular expression matched against the whole value."""
    out, i = [], 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\" and i + 1 < len(pattern):
            out.append(escape(pattern[i + 1]))
            i += 2
            continue
        out.append(".*" if ch == "%" else "." if ch == "_" else escape(ch))
        i += 1
    return "".join(out)
