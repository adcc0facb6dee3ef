"""The Iceberg REST catalog against Iceberg's own: ``hudi-metastore serve --iceberg-rest-port`` beside the
``RESTCatalogServer`` of ``org.apache.iceberg:iceberg-open-api`` (its JDBC catalog), both on a SQLite file
(``--db-url`` puts ours on another store; the peer keeps its SQLite), one after the other, through the same
HTTP client (a ``requests`` session, kept-alive connections).

Figures, per server:

- ``loadTable`` p50 and p95 over ``--loads`` loads of one table (ten snapshots' worth of metadata);
- the revalidation of an unchanged table (``If-None-Match`` with the ETag of the last load) p50, where the
  server gives ETags (``304`` expected);
- a commit's p50 and p95 over ``--commits`` commits from one client: ``set-properties`` with an
  ``assert-table-uuid`` requirement (a new metadata file written and published with a compare-and-set, as
  any commit; no data files);
- commits/s with ``--writers`` writer processes committing to one table for ``--seconds`` seconds, each
  commit retried on ``409`` after reloading (and how many 409s they met).

    python benchmarks/iceberg_rest.py [--loads 500] [--commits 200] [--writers 8] [--seconds 10]
        [--db-url mysql://root@127.0.0.1/bench] [--workers-ours 2] [--no-peer]
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import requests

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import engines  # noqa: E402
import maven_artifacts  # noqa: E402
from bench_base import JVM_READY_SECONDS, NotReady, free_port, wait_until  # noqa: E402
from bench_server import ensure_empty_database, percentile, running_server  # noqa: E402

PEER = "iceberg-open-api"
SCHEMA = {
    "type": "struct",
    "schema-id": 0,
    "fields": [
        {"id": 1, "name": "id", "type": "long", "required": False},
        {"id": 2, "name": "name", "type": "string", "required": False},
        {"id": 3, "name": "region", "type": "string", "required": False},
    ],
}


@contextmanager
def ours(db_url: str, work: Path, workers: int) -> Iterator[str]:
    port, rest_port = free_port(), free_port()
    options = ["--port", str(port), "--no-metaserver", "--iceberg-rest-port", str(rest_port), "--workers", str(workers)]
    with running_server(db_url, f"file://{work / 'ours-warehouse'}", options, rest_port):
        yield f"http://127.0.0.1:{rest_port}"


@contextmanager
def peer(work: Path) -> Iterator[str]:
    """Iceberg's RESTCatalogServer on a JDBC catalog in a SQLite file, its log in ``work/peer.log``."""
    jar = maven_artifacts.fetch(PEER)
    port = free_port()
    env = dict(os.environ)
    env.update(
        CATALOG_URI=f"jdbc:sqlite:file:{work / 'peer-catalog.db'}",
        CATALOG_WAREHOUSE=f"file://{work / 'peer-warehouse'}",
        CATALOG_REST_PORT=str(port),
        JAVA_HOME=str(engines.java_home(17)),
    )
    java = str(engines.java_home(17) / "bin" / "java")
    with (work / "peer.log").open("w") as log:
        process = subprocess.Popen(
            [java, "-cp", str(jar), "org.apache.iceberg.rest.RESTCatalogServer"], stdout=log, stderr=log, env=env
        )
    try:
        uri = f"http://127.0.0.1:{port}"

        def answers() -> bool:
            try:
                return requests.get(f"{uri}/v1/config", timeout=10).status_code == 200
            except requests.RequestException:
                return False

        try:
            wait_until(answers, process=process, what="RESTCatalogServer", seconds=JVM_READY_SECONDS)
        except NotReady as error:
            raise RuntimeError(f"{error}: {(work / 'peer.log').read_text()[-2000:]}") from None
        yield uri
    finally:
        process.terminate()
        process.wait(30)


def _table_path(uri: str, name: str) -> str:
    return f"{uri}/v1/namespaces/bench/tables/{name}"


def _commit_body(uuid: str, value: int) -> dict:
    return {
        "requirements": [{"type": "assert-table-uuid", "uuid": uuid}],
        "updates": [{"action": "set-properties", "updates": {"bench.counter": str(value)}}],
    }


def _timed(action, count: int) -> list[float]:
    samples = []
    for i in range(count):
        started = time.perf_counter()
        action(i)
        samples.append((time.perf_counter() - started) * 1000)
    return sorted(samples)


