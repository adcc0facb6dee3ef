"""Importing large Hudi tables: single-process ``hudi-metastore import`` against ``--spark``.

Generates synthetic COPY_ON_WRITE tables on disk (table version 8, active timeline of ``--sizes`` instants)
in the format real Hudi 1.0 writers use: the commit, inflight and clean files are Avro data files written
with the writer schema of ``sample_table_cow_v8_simplekeygen_nonhivestyle``'s commit metadata (read from
``../shared/hudi-tables``), its table schema as ``extraMetadata.schema``, hive-style partitions of its
``byteField``. Every commit writes ``--files-per-commit`` base files (new file groups first, then new
versions of existing ones, spread over ``--partitions`` partitions); every ``--clean-every``-th instant is a
clean that deletes all but the two latest versions of the file groups written since the last clean.

Each size is then imported by the CLI in a fresh process into a fresh MariaDB database, once per mode
(``single``: ``hudi-metastore import PATH``; ``spark``: ``... --spark --master local[N]``), timed wall-clock
from process start (the Spark figure includes starting the JVM and the Python workers). A second run of
the same command (nothing new: ``0 instants recorded``) is timed too. Figures print as JSON lines and as a
markdown table, with the crossover (the smallest size at which ``--spark`` was faster), if any.

Usage: python benchmarks/import_scale.py [--sizes 500,2000,8000] [--modes single,spark] [--master local[2]]
       [--files-per-commit 50] [--partitions 200] [--clean-every 10] [--workdir DIR] [--db-url URL]
       [--src DIR]
``--src`` runs the CLI from another source tree (e.g. an unpacked older revision, to measure before/after).
Generated tables are kept in ``--workdir`` (default: a folder under the system temp dir) and reused.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
import tempfile
import time
import zipfile
from datetime import datetime, timedelta, timezone
from pathlib import Path

import fastavro
import javaproperties

from hudi_catalog.hudi.file_names import BaseFileName
from hudi_catalog.hudi.properties import HIVE_STYLE_PARTITIONING, META_DIR, PROPERTIES_FILE, TABLE_NAME

sys.path.insert(0, str(Path(__file__).parent))
from bench_server import ensure_empty_database  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SOURCE_ZIP = ROOT.parent / "shared" / "hudi-tables" / "sample_table_cow_v8_simplekeygen_nonhivestyle.zip"
DEFAULT_URL = "mysql://root@127.0.0.1:3306/hms_import_bench"
START = datetime(2025, 1, 1, tzinfo=timezone.utc)
KEPT_VERSIONS = 2

_CLEAN_PARTITION = {
    "type": "record",
    "name": "HoodieCleanPartitionMetadata",
    "fields": [
        {"name": "partitionPath", "type": "string"},
        {"name": "policy", "type": "string"},
        {"name": "deletePathPatterns", "type": {"type": "array", "items": "string"}},
        {"name": "successDeleteFiles", "type": {"type": "array", "items": "string"}},
        {"name": "failedDeleteFiles", "type": {"type": "array", "items": "string"}},
        {"name": "isPartitionDeleted", "type": ["null", "boolean"], "default": None},
    ],
}
CLEAN_SCHEMA = fastavro.parse_schema(
    {
        "type": "record",
        "name": "HoodieCleanMetadata",
        "namespace": "org.apache.hudi.avro.model",
        "fields": [
            {"name": "startCleanTime", "type": "string"},
            {"name": "timeTakenInMillis", "type": "long"},
            {"name": "totalFilesDeleted", "type": "int"},
            {"name": "earliestCommitToRetain", "type": "string"},
            {"name": "lastCompletedCommitTimestamp", "type": ["null", "string"], "default": None},
            {"name": "partitionMetadata", "type": {"type": "map", "values": _CLEAN_PARTITION}},
            {"name": "version", "type": ["int", "null"], "default": 2},
        ],
    }
)


def instant_time(moment: datetime) -> str:
    return moment.strftime("%Y%m%d%H%M%S") + f"{moment.microsecond // 1000:03d}"


def _template() -> tuple[dict, str, str]:
    """(commit metadata writer schema, table schema text, hoodie.properties text) of the real v8 table."""
    if not SOURCE_ZIP.exists():
        raise SystemExit(f"{SOURCE_ZIP} is missing: the generator derives its format from it")
    with zipfile.ZipFile(SOURCE_ZIP) as zf:
        names = [n for n in zf.namelist() if "__MACOSX" not in n]
        commit = next(n for n in names if n.endswith(".commit") and "/timeline/" in n and "/metadata/" not in n)
        props = next(n for n in names if n.endswith(".hoodie/hoodie.properties") and "/metadata/" not in n)
        reader = fastavro.reader(io.BytesIO(zf.read(commit)))
        record = next(iter(reader))
        return reader.writer_schema, record["extraMetadata"]["schema"], zf.read(props).decode()


def _avro(schema, record: dict) -> bytes:
    out = io.BytesIO()
    fastavro.writer(out, schema, [record])
    return out.getvalue()


def _stat(template: dict, **values) -> dict:
    return {**template, **values}


def generate(base: Path, instants: int, files_per_commit: int, partitions: int, clean_every: int) -> Path:
    """Write the synthetic table under ``base`` (skipped when a complete one is there); returns it."""
    done = base / ".complete"
    if done.exists():
        return base
    commit_schema, table_schema, properties = _template()
    parsed = fastavro.parse_schema(commit_schema)
    timeline = base / ".hoodie" / "timeline"
    (timeline / "history").mkdir(parents=True, exist_ok=True)
    props = javaproperties.loads(properties)
    props.pop("hoodie.table.checksum", None)  # of the template's name; Hudi's readers do not check it
    props.update({TABLE_NAME: "scale", HIVE_STYLE_PARTITIONING: "true"})
    (base / META_DIR / PROPERTIES_FILE).write_text(javaproperties.dumps(props, timestamp=False))
    blank = {f["name"]: None for f in commit_schema["fields"][0]["type"][1]["values"]["items"]["fields"]}
    groups: list[tuple[str, str]] = []  # (partition path, file id) in creation order
    versions: dict[tuple[str, str], list[str]] = {}  # file group -> its base file names, oldest first
    written_since_clean: set[tuple[str, str]] = set()
    moment = START
    last_commit = None
    for i in range(instants):
        moment += timedelta(seconds=60)
        ts, done_ts = instant_time(moment), instant_time(moment + timedelta(seconds=5))
        if clean_every and i % clean_every == clean_every - 1 and written_since_clean:
            deleted: dict[str, list[str]] = {}
            for group in sorted(written_since_clean):
                names = versions[group]
                if len(names) > KEPT_VERSIONS:
                    deleted.setdefault(group[0], []).extend(names[:-KEPT_VERSIONS])
                    versions[group] = names[-KEPT_VERSIONS:]
            written_since_clean.clear()
            clean = {
                "startCleanTime": ts,
                "timeTakenInMillis": 10,
                "totalFilesDeleted": sum(map(len, deleted.values())),
                "earliestCommitToRetain": last_commit or ts,
                "lastCompletedCommitTimestamp": last_commit,
                "partitionMetadata": {
                    p: {
                        "partitionPath": p,
                        "policy": "KEEP_LATEST_FILE_VERSIONS",
                        "deletePathPatterns": names,
                        "successDeleteFiles": names,
                        "failedDeleteFiles": [],
                    }
                    for p, names in deleted.items()
                },
            }
            (timeline / f"{ts}.clean.requested").write_bytes(b"")
            (timeline / f"{ts}.clean.inflight").write_bytes(b"")
            (timeline / f"{ts}_{done_ts}.clean").write_bytes(_avro(CLEAN_SCHEMA, clean))
            continue
        stats: dict[str, list[dict]] = {}
        inflight: dict[str, list[dict]] = {}
        new_groups = max(0, min(files_per_commit, partitions * 20 - len(groups))) if i < 5 else files_per_commit // 10
        for k in range(files_per_commit):
            if k < new_groups:
                part = f"byteField={len(groups) % partitions}"
                group = (part, f"{len(groups):08x}-aaaa-bbbb-cccc-{i:012d}-0")
                groups.append(group)
                prev = None
            else:
                group = groups[(i * files_per_commit + k) % len(groups)]
                prev = BaseFileName.parse(versions[group][-1]).instant_time
            name = BaseFileName(group[1], f"{k % 4}-{i}-{k}", ts, "parquet").name
            versions.setdefault(group, []).append(name)
            written_since_clean.add(group)
            size = 400_000 + (i * 7919 + k * 104729) % 100_000
            stats.setdefault(group[0], []).append(
                _stat(
                    blank,
                    fileId=group[1],
                    path=f"{group[0]}/{name}",
                    prevCommit=prev or "null",
                    numWrites=1000,
                    numDeletes=0,
                    numUpdateWrites=0 if prev is None else 500,
                    totalWriteBytes=size,
                    totalWriteErrors=0,
                    partitionPath=group[0],
                    totalLogRecords=0,
                    numInserts=1000 if prev is None else 500,
                    totalLogBlocks=0,
                    totalCorruptLogBlock=0,
                    totalRollbackBlocks=0,
                    fileSizeInBytes=size,
                    runtimeStats={"totalScanTime": 0, "totalCreateTime": 80, "totalUpsertTime": 0},
                    totalLogFilesCompacted=0,
                    totalLogReadTimeMs=0,
                    totalLogSizeCompacted=0,
                    numUpdates=0,
                )
            )
            inflight.setdefault(group[0], []).append(
                _stat(
                    blank,
                    fileId=group[1],
                    prevCommit=prev or "null",
                    numWrites=0,
                    numDeletes=0,
                    numUpdateWrites=0,
                    totalWriteBytes=0,
                    totalWriteErrors=0,
                    numInserts=0 if prev else 1000,
                    fileSizeInBytes=0,
                )
            )
        (timeline / f"{ts}.commit.requested").write_bytes(b"")
        (timeline / f"{ts}.inflight").write_bytes(
            _avro(
                parsed,
                {
                    "partitionToWriteStats": inflight,
                    "compacted": False,
                    "extraMetadata": {},
                    "version": 1,
                    "operationType": "UPSERT",
                },
            )
        )
        (timeline / f"{ts}_{done_ts}.commit").write_bytes(
            _avro(
                parsed,
                {
                    "partitionToWriteStats": stats,
                    "compacted": False,
                    "extraMetadata": {"schema": table_schema},
                    "version": 1,
                    "operationType": "UPSERT",
                },
            )
        )
        last_commit = ts
    done.write_text("ok\n")
    return base


def run_import(path: Path, db_url: str, mode: str, master: str, src: str | None) -> tuple[float, str, float]:
    """(wall seconds, last output line, peak RSS MiB of the importing process) of one CLI import."""
    command = [
        sys.executable,
        "-m",
        "hms_adapter.cli",
        "import",
        str(path),
        "--database",
        "bench",
        "--create-catalog",
        "--db-url",
        db_url,
        "--warehouse",
        tempfile.mkdtemp(prefix="import-bench-wh-"),
        "--log-level",
        "WARNING",
    ]
    if mode == "spark":
        command += ["--spark", "--master", master]
    env = {**os.environ, "PYSPARK_PYTHON": sys.executable, "SPARK_LOCAL_IP": "127.0.0.1"}
    if src:
        env["PYTHONPATH"] = os.pathsep.join([src, env.get("PYTHONPATH", "")])
    started = time.perf_counter()
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        process = subprocess.Popen(command, stdout=out, stderr=err, text=True, cwd=src or ROOT, env=env)
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - started
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0), err.seek(0)
        stdout, stderr = out.read(), err.read()
    if process.returncode != 0:
        raise SystemExit(f"import failed ({mode}):\n{stderr[-3000:]}")
    peak = usage.ru_maxrss / 1024
    lines = [line for line in stdout.splitlines() if line.strip()]
    return seconds, lines[-1] if lines else "", peak


def database_url(url: str, suffix: str) -> str:
    from sqlalchemy.engine import make_url

    parsed = make_url(url)
    return parsed.set(database=f"{parsed.database}_{suffix}").render_as_string(hide_password=False)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="500,2000,8000")
    parser.add_argument("--modes", default="single,spark")
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--files-per-commit", type=int, default=50)
    parser.add_argument("--partitions", type=int, default=200)
    parser.add_argument("--clean-every", type=int, default=10)
    parser.add_argument("--workdir", default=str(Path(tempfile.gettempdir()) / "hudi-import-scale"))
    parser.add_argument("--db-url", default=DEFAULT_URL)
    parser.add_argument("--src", help="run the CLI from this source tree")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    modes = args.modes.split(",")

    results = []
    for size in sizes:
        name = f"v8_cow_{size}i_{args.files_per_commit}f_{args.partitions}p_c{args.clean_every}"
        started = time.perf_counter()
        path = generate(Path(args.workdir) / name, size, args.files_per_commit, args.partitions, args.clean_every)
        files = sum(1 for _ in (path / ".hoodie" / "timeline").glob("*_*.commit")) * args.files_per_commit
        print(
            f"table {path}: {size} instants, {files} files written (ready in {time.perf_counter() - started:.0f} s)",
            file=sys.stderr,
        )
        for mode in modes:
            url = database_url(args.db_url, mode)
            ensure_empty_database(url)
            first, line, rss = run_import(path, url, mode, args.master, args.src)
            again, again_line, _ = run_import(path, url, mode, args.master, args.src)
            result = {
                "instants": size,
                "files": files,
                "mode": mode,
                "master": args.master if mode == "spark" else None,
                "import_s": round(first, 2),
                "reimport_s": round(again, 2),
                "peak_rss_mib": round(rss),
                "output": line,
                "reimport_output": again_line,
            }
            results.append(result)
            print(json.dumps(result), flush=True)

    print()
    print("| instants | files | mode | import s | re-import (nothing new) s |")
    print("|---:|---:|---|---:|---:|")
    for r in results:
        mode = r["mode"] + (f" ({r['master']})" if r["master"] else "")
        print(f"| {r['instants']:,} | {r['files']:,} | {mode} | {r['import_s']:.1f} | {r['reimport_s']:.1f} |")
    by_size = {(r["instants"], r["mode"]): r["import_s"] for r in results}
    faster = [
        s
        for s in sizes
        if (s, "spark") in by_size and (s, "single") in by_size and by_size[(s, "spark")] < by_size[(s, "single")]
    ]
    if {"single", "spark"} <= set(modes):
        print(json.dumps({"crossover_instants": faster[0] if faster else None}))
        print(f"crossover: {'--spark faster from ' + format(faster[0], ',') + ' instants' if faster else 'none'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
