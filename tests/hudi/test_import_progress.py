"""``hudi-metastore import`` shows its progress: a bar on a terminal (the real CLI under a pseudo-terminal),
periodic log lines otherwise (the real CLI with stderr piped). The Spark path's lines are checked in
``test_spark_import.py::test_cli_spark_import``."""

from __future__ import annotations

import os
import pty
import re
import subprocess
import sys
import time

from hudi_catalog import Catalog
from tests.hudi.tables import unpack

TABLE = "quickstart_trips_table_mor_avro_v8_trips_8i3u1d"  # 8 instants, merge on read


def _import_command(base, tmp_path, *options: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "hms_adapter.cli",
        "import",
        str(base),
        "--database",
        "h",
        "--table",
        "t",
        "--db-url",
        f"sqlite:///{tmp_path / 'c.db'}",
        "--warehouse",
        str(tmp_path / "wh"),
        "--create-catalog",
        *options,
    ]


def _instants(tmp_path) -> int:
    catalog = Catalog.open(f"sqlite:///{tmp_path / 'c.db'}", str(tmp_path / "wh"), init=False)
    try:
        return len(catalog.timeline.instants("h", "t"))
    finally:
        catalog.close()


def _run_on_terminal(command: list[str], timeout: float = 120) -> tuple[int, str]:
    """Run ``command`` with a pseudo-terminal as its stdin, stdout and stderr; its exit code and output."""
    controller, terminal = pty.openpty()
    process = subprocess.Popen(command, stdin=terminal, stdout=terminal, stderr=terminal)
    os.close(terminal)
    output, deadline = b"", time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            try:
                chunk = os.read(controller, 65536)
            except OSError:  # EIO: every holder of the terminal closed it
                break
            if not chunk:
                break
            output += chunk
        return process.wait(timeout=max(1.0, deadline - time.monotonic())), output.decode()
    finally:
        os.close(controller)
        if process.poll() is None:
            process.kill()


def _plain(output: str) -> str:
    """The terminal's output without its escape sequences (colours, cursor moves)."""
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", output)


_BAR = r"\s+[━╸╺ ]*\s*"


def test_a_terminal_shows_bars_that_reach_every_instant_within_its_width(tmp_path):
    base = unpack(TABLE, tmp_path)
    code, output = _run_on_terminal(_import_command(base, tmp_path))
    assert code == 0, output[-3000:]
    total = _instants(tmp_path)
    assert total > 1
    plain = _plain(output)
    assert f"h.t: {total} instants recorded" in plain
    decoded = [tuple(map(int, m.groups())) for m in re.finditer(rf"instants decoded{_BAR}(\d+)/(\d+)", plain)]
    written = [
        tuple(map(int, m.groups()))
        for m in re.finditer(rf"instants written{_BAR}(\d+)/(\d+) (\d+) commits applied", plain)
    ]
    assert decoded[-1] == (total, total)
    assert [done for done, _ in decoded] == sorted(done for done, _ in decoded)
    assert written[-1] == (total, total, total)  # every instant of this table is a completed write
    bars = [line for line in re.split(r"[\r\n]", plain) if line.startswith("instants ")]
    assert bars and max(len(line) for line in bars) <= 80  # the terminal's width (a pseudo-terminal's: 80)
    assert "INFO hms_adapter.import_progress" not in output  # bars, not log lines


def test_without_a_terminal_progress_is_logged_every_interval(tmp_path):
    base = unpack(TABLE, tmp_path)
    every_report = subprocess.run(
        _import_command(base, tmp_path, "--progress-interval", "0"), capture_output=True, text=True, timeout=120
    )
    assert every_report.returncode == 0, every_report.stderr[-3000:]
    total = _instants(tmp_path)
    lines = [
        line.split("hms_adapter.import_progress: ", 1)[1]
        for line in every_report.stderr.splitlines()
        if "INFO hms_adapter.import_progress: " in line
    ]
    decoded = [int(m.group(1)) for line in lines if (m := re.match(r"(\d+)/\d+ instants decoded", line))]
    assert decoded == list(range(1, total + 1))  # interval 0: a line at each instant decoded
    assert re.fullmatch(rf"{total}/{total} instants decoded in 0:\d\d", lines[total - 1])
    assert re.fullmatch(rf"{total}/{total} instants written, {total} commits applied in 0:\d\d", lines[-1])
    assert re.fullmatch(rf"1/{total} instants decoded \([0-9.]+/s, 0:\d\d left\)", lines[0])
    assert "\x1b[K" not in every_report.stderr and "\r" not in every_report.stderr

    again = subprocess.run(
        _import_command(base, tmp_path, "--progress-interval", "3600"), capture_output=True, text=True, timeout=120
    )
    assert again.returncode == 0, again.stderr[-3000:]
    lines = [
        line.split("hms_adapter.import_progress: ", 1)[1]
        for line in again.stderr.splitlines()
        if "INFO hms_adapter.import_progress: " in line
    ]
    # nothing in between within an hour: each step's completion only (a re-run writes nothing new)
    assert [re.sub(r"in 0:\d\d", "in", line) for line in lines] == [
        f"{total}/{total} instants decoded in",
        f"{total}/{total} instants written, 0 commits applied in",
    ]
    assert "h.t: 0 instants recorded" in again.stdout


def test_the_interval_must_be_a_number_of_seconds(tmp_path):
    done = subprocess.run(
        _import_command(tmp_path, tmp_path, "--progress-interval", "-1"), capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2 and "not a number of seconds: '-1'" in done.stderr


def test_a_failed_import_ends_the_bars_before_its_error(tmp_path):
    base = unpack(TABLE, tmp_path)
    completed = sorted((base / ".hoodie" / "timeline").glob("*_*.deltacommit"))[-1]
    completed.write_bytes(completed.read_bytes()[:40])
    code, output = _run_on_terminal(_import_command(base, tmp_path))
    assert code == 1, output[-3000:]
    plain = _plain(output)
    totals = {int(m.group(1)) for m in re.finditer(rf"instants decoded{_BAR}\d+/(\d+)", plain)}
    assert len(totals) == 1
    total = totals.pop()
    assert not re.search(rf"{total}/{total}", plain) and "instants written" not in plain
    # the bars are ended: the error starts a line of its own
    assert re.search(rf"\nhudi-metastore: {re.escape(completed.name)}: cannot decode", plain), plain
