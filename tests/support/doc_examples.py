"""The examples of a Markdown document that its tests run as written: each code block right after a
``<!-- tested: NAME -->`` comment, run in a folder of the test's with only named strings replaced (a port,
a realm), so that a change to the document that breaks an example fails its test."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

REPOSITORY = Path(__file__).parents[2]
_BLOCK = re.compile(r"<!-- tested: ([\w-]+) -->\n```(sh|python)\n(.*?)```\n", re.S)


def examples(document: Path) -> dict[str, tuple[str, str]]:
    """Each tested block of ``document`` by name: its language (``sh`` or ``python``) and its code."""
    found: dict[str, tuple[str, str]] = {}
    for name, language, code in _BLOCK.findall(document.read_text()):
        assert name not in found, f"{document.name}: two examples named {name}"
        found[name] = (language, code)
    return found


def run_example(
    example: tuple[str, str],
    cwd: Path,
    replace: dict[str, str],
    env: dict[str, str] | None = None,
    stdin: str = "",
) -> subprocess.CompletedProcess[str]:
    """Runs the example in ``cwd`` with each key of ``replace`` (which it must contain) replaced: a shell block
    with bash (``-e``: every line must succeed), where ``hudi-metastore`` is this checkout's, a Python block
    with this interpreter."""
    language, code = example
    for old, new in replace.items():
        assert old in code, f"the example no longer contains {old!r}:\n{code}"
        code = code.replace(old, new)
    shims = cwd / "shims"
    shims.mkdir(exist_ok=True)
    shim = shims / "hudi-metastore"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m hms_adapter.cli "$@"\n')
    shim.chmod(0o755)
    environment = {**os.environ, **(env or {})}
    environment["PATH"] = f"{shims}{os.pathsep}{environment['PATH']}"
    environment["PYTHONPATH"] = str(REPOSITORY)
    command = ["bash", "-e", "-c", code] if language == "sh" else [sys.executable, "-c", code]
    return subprocess.run(command, cwd=cwd, env=environment, input=stdin, capture_output=True, text=True, timeout=120)
