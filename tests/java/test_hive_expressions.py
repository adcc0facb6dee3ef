"""Hive's serialized partition expressions, made by Hive's own classes (``benchmarks/java/HiveExpressions.java``).

- The decoder reads what Hive 4.0.1 (Kryo 5) and Hive 3.1.3 (Kryo 3) serialize, on generated expressions of
  every partition key type, each decoding to the tree it was built from.
- Hive 4's own client sends expressions to this server and to Apache Hive Metastore 4.0.1 running with
  ``hive-exec`` (as a Hive distribution's metastore does, evaluating what its SQL cannot): both answer the
  same partitions for ``listPartitionsByExpr``, the same names for ``listPartitionNames`` and drop the same
  partitions, on SQLite, MariaDB and PostgreSQL; what this server cannot evaluate makes the client fall back
  (``IncompatibleMetastoreException``, on which HiveServer2 prunes in its own memory).
"""

from __future__ import annotations

import datetime
from contextlib import ExitStack

import pytest
from thriftpy2.rpc import make_client

from hudi_catalog.errors import UnsupportedExpressionError
from hudi_catalog.pruning.expression_filter import expression_filter
from hudi_catalog.pruning.hive_expressions import decode_expression
from tests.conftest import hive
from tests.support.hive_expressions import JVM_OPENS, ExpressionGenerator, ExpressionTool, call, column, constant
from tests.support.sql_engines import hive_metastore, served_metastore

HIVE_VERSIONS = ("4.0.1", "3.1.3")
MODES = ("list", "specs", "names")
"""listPartitionsByExpr, listPartitionsSpecByExpr (HiveServer2 4's pruning), listPartitionNames by expression."""
DEFAULT = "__HIVE_DEFAULT_PARTITION__"
VALUES = {"ds": ["2024-01-01", "2024-01-02", "b", DEFAULT], "n": ["1", "3", "10", DEFAULT], "d": ["2024-01-02"]}
"""The partitions of the compared table: every (ds, n) pair, d one date (a typed key of a third kind)."""
FALLS_BACK = [
    call("=", call("upper", column("ds"), type_name="string"), constant("string", "B")),
    call(
        "and",
        call("=", column("ds"), constant("string", "b")),
        call("=", call("date", column("ds"), type_name="date"), constant("date", datetime.date(2024, 1, 2))),
    ),
]
"""Expressions Apache Hive Metastore evaluates with Hive's functions and this server does not."""


@pytest.fixture(scope="module", params=HIVE_VERSIONS)
def tool(request, tmp_path_factory) -> ExpressionTool:
    return ExpressionTool(request.param, tmp_path_factory.mktemp(f"hive-expressions-{request.param}"))


