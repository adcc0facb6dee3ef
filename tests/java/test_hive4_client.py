"""Hive 4's own Java metastore client (``HiveMetaStoreClient`` of Hive Metastore 4.0.1, ``benchmarks/hive4.py``)
against this server and against Hive Metastore 4.0.1: ``Hive4Session.java`` makes the calls of a HiveServer2 4
session and prints each answer; the answers, without times, owners, ids and the warehouse's path, are the
same but for the steps ``DIFFERENT`` lists (docs/compatibility.md, "Against Hive Metastore 4.0.1")."""

from __future__ import annotations

import importlib
import re
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest

from tests.conftest import skip_or_fail
from tests.support.sql_engines import engines, hive_metastore, served_metastore

# Hive 4's assembly and start with the first test: past the default 600 s on a machine 3-4 times slower
pytestmark = [pytest.mark.slow, pytest.mark.mysql, pytest.mark.timeout(1800)]

SOURCE = Path(__file__).with_name("Hive4Session.java")
DIFFERENT = {
    "getDatabase": "Hive 4 makes the caller the owner of a database created without one",
    "getPartitionsWithSpecs": "Hive 4 answers in the shared-descriptor form, this server in the composing form",
    "getTable of a dropped table": "Hive 4 names the catalog in the message",
    "addWriteNotificationLog of a missing partition": "both answer TApplicationException; Hive 4's message "
    "hides the cause ('Internal error processing ...'), this server names the partition",
    "the ACID_WRITE events, as Hive 4 reads them": "Hive Metastore 4.0.1's standalone server logs no events: its "
    "DbNotificationListener ships with HCatalog, not in the standalone jars",
}


@pytest.fixture(scope="module")
def session_runner(tmp_path_factory) -> Iterator:
    hive4 = importlib.import_module("hive4")  # benchmarks/, on the path through tests.support.sql_engines
    if shutil.which("javac") is None:
        skip_or_fail("a JDK (javac) is needed to compile Hive4Session.java")
    try:
        metastore = hive4.install()
    except engines.EngineUnavailable as error:
        skip_or_fail(f"Hive Metastore 4 cannot be assembled here: {error}")
    out = tmp_path_factory.mktemp("hive4-client")
    subprocess.run(
        ["javac", "-cp", metastore.classpath, "-d", str(out), str(SOURCE)], check=True, capture_output=True, timeout=300
    )

    def run(uri: str, warehouse: str) -> dict[str, str]:
        done = subprocess.run(
            ["java", "-cp", f"{out}:{metastore.classpath}", "Hive4Session", uri],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr[-3000:]
        return dict(_canonical(line, warehouse).split("\t", 1) for line in done.stdout.splitlines() if "\t" in line)

    yield run


def _canonical(line: str, warehouse: str) -> str:
    line = re.sub(rf"file:(//)?{re.escape(warehouse)}", "<warehouse>", line)
    line = re.sub(r"(createTime|lastAccessTime|transient_lastDdlTime)[:=]\d+", r"\1:<time>", line)
    line = re.sub(r"\bid:\d+", "id:<id>", line)
    return re.sub(r"(ownerName|owner):[^,)]*", r"\1:<owner>", line)


def test_hive4_client_session_answers_as_hive_metastore_4(session_runner, tmp_path, mysql_server_url):
    with ExitStack() as stack:
        ours = stack.enter_context(served_metastore(tmp_path / "ours", f"sqlite:///{tmp_path}/catalog.db"))
        reference = stack.enter_context(hive_metastore(mysql_server_url, "4.0.1"))
        answers = session_runner(ours.uri, str(ours.warehouse))
        expected = session_runner(
            f"thrift://{reference.host}:{reference.port}", str(Path(reference.log_dir).parent / "warehouse")
        )
    assert list(answers) == list(expected)
    refused = [step for step, answer in answers.items() if answer.startswith("ERROR")]
    assert refused == ["addWriteNotificationLog of a missing partition", "getTable of a dropped table"], answers
    same = {step for step in answers if answers[step] == expected[step]}
    assert same == set(answers) - set(DIFFERENT), {s: (answers[s], expected[s]) for s in set(answers) - same}
    writes = answers["the ACID_WRITE events, as Hive 4 reads them"]  # three, read by Hive 4's deserializer
    for partition in ("ds=2024-01-02/hr=1", "ds=2024-01-01/hr=0", "ds=2024-01-01/hr=1"):
        assert f"hs2four.events {partition} txn true writeId 1 [<warehouse>/hs2four.db/events/{partition}/" in writes
