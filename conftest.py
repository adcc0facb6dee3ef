"""Collection of the packages' doctests (pytest's testpaths include ``hudi_catalog``).

The modules of ``hudi_catalog/spark`` import pyspark, an optional extra: without it they are left out of
collection, except in CI (``CI=true``), where the extras are required.
"""

from __future__ import annotations

import importlib.util
import os

collect_ignore_glob: list[str] = []
if importlib.util.find_spec("pyspark") is None and os.environ.get("CI", "").lower() != "true":
    collect_ignore_glob.append("hudi_catalog/spark/*.py")
