"""Collection of the packages' doctests (pytest's testpaths include ``hudi_catalog``), and compiled modules
kept for the suite's processes.

The modules of ``hudi_catalog/spark`` import pyspark, an optional extra: without it they are left out of
collection, except in CI (``CI=true``), where the extras are required.
"""

from __future__ import annotations

import importlib.util
import os
import sys

# The suite starts hundreds of Python processes (``hudi-metastore`` commands, servers, clients). With
# PYTHONDONTWRITEBYTECODE set (some sandboxes and CI images set it) each compiled the project's 200 modules
# again: 0.5 s of CPU a process, a quarter of a command's start. Compiled files go to __pycache__ (ignored
# by git), as Python does by default; the first process to import a module writes its file.
sys.dont_write_bytecode = False
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

collect_ignore_glob: list[str] = []
if importlib.util.find_spec("pyspark") is None and os.environ.get("CI", "").lower() != "true":
    collect_ignore_glob.append("hudi_catalog/spark/*.py")
