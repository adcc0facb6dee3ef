"""The server on an object store that answers each request ``--latency-ms`` later (0 and 20 by default), as S3 does
across a network: S3Proxy (Java, objects in memory) behind ``store_proxy.py`` (its own process), the server
reaching it through the AWS SDK's environment only. S3Proxy rather than moto (the tests' store): moto spends
20 to 40 ms of its own CPU on a request, which would hide the latency measured here.

Timed (wall clock, each against the target issue 48 set):

- ``create_table`` of a managed table in an ``s3a://`` warehouse, through Thrift to a ``hudi-metastore serve``
  process (median of ``--repeat``; target 0.2 s);
- a managed drop of a table holding ``--objects`` objects (10,000; target 10 s);
- ``hudi-metastore import`` of a table of ``--instants`` instants (1,000, generated as ``import_scale.py``
  does; target 30 s);
- the follow of one more commit: the writer's hive sync (``alter_table``) answered once the server read it
  (target 1 s);
- an Iceberg view commit taking one commit of ``--view-files`` new base files (100, real Parquet files of a
  Hudi 1.0 table; target 1 s).

Figures print as JSON lines and as a markdown table. Needs Java 17 and ``../shared/hudi-tables``.

    python benchmarks/object_store_latency.py [--latency-ms 0,20] [--instants 1000] [--objects 10000]

Each case runs once per latency (0: what S3Proxy, the proxy and the server cost without the network's wait).
"""

from __future__ import annotations

import argparse
import http.client
import io
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import fastavro
from pyarrow import fs as pafs
from thriftpy2.rpc import make_client

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import engines  # noqa: E402
from bench_base import NotReady, free_port, wait_for_listening  # noqa: E402
from import_scale import SOURCE_ZIP, generate  # noqa: E402

from hms_adapter.idl import hive  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
BUCKET = "lake"
ACCESS_KEY, SECRET_KEY, REGION = "bench", "bench-secret", "us-east-1"
S3PROXY_JAVA = 17
TARGETS = {"create_table": 0.2, "managed drop": 10.0, "import": 30.0, "follow of one commit": 1.0, "view commit": 1.0}


@contextmanager
def _process(command: list[str], port: int, log: Path, env: dict[str, str] | None = None) -> Iterator[None]:
    with log.open("wb") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env)
    try:
        try:
            wait_for_listening(port, process, " ".join(map(str, command[:4])))
        except NotReady as error:
            raise SystemExit(f"{error}: {log.read_text()[-3000:]}") from None
        yield
    finally:
        process.terminate()
        process.wait(30)


def _s3proxy_command(endpoint: str, work: Path) -> list[str]:
    """S3Proxy (pinned in ``maven_artifacts.py``) at ``endpoint``, keeping objects in memory and checking each
    request's signature against the benchmark's key."""
    settings = {
        "s3proxy.endpoint": endpoint,
        "s3proxy.authorization": "aws-v2-or-v4",
        "s3proxy.identity": ACCESS_KEY,
        "s3proxy.credential": SECRET_KEY,
        "jclouds.provider": "transient-nio2",
        "jclouds.identity": ACCESS_KEY,
        "jclouds.credential": SECRET_KEY,
    }
    properties = work / "s3proxy.properties"
    properties.write_text("".join(f"{key}={value}\n" for key, value in settings.items()))
    java = engines.java_home(S3PROXY_JAVA) / "bin" / "java"
    return [str(java), "-Xmx2g", "-jar", str(engines.fetch("s3proxy")), "--properties", str(properties)]


def _store(endpoint: str) -> pafs.S3FileSystem:
    return pafs.S3FileSystem(
        access_key=ACCESS_KEY,
        secret_key=SECRET_KEY,
        region=REGION,
        endpoint_override=endpoint.removeprefix("http://"),
        scheme="http",
        allow_bucket_creation=True,
    )


def _upload(store: pafs.S3FileSystem, folder: Path, prefix: str) -> None:
    def put(path: Path) -> None:
        with store.open_output_stream(f"{prefix}/{path.relative_to(folder).as_posix()}") as out:
            out.write(path.read_bytes())

    with ThreadPoolExecutor(16) as pool:
        list(pool.map(put, [p for p in folder.rglob("*") if p.is_file()]))


