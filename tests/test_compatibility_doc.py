"""docs/compatibility.md is the output of tools/compatibility.py and must not drift from the code."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

from hms_adapter.handler import MetastoreHandler
from hms_adapter.idl import hive
from hms_adapter.processor import MetastoreProcessor

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "compatibility.md"
REGENERATE = "python tools/compatibility.py > docs/compatibility.md"


def _tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("compatibility_tool", ROOT / "tools" / "compatibility.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_doc_equals_the_script_output():
    assert DOC.read_text(encoding="utf-8") == _tool().render(), f"docs/compatibility.md is stale; run {REGENERATE}"


def test_statuses_agree_with_the_processor():
    """``served`` exactly where the processor dispatches the call instead of answering UNKNOWN_METHOD."""
    tool = _tool()
    processor = MetastoreProcessor(hive.ThriftHiveMetastore, MetastoreHandler.__new__(MetastoreHandler))
    for row in tool.rows():
        assert (row.status == tool.SERVED) == processor.serves(row.method), row.method
