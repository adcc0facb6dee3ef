"""Hive partition expressions for tests: random ones, written in the prefix form ``benchmarks/java/HiveExpressions.java``
builds with Hive's own classes, each with the tree ``hudi_catalog.pruning.hive_expressions`` should decode
from Hive's serialization of it; and the program itself, compiled against Hive 4.0.1's or 3.1.3's jars.

A form is ``(col NAME TYPE)``, ``(const TYPE "VALUE")`` or ``(const TYPE null)``, or ``(FUNCTION ARG...)``
with Hive's function names; a type's parameters go in brackets (``decimal[10,2]``).
"""

from __future__ import annotations

import base64
import datetime
import importlib
import random
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

from hudi_catalog.pruning.hive_expressions import Call, Column, Constant, Node
from tests.conftest import skip_or_fail
from tests.support.sql_engines import engines

SOURCE = Path(__file__).parents[2] / "benchmarks" / "java" / "HiveExpressions.java"
JVM_OPENS = importlib.import_module("hive4").HIVE_EXEC_JVM_OPTIONS
"""What Hive's serializer reflects into on Java 17 (Hive 4.0.1 runs so; 3.1.3 asks for Java 8)."""

KEY_TYPES = {
    "ds": "string",
    "n": "int",
    "b": "bigint",
    "d": "date",
    "c": "varchar(10)",
    "x": "decimal(10,2)",
    "s": "smallint",
    "t": "tinyint",
    "f": "double",
    "ts": "timestamp",
}
_TEXTS = ["2024-01-01", "b", "", "a'b", 'quo"te', "back\\slash", "50%_off", "héllo ☃ 𝄞", "x" * 70, "tab\there"]


@dataclass(frozen=True)
class Example:
    spec: str
    expected: Node