def _put_many(store: pafs.S3FileSystem, keys: list[str]) -> None:
    def put(key: str) -> None:
        with store.open_output_stream(key) as out:
            out.write(b"PAR1")

    with ThreadPoolExecutor(16) as pool:
        list(pool.map(put, keys))


def _head(port: int) -> float:
    """The seconds of one request through the proxy, on a connection of its own."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        started = time.perf_counter()
        connection.request("HEAD", f"/{BUCKET}")
        connection.getresponse().read()
        return time.perf_counter() - started
    finally:
        connection.close()


def _timed(action: Callable[[], object]) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def _hold_last_commit(base: Path) -> tuple[Path, Path]:
    """Move the table's last completed commit file aside (the commit is still inflight on storage)."""
    last = sorted((base / ".hoodie" / "timeline").glob("*_*.commit"))[-1]
    held = base.parent / f"{base.name}-{last.name}"
    last.rename(held)
    return last, held


def _fill_base_files(base: Path) -> None:
    """Write a real Parquet file (one of the template table's) at every base file path the commits name."""
    with zipfile.ZipFile(SOURCE_ZIP) as zf:
        parquet = zf.read(next(n for n in zf.namelist() if n.endswith(".parquet") and "__MACOSX" not in n))
    for commit in (base / ".hoodie" / "timeline").glob("*_*.commit"):
        record = next(iter(fastavro.reader(io.BytesIO(commit.read_bytes()))))
        for stats in (record.get("partitionToWriteStats") or {}).values():
            for stat in stats:
                target = base / stat["path"]
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(parquet)


def run(args: argparse.Namespace, latency_ms: float, work: Path) -> dict[str, float]:
    store_port, proxy_port, serve_port = free_port(), free_port(), free_port()
    store, proxied = f"http://127.0.0.1:{store_port}", f"http://127.0.0.1:{proxy_port}"
    env = {
        **os.environ,
        "AWS_ENDPOINT_URL": proxied,
        "AWS_ACCESS_KEY_ID": ACCESS_KEY,
        "AWS_SECRET_ACCESS_KEY": SECRET_KEY,
        "AWS_REGION": REGION,
    }
    proxy_command = [sys.executable, str(ROOT / "benchmarks" / "store_proxy.py"), store, "--port", str(proxy_port)]
    proxy_command += ["--latency-ms", str(latency_ms)]
    figures: dict[str, float] = {}
    with (
        _process(_s3proxy_command(store, work), store_port, work / "s3proxy.log"),
        _process(proxy_command, proxy_port, work / "proxy.log"),
    ):
        direct = _store(store)
        direct.create_dir(BUCKET)
        figures["one request (HEAD of the bucket)"] = statistics.median(_head(proxy_port) for _ in range(20))

        # the tables, generated locally and put in the bucket directly (not through the proxy)
        scale = generate(work / "scale", args.instants, 10, 20, 10)
        last, held = _hold_last_commit(scale)
        _upload(direct, scale, f"{BUCKET}/tables/scale")
        small = generate(work / "small", 2, args.view_files, 10, 1000)
        _fill_base_files(small)
        small_last, small_held = _hold_last_commit(small)
        _upload(direct, small, f"{BUCKET}/tables/small")

        db_url = f"sqlite:///{work}/catalog.db"
        cli = [sys.executable, "-m", "hms_adapter.cli"]

        def import_table(name: str, *options: str) -> None:
            command = [*cli, "import", f"s3a://{BUCKET}/tables/{name}", "--database", "lake", "--table", name]
            done = subprocess.run(
                [*command, "--db-url", db_url, "--create-catalog", *options], env=env, capture_output=True, text=True
            )
            if done.returncode:
                raise SystemExit(done.stderr[-3000:])

        figures["import"] = _timed(lambda: import_table("scale"))
        import_table("small", "--iceberg-view")

        serve = [*cli, "serve", "--host", "127.0.0.1", "--port", str(serve_port), "--no-metaserver", "--db-url", db_url]
        serve += ["--warehouse", f"s3a://{BUCKET}/wh"]
        with _process(serve, serve_port, work / "serve.log", env):
            client = make_client(hive.ThriftHiveMetastore, "127.0.0.1", serve_port, timeout=300_000)
            try:
                client.create_database(hive.Database(name="bench", parameters={}))
                figures["create_table"] = statistics.median(
                    _timed(lambda n=n: client.create_table(_table("bench", f"t{n}"))) for n in range(args.repeat)
                )
                client.create_table(_table("bench", "big"))
                _put_many(direct, [f"{BUCKET}/wh/bench.db/big/part-{n:05}.parquet" for n in range(args.objects)])
                figures["managed drop"] = _timed(lambda: client.drop_table("bench", "big", True))
                assert not direct.get_file_info(pafs.FileSelector(f"{BUCKET}/wh/bench.db/big", allow_not_found=True))

                with direct.open_output_stream(f"{BUCKET}/tables/scale/.hoodie/timeline/{last.name}") as out:
                    out.write(held.read_bytes())
                synced = client.get_table("lake", "scale")
                figures["follow of one commit"] = _timed(lambda: client.alter_table("lake", "scale", synced))
            finally:
                client.close()

        with direct.open_output_stream(f"{BUCKET}/tables/small/.hoodie/timeline/{small_last.name}") as out:
            out.write(small_held.read_bytes())
        figures["view commit"] = _view_commit(db_url, env)
    return figures


