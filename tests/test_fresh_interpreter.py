"""What ``.ci/run`` runs before the suite works in an interpreter that has imported nothing for it.

The machine's Python loads ``.pth`` files at start-up that import, among others, ``importlib.util``; a fresh
virtualenv has none, and a module that used ``importlib.util`` after ``import importlib`` alone failed there
at once. ``python -S`` starts without ``site`` (so without any ``.pth`` file), the way a fresh virtualenv
does; the site-packages directories are put on the path by hand.
"""

from __future__ import annotations

import site
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_kerberos_check_of_ci_run_needs_no_module_loaded_at_start_up():
    code = (
        "import sys; sys.path[:0] = sys.argv[1:]; "
        "from benchmarks.kdc import ensure_kerberos; sys.exit(ensure_kerberos())"
    )
    assert "ensure_kerberos" in (ROOT / ".ci" / "run").read_text()
    run = subprocess.run(
        [sys.executable, "-S", "-c", code, str(ROOT), *site.getsitepackages()],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr[-2000:]
