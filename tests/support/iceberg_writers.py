"""Concurrent Iceberg writers and what their reports must show: ``run_writers`` runs
``tests/pyiceberg/writer.py`` (one forked process per writer, each on a URI of its own: Thrift through
PyIceberg's Hive catalog, HTTP through its REST catalog) and ``check_every_commit_once`` checks the table
holds each acknowledged commit's rows exactly once, on one line of history."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

from pyiceberg.table.snapshots import Operation

WRITER = Path(__file__).parent.parent / "pyiceberg" / "writer.py"


def run_writers(spec: dict, timeout: float = 500) -> list[dict]:
    """The writers' reports (see ``writer.py`` for ``spec``), sorted by writer. ``timeout`` only bounds a hang
    (the writers end when their work is done; a loaded machine may take minutes)."""
    done = subprocess.run(
        [sys.executable, str(WRITER), json.dumps(spec)], capture_output=True, text=True, timeout=timeout
    )
    assert done.returncode == 0, done.stderr[-5000:]
    reports = json.loads(done.stdout.strip().splitlines()[-1])
    acked = [commit for report in reports for commit in report["acked"]]
    print(
        f"{len(acked)} commits acknowledged, {sum(r['commit_failures'] for r in reports)} CommitFailedExceptions "
        f"retried by the writers, attempts per commit {dict(Counter(m['attempts'] for m in acked))}; PyIceberg "
        f"retried {done.stderr.count('Commit failed due to a concurrent update')} commits, polled "
        f"{done.stderr.count('Wait on lock for')} WAITING locks"
    )
    return reports


def check_every_commit_once(table, reports: list[dict], rows: int) -> None:
    """``table`` (freshly loaded) holds every acknowledged commit's ``rows`` rows exactly once and nothing else,
    one append snapshot per acknowledged commit, all on one line of history."""
    acked = [commit for report in reports for commit in report["acked"]]
    for error in (error for report in reports for error in report["errors"]):
        print(f"error in {error['marker']}: {error['error']}")
    per_marker = Counter(table.scan().to_arrow().column("marker").to_pylist())
    markers = [commit["marker"] for commit in acked]
    assert len(set(markers)) == len(markers)
    assert {m: per_marker[m] for m in markers} == dict.fromkeys(markers, rows)
    assert set(per_marker) == set(markers), per_marker
    snapshots = table.snapshots()
    assert sorted(s.snapshot_id for s in snapshots) == sorted(m["snapshot_id"] for m in acked)
    assert all(s.summary.operation == Operation.APPEND for s in snapshots)
    assert [entry.snapshot_id for entry in table.history()] == [s.snapshot_id for s in snapshots]
    lineage, current = [], table.current_snapshot()
    while current is not None:
        lineage.append(current.snapshot_id)
        current = table.snapshot_by_id(current.parent_snapshot_id) if current.parent_snapshot_id else None
    assert sorted(lineage) == sorted(s.snapshot_id for s in snapshots)