def _view_commit(db_url: str, env: dict[str, str]) -> float:
    """The catalog records the small table's last commit (as a follow does), then its view takes it: timed."""
    saved = dict(os.environ)
    os.environ.update(env)
    try:
        from hudi_catalog import Catalog
        from hudi_catalog.services.hudi_import import HudiImporter

        catalog = Catalog.open(db_url, f"s3a://{BUCKET}/wh", init=False)
        try:
            HudiImporter(catalog).follow(f"s3a://{BUCKET}/tables/small", "lake", "small")
            seconds = _timed(lambda: catalog.iceberg_views.refresh("lake", "small"))
            view = catalog.tables.get("lake", "small_iceberg").parameters
            assert view["hudi.iceberg.applied"] == catalog.timeline.instants("lake", "small")[-1].requested_time
            return seconds
        finally:
            catalog.close()
    finally:
        os.environ.clear()
        os.environ.update(saved)


def _table(database: str, name: str) -> hive.Table:
    columns = [hive.FieldSchema(name="id", type="int"), hive.FieldSchema(name="v", type="string")]
    serde = hive.SerDeInfo(serializationLib="org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe")
    sd = hive.StorageDescriptor(cols=columns, serdeInfo=serde, parameters={}, bucketCols=[], sortCols=[])
    sd.inputFormat = "org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat"
    sd.outputFormat = "org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat"
    return hive.Table(
        tableName=name, dbName=database, sd=sd, partitionKeys=[], parameters={}, tableType="MANAGED_TABLE"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--latency-ms", default="0,20", help="the store's latency per request, comma-separated")
    parser.add_argument("--instants", type=int, default=1000)
    parser.add_argument("--objects", type=int, default=10_000)
    parser.add_argument("--view-files", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    latencies = [float(v) for v in args.latency_ms.split(",")]
    figures: dict[float, dict[str, float]] = {}
    for latency in latencies:
        work = Path(tempfile.mkdtemp(prefix="object-store-latency-"))
        try:
            figures[latency] = run(args, latency, work)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        for name, seconds in figures[latency].items():
            print(json.dumps({"latency_ms": latency, "case": name, "seconds": round(seconds, 3)}), flush=True)
    names = list(figures[latencies[0]])
    print("\n| seconds | " + " | ".join(f"at {v:g} ms a request" for v in latencies) + " | target |")
    print("|---|" + "---:|" * (len(latencies) + 1))
    for name in names:
        target = TARGETS.get(name)
        cells = " | ".join(f"{figures[v][name]:.3f}" for v in latencies)
        print(f"| {name} | {cells} | {'-' if target is None else target} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