class ExpressionTool:
    """``HiveExpressions.java`` compiled against Hive ``version``'s jars (with Hive Metastore 4.0.1's client)."""

    def __init__(self, version: str, out: Path) -> None:
        hive4 = importlib.import_module("hive4")
        artifacts = importlib.import_module("maven_artifacts")
        if shutil.which("javac") is None:
            skip_or_fail("a JDK (javac) is needed to compile HiveExpressions.java")
        try:
            self.classpath = f"{hive4.install().classpath}:{artifacts.fetch(f'hive-exec:{version}')}"
        except engines.EngineUnavailable as error:
            skip_or_fail(f"Hive {version}'s jars cannot be fetched here: {error}")
        self.classes = out
        subprocess.run(
            ["javac", "-nowarn", "-cp", self.classpath, "-d", str(out), str(SOURCE)],
            check=True,
            capture_output=True,
            timeout=300,
        )

    def run(self, specs: Sequence[str], *args: str) -> list[str]:
        """One answer line per form (see ``HiveExpressions.java``)."""
        done = subprocess.run(
            ["java", *JVM_OPENS, "-cp", f"{self.classes}:{self.classpath}", "HiveExpressions", *args],
            input="".join(spec + "\n" for spec in specs),
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert done.returncode == 0, done.stderr[-3000:]
        lines = done.stdout.splitlines()
        assert len(lines) == len(specs), done.stdout[-3000:] + done.stderr[-3000:]
        return lines

    def serialize(self, specs: Sequence[str]) -> list[bytes]:
        """Each form as Hive serializes it."""
        encoded = []
        for spec, line in zip(specs, self.run(specs, "serialize"), strict=True):
            assert not line.startswith("ERROR"), f"{spec}: {line}"
            encoded.append(base64.b64decode(line.split("\t", 1)[0]))
        return encoded


def quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _spec_type(type_name: str) -> str:
    return type_name.replace("(", "[").replace(")", "]")


def column(name: str) -> tuple[str, Node]:
    return f"(col {name} {_spec_type(KEY_TYPES[name])})", Column(name, KEY_TYPES[name])


def constant(type_name: str, value) -> tuple[str, Node]:
    if value is None:
        return f"(const {_spec_type(type_name)} null)", Constant(None, type_name)
    text = value.isoformat(sep=" ") if isinstance(value, datetime.datetime) else str(value)
    return f"(const {_spec_type(type_name)} {quote(text)})", Constant(value, type_name)


def call(function: str, *args: tuple[str, Node], type_name: str = "boolean") -> tuple[str, Node]:
    spec = f"({function} {' '.join(spec for spec, _ in args)})"
    return spec, Call(function, tuple(node for _, node in args), type_name)


class ExpressionGenerator:
    """Random partition expressions over ``keys`` (names of ``KEY_TYPES``), with their expected trees; their
    constants from ``values`` (by key) where given; ``casts``: whether string keys are also cast to dates
    (which this server does not evaluate)."""

    def __init__(self, seed: int, keys: Sequence[str] = tuple(KEY_TYPES), values=None, casts: bool = True) -> None:
        self.random = random.Random(seed)
        self.keys = list(keys)
        self.values = values or {}
        self.casts = casts

    def example(self, depth: int = 3) -> Example:
        spec, node = self.node(depth)
        return Example(spec, node)

    def node(self, depth: int) -> tuple[str, Node]:
        r = self.random
        if depth == 0 or r.random() < 0.45:
            return self.leaf()
        kind = r.choice(["and", "or", "not"])
        if kind == "not":
            return call("not", self.node(depth - 1))
        return call(kind, *(self.node(depth - 1) for _ in range(r.choice([2, 2, 3]))))

    def value(self, key: str):
        r, type_name = self.random, KEY_TYPES[key]
        if key in self.values:
            return r.choice(self.values[key])
        if type_name == "string":
            return r.choice(_TEXTS)
        if type_name == "varchar(10)":
            return r.choice(_TEXTS)[:10]
        if type_name in ("int", "bigint", "smallint", "tinyint"):
            bits = {"int": 31, "bigint": 63, "smallint": 15, "tinyint": 7}[type_name]
            return r.randint(-(2**bits), 2**bits - 1)
        if type_name == "double":
            return r.randint(-4000, 4000) / 4
        if type_name == "decimal(10,2)":
            return Decimal(r.randint(-(10**9), 10**9)).scaleb(-2).normalize()
        if type_name == "date":
            return datetime.date(2000, 1, 1) + datetime.timedelta(days=r.randint(0, 20000))
        return datetime.datetime(2000, 1, 1) + datetime.timedelta(
            seconds=r.randint(0, 10**9), microseconds=r.choice([0, 0, r.randint(0, 999_999)])
        )

    def leaf(self) -> tuple[str, Node]:
        r = self.random
        key = r.choice(self.keys)
        type_name = KEY_TYPES[key]
        string_forms = ["like", "cast"] if self.casts else ["like"]
        form = r.choice(["compare"] * 6 + ["in", "between", "null"] + (string_forms if type_name == "string" else []))
        if form == "compare":
            value = None if r.random() < 0.05 else self.value(key)
            operands = [column(key), constant(type_name, value)]
            if r.random() < 0.2:
                operands.reverse()
            return call(r.choice(["=", "<>", "<", "<=", ">", ">=", "<=>"]), *operands)
        if form == "in":
            return call("in", column(key), *(constant(type_name, self.value(key)) for _ in range(r.randint(1, 4))))
        if form == "between":
            low, high = sorted([self.value(key), self.value(key)])
            return call(
                "between",
                constant("boolean", r.random() < 0.3),
                column(key),
                constant(type_name, low),
                constant(type_name, high),
            )
        if form == "null":
            return call(r.choice(["isnull", "isnotnull"]), column(key))
        if form == "like":
            return call("like", column(key), constant("string", r.choice(["2024%", "b", "%a_b%", "50\\%%", "_"])))
        day = datetime.date(2024, 1, r.randint(1, 3))
        return call("=", call("date", column(key), type_name="date"), constant("date", day))
