"""PyIceberg's ``HiveCatalog`` as a real client of hudi-metastore.

PyIceberg's Hive client is Apache Thrift's generated code (``hive_metastore``, importing ``thrift.Thrift``). The
repository's IDL directory ``thrift/`` (installed as ``hudi_metastore_idl``) has an ``__init__.py``, so whenever the
repository root is on ``sys.path`` -- pytest puts it first for the ``tests`` package -- ``import thrift`` finds that
directory instead of Apache Thrift and ``pyiceberg.catalog.hive`` fails to import. Import Apache Thrift under its
own name first, from the rest of ``sys.path``.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import sys
from pathlib import Path

_ROOT = Path(__file__).resolve().parents[2]


def _apache_thrift() -> None:
    loaded = sys.modules.get("thrift")
    if loaded is not None and hasattr(loaded, "__path__") and not any(
            Path(p).resolve().parent == _ROOT for p in loaded.__path__):
        return
    path = [p for p in sys.path if Path(p or ".").resolve() != _ROOT]
    spec = importlib.machinery.PathFinder.find_spec("thrift", path)
    if spec is None:  # Apache Thrift not installed: PyIceberg's own import error says so
        return
    module = importlib.util.module_from_spec(spec)
    sys.modules["thrift"] = module
    spec.loader.exec_module(module)


_apache_thrift()