def test_decoder_reads_every_expression_hive_serializes(tool):
    generator = ExpressionGenerator(seed=51)
    examples = [generator.example() for _ in range(300)]
    encoded = tool.serialize([e.spec for e in examples])
    for example, data in zip(examples, encoded, strict=True):
        assert decode_expression(data) == example.expected, example.spec
    unknown = tool.serialize([spec for spec, _ in FALLS_BACK[:1]])[0]
    with pytest.raises(UnsupportedExpressionError, match="GenericUDFUpper"):
        decode_expression(unknown)
    whole = encoded[0]
    for cut in (1, len(whole) // 2, len(whole) - 1):  # a truncated stream is refused, never read past
        with pytest.raises(UnsupportedExpressionError):
            decode_expression(whole[:cut])


@pytest.fixture(scope="module")
def hive4_tool(tmp_path_factory) -> ExpressionTool:
    return ExpressionTool("4.0.1", tmp_path_factory.mktemp("hive4-expressions"))


@pytest.fixture(scope="module")
def reference(hive4_tool, mysql_server_url, tmp_path_factory):
    """Apache Hive Metastore 4.0.1 with ``hive-exec`` (which evaluates expressions), started once: its URI."""
    hive_exec = hive4_tool.classpath.rsplit(":", 1)[1]
    with hive_metastore(mysql_server_url, "4.0.1", extra_classpath=(hive_exec,), jvm_options=JVM_OPENS) as running:
        yield f"thrift://{running.host}:{running.port}"


def _populate(uri: str, location: str, db: str = "px") -> None:
    host, port = uri.removeprefix("thrift://").rsplit(":", 1)
    client = make_client(hive.ThriftHiveMetastore, host, int(port), timeout=120_000)
    serde = hive.SerDeInfo(serializationLib="org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe", parameters={})

    def descriptor(path: str) -> hive.StorageDescriptor:
        return hive.StorageDescriptor(
            cols=[hive.FieldSchema(name="v", type="string")],
            location=f"file:{location}/{db}.db/{path}",
            inputFormat="org.apache.hadoop.mapred.TextInputFormat",
            outputFormat="org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat",
            serdeInfo=serde,
            parameters={},
        )

    client.create_database(hive.Database(name=db, locationUri=f"file:{location}/{db}.db", parameters={}))
    keys = [hive.FieldSchema(name=name, type=kind) for name, kind in (("ds", "string"), ("n", "int"), ("d", "date"))]
    client.create_table(
        hive.Table(
            tableName="t",
            dbName=db,
            owner="hive",
            partitionKeys=keys,
            sd=descriptor("t"),
            tableType="EXTERNAL_TABLE",
            parameters={"EXTERNAL": "TRUE"},
        )
    )
    parts = [
        hive.Partition(values=[ds, n, d], dbName=db, tableName="t", sd=descriptor(f"t/ds={ds}/n={n}/d={d}"))
        for ds in VALUES["ds"]
        for n in VALUES["n"]
        for d in VALUES["d"]
    ]
    client.add_partitions(parts)
    client.close()


def _compared_expressions() -> tuple[list[str], set[str]]:
    """Generated expressions and those of ``FALLS_BACK``; and which of them this server cannot evaluate."""
    values = {
        "ds": VALUES["ds"][:3] + ["a"],
        "n": [1, 2, 3, 10, -1],
        "d": [datetime.date(2024, 1, d) for d in (1, 2, 3)],
    }
    generator = ExpressionGenerator(seed=4, keys=["ds", "n", "d"], values=values, casts=False)
    examples = [generator.example() for _ in range(120)]
    inexact = {e.spec for e in examples if not expression_filter(e.expected).exact} | {s for s, _ in FALLS_BACK}
    return [e.spec for e in examples] + [spec for spec, _ in FALLS_BACK], inexact


@pytest.mark.slow
@pytest.mark.mysql
@pytest.mark.timeout(1800)
def test_hive4_client_gets_the_partitions_hive_metastore_4_gets(
    hive4_tool, reference, tmp_path, mysql_catalog_db_url, postgresql_catalog_db_url
):
    specs, inexact = _compared_expressions()
    _populate(reference, str(tmp_path / "reference"))
    expected = {mode: hive4_tool.run(specs, mode, reference, "px", "t") for mode in MODES}
    with ExitStack() as stack:
        stores = {
            "sqlite": f"sqlite:///{tmp_path}/catalog.db",
            "mysql": mysql_catalog_db_url,
            "postgresql": postgresql_catalog_db_url,
        }
        for store, db_url in stores.items():
            ours = stack.enter_context(served_metastore(tmp_path / store, db_url))
            _populate(ours.uri, str(tmp_path / store))
            for mode in MODES:
                answers = hive4_tool.run(specs, mode, ours.uri, "px", "t")
                for spec, answer, reference_answer in zip(specs, answers, expected[mode], strict=True):
                    if spec in inexact:
                        want = "ERROR MetaException" if mode == "names" else "FALLBACK "
                        assert answer.startswith(want), (store, mode, spec, answer)
                    else:
                        assert answer == reference_answer, (store, mode, spec)
    assert all(a.startswith("[") for a in expected["list"]), expected["list"]
    assert len(inexact) < len(specs) // 4 and sum(a != "[]" for a in expected["list"]) > len(specs) // 3


@pytest.mark.slow
@pytest.mark.mysql
@pytest.mark.timeout(1800)
def test_drops_by_expression_drop_what_hive_metastore_4_drops(hive4_tool, reference, tmp_path):
    drops = [
        call("=", column("ds"), constant("string", "b"))[0],
        call("<", column("n"), constant("int", 3))[0],
        call("=", column("ds"), constant("string", "b"))[0],  # nothing left to drop: refused
        call("and", call(">=", column("ds"), constant("string", "2024-01-02")), call("isnull", column("n")))[0],
    ]
    unsupported = [call("=", call("upper", column("ds"), type_name="string"), constant("string", "2024-01-01"))[0]]
    everything = ["(isnotnull (col d date))"]
    outcomes = {}
    with served_metastore(tmp_path / "ours", f"sqlite:///{tmp_path}/catalog.db") as ours:
        for name, uri in (("reference", reference), ("ours", ours.uri)):
            _populate(uri, str(tmp_path / name), "pd")
            dropped = hive4_tool.run(drops, "drop", uri, "pd", "t")
            left = hive4_tool.run(everything, "names", uri, "pd", "t")
            refused = hive4_tool.run(unsupported, "drop", uri, "pd", "t")
            outcomes[name] = (dropped, left, refused, hive4_tool.run(everything, "names", uri, "pd", "t"))
    (dropped, left, refused, after), (our_dropped, our_left, our_refused, our_after) = outcomes.values()
    assert our_dropped == dropped and our_left == left
    assert dropped[2].startswith("ERROR NoSuchObjectException") and left[0].count("ds=") == 7, (dropped, left)
    assert refused[0].count("2024-01-01/") == 3, refused  # Hive evaluates upper() in its memory
    assert our_refused[0].startswith("ERROR MetaException") and our_after == our_left  # nothing dropped