def _writer(uri: str, seconds: float, uuid: str, writer: int, results) -> None:
    session = requests.Session()
    done = conflicts = 0
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        answer = session.post(_table_path(uri, "shared"), json=_commit_body(uuid, writer * 1_000_000 + done))
        if answer.status_code == 200:
            done += 1
        elif answer.status_code == 409:
            conflicts += 1
            session.get(_table_path(uri, "shared"))  # a client reloads before it tries again
        else:
            raise RuntimeError(f"commit failed: {answer.status_code} {answer.text[:300]}")
    results.put((done, conflicts))


def measure(uri: str, args: argparse.Namespace) -> dict[str, float | str]:
    session = requests.Session()
    session.post(f"{uri}/v1/namespaces", json={"namespace": ["bench"]}).raise_for_status()
    figures: dict[str, float | str] = {}
    for name in ("loaded", "committed", "shared"):
        session.post(f"{uri}/v1/namespaces/bench/tables", json={"name": name, "schema": SCHEMA}).raise_for_status()
    loaded = session.get(_table_path(uri, "loaded")).json()
    uuid = loaded["metadata"]["table-uuid"]
    for i in range(10):  # metadata of some size: ten versions in its log
        session.post(_table_path(uri, "loaded"), json=_commit_body(uuid, i)).raise_for_status()

    loads = _timed(lambda i: session.get(_table_path(uri, "loaded")).raise_for_status(), args.loads)
    figures["loadTable p50 ms"], figures["loadTable p95 ms"] = percentile(loads, 0.5), percentile(loads, 0.95)
    etag = session.get(_table_path(uri, "loaded")).headers.get("ETag")
    if etag:
        statuses = set()

        def revalidate(_: int) -> None:
            statuses.add(session.get(_table_path(uri, "loaded"), headers={"If-None-Match": etag}).status_code)

        revalidations = _timed(revalidate, args.loads)
        figures["304 revalidation p50 ms"] = percentile(revalidations, 0.5) if statuses == {304} else f"{statuses}"
    else:
        figures["304 revalidation p50 ms"] = "no ETag"

    committed_uuid = session.get(_table_path(uri, "committed")).json()["metadata"]["table-uuid"]
    commits = _timed(
        lambda i: session.post(_table_path(uri, "committed"), json=_commit_body(committed_uuid, i)).raise_for_status(),
        args.commits,
    )
    figures["commit p50 ms"], figures["commit p95 ms"] = percentile(commits, 0.5), percentile(commits, 0.95)

    shared_uuid = session.get(_table_path(uri, "shared")).json()["metadata"]["table-uuid"]
    context = multiprocessing.get_context("fork")
    results = context.Queue()
    writers = [
        context.Process(target=_writer, args=(uri, args.seconds, shared_uuid, w, results)) for w in range(args.writers)
    ]
    for process in writers:
        process.start()
    reports = [results.get(timeout=args.seconds + 120) for _ in writers]
    for process in writers:
        process.join(30)
    figures[f"commits/s, {args.writers} writers"] = sum(r[0] for r in reports) / args.seconds
    figures[f"409s met by {args.writers} writers"] = float(sum(r[1] for r in reports))
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--loads", type=int, default=500)
    parser.add_argument("--commits", type=int, default=200)
    parser.add_argument("--writers", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--db-url", help="our catalog database (an empty one); default: a SQLite file")
    parser.add_argument("--no-peer", action="store_true", help="measure ours only")
    parser.add_argument("--workers-ours", type=int, default=1, help="serve --workers of ours")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="iceberg-rest-bench-") as home:
        work = Path(home)
        db_url = args.db_url or f"sqlite:///{work / 'ours-catalog.db'}"
        if args.db_url:
            ensure_empty_database(args.db_url)
        with ours(db_url, work, args.workers_ours) as uri:
            results = {"hudi-metastore": measure(uri, args)}
        if not args.no_peer:
            with peer(work) as uri:
                results["RESTCatalogServer"] = measure(uri, args)
    names = list(results)
    print(f"{'':34}" + "".join(f"{name:>20}" for name in names))
    for key in results[names[0]]:
        cells = []
        for name in names:
            value = results[name][key]
            cells.append(f"{value:>20.2f}" if isinstance(value, float) else f"{value:>20}")
        print(f"{key:34}" + "".join(cells))
    return 0


if __name__ == "__main__":
    sys.exit(main())
