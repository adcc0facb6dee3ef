"""The layers' import rules, read from the source: the core never imports a front end, Thrift or the IDL; a
front end talks to the ``Catalog`` facade and the core's top-level modules (model, errors, value types), never
to its services or its store; only ``hudi_catalog/spark`` (and the Spark importer it holds) imports pyspark."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def imports_of(package: str, with_names: bool = False) -> list[tuple[str, str]]:
    """(module file, imported module) for every absolute import under ``package`` (relative ones resolved);
    ``with_names``: also ``a.b`` for each name of ``from a import b`` (which may be a module)."""
    found = []
    for path in sorted((ROOT / package).rglob("*.py")):
        module_parts = list(path.relative_to(ROOT).with_suffix("").parts)
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                found += [(str(path.relative_to(ROOT)), alias.name) for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = module_parts[: len(module_parts) - node.level]
                    name = ".".join(base + ([node.module] if node.module else []))
                else:
                    name = node.module or ""
                found.append((str(path.relative_to(ROOT)), name))
                if with_names:
                    found += [(str(path.relative_to(ROOT)), f"{name}.{alias.name}") for alias in node.names]
    return found


@pytest.mark.parametrize(
    "forbidden",
    [
        "hms_adapter",
        "iceberg_rest",
        "console",
        "http_port",
        "thriftpy2",
        "hudi_metastore_idl",
        "prometheus_client",
        "starlette",
        "uvicorn",
        "jinja2",
    ],
)
def test_the_core_imports_no_front_end(forbidden):
    assert [(f, m) for f, m in imports_of("hudi_catalog") if m.split(".")[0] == forbidden] == []


@pytest.mark.parametrize("front_end", ["hms_adapter", "iceberg_rest", "console", "http_port"])
def test_front_ends_do_not_reach_into_the_store(front_end):
    assert [(f, m) for f, m in imports_of(front_end) if m.startswith("hudi_catalog.store")] == []


@pytest.mark.parametrize(
    ("front_end", "other"),
    [
        ("console", "hms_adapter"),
        ("console", "iceberg_rest"),
        ("iceberg_rest", "console"),
        ("http_port", "hudi_catalog"),
    ],
)
def test_front_ends_do_not_import_each_other(front_end, other):
    """The console and the REST port share only ``http_port`` (serving an application on a thread), which knows
    no catalog; ``hms_adapter/serving.py`` starts them all."""
    assert [(f, m) for f, m in imports_of(front_end) if m.split(".")[0] == other] == []


def test_pyiceberg_is_loaded_only_for_the_iceberg_rest_catalog():
    """pyiceberg (the ``rest`` extra) models the REST catalog's metadata changes: the two modules that use it
    are imported when ``Catalog.iceberg_tables`` is first used, so the core runs without the extra."""
    users = {f for f, m in imports_of("hudi_catalog") if m.split(".")[0] == "pyiceberg"}
    assert users == {"hudi_catalog/iceberg/commits.py", "hudi_catalog/services/iceberg_tables.py"}
    loaded = subprocess.run(
        [sys.executable, "-c", "import sys, hms_adapter.serving; print('pyiceberg' in sys.modules)"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert loaded.stdout.strip() == "False"


def test_only_the_spark_package_imports_pyspark():
    users = {f for f, m in imports_of("hudi_catalog") + imports_of("hms_adapter") if m.split(".")[0] == "pyspark"}
    assert users and all(f.startswith("hudi_catalog/spark/") for f in users), users


STORE_USERS_OUTSIDE_THE_LAYERS = {
    "hudi_catalog/catalog.py": "wires the store into the services",
    "hudi_catalog/pruning/to_sql.py": "compiles a filter into a condition over the store's partition tables",
    "hudi_catalog/pruning/like.py": "LIKE on MariaDB and PostgreSQL: reads a key's values to match them with RE2",
    "benchmarks/snapshot.py": "bulk-loads a million files straight into the tables (hours through the services)",
    "benchmarks/call_layers.py": "times a call's query apart from its transaction, and names the MySQL driver in use",
    "benchmarks/cold_reads.py": "drops a table's stored partition encodings to time the first read that makes them",
    "benchmarks/follow.py": "takes a table's last commit back from the catalog to time a follow of one new instant",
}
"""The modules outside ``hudi_catalog/store`` and ``hudi_catalog/services`` that import the store, and why."""


def test_only_services_use_the_store():
    users = {
        f
        for package in ("hudi_catalog", "hms_adapter", "benchmarks", "tools")
        for f, m in imports_of(package)
        if m.startswith("hudi_catalog.store")
    }
    outside = {f for f in users if not f.startswith(("hudi_catalog/store/", "hudi_catalog/services/"))}
    assert outside == set(STORE_USERS_OUTSIDE_THE_LAYERS)


def test_services_handle_the_stores_records_not_sqlalchemy_rows():
    rows = {"sqlalchemy.Row", "sqlalchemy.RowMapping", "sqlalchemy.engine.Row", "sqlalchemy.engine.RowMapping"}
    users = [(f, m) for f, m in imports_of("hudi_catalog/services", with_names=True) if m in rows]
    assert users == []
    assert ("hudi_catalog/services/locks.py", "sqlalchemy.Connection") in imports_of(
        "hudi_catalog/services", with_names=True
    )  # the names are read


def test_the_read_source_lives_with_the_catalog():
    """Spark's reader asks the catalog through ``hudi_catalog.read_source``; the catalog side (the read
    source, the services, the metaserver front end) never imports the Spark package."""
    users = {
        f
        for f, m in imports_of("hudi_catalog") + imports_of("hms_adapter")
        if m.startswith("hudi_catalog.spark") and not f.startswith("hudi_catalog/spark/")
    }
    assert users == {"hms_adapter/hudi_cli.py"}  # `import --spark`, imported only when asked for
    assert ("hudi_catalog/spark/reader.py", "hudi_catalog.read_source") in imports_of("hudi_catalog")


def _module_graph(packages: tuple[str, ...]) -> dict[str, set[str]]:
    """Module -> the modules of ``packages`` it imports anywhere in its file (type-only and function-level
    imports included: a circle through them still ties the modules together). ``from package import
    module`` counts as importing the module; the benchmarks import each other by bare name."""
    files = {}
    for package in packages:
        for path in (ROOT / package).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            files[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    graph: dict[str, set[str]] = {module: set() for module in files}
    for module, path in files.items():
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join(anchor + ([node.module] if node.module else []))
                names = [f"{base}.{a.name}" if f"{base}.{a.name}" in files else base for a in node.names]
            else:
                continue
            for name in names:
                for candidate in (name, f"benchmarks.{name}"):
                    if candidate in files and candidate != module:
                        graph[module].add(candidate)
    return graph


def test_no_two_modules_import_each_other_directly_or_through_others():
    graph = _module_graph(("hudi_catalog", "hms_adapter", "iceberg_rest", "console", "http_port", "benchmarks"))
    circles = []
    for start in graph:  # a module reaching itself again through the modules it imports
        seen, todo = set(), list(graph[start])
        while todo:
            module = todo.pop()
            if module == start:
                circles.append(start)
                break
            if module not in seen:
                seen.add(module)
                todo.extend(graph[module])
    assert circles == []
    assert "hudi_catalog.services.event_log" in graph["hudi_catalog.services.context"]  # the graph is real
    assert "benchmarks.bench_base" in graph["benchmarks.peer"]


@pytest.mark.parametrize("front_end", ["hms_adapter", "iceberg_rest", "console", "hudi_catalog/spark"])
def test_front_ends_reach_the_services_only_through_the_catalog(front_end):
    """The front ends (the Thrift server, the Spark reader and importer) call services as attributes of
    ``Catalog`` (``catalog.partitions.read``); what they need beyond them, the facade offers
    (``Catalog.import_table``, ``Catalog.importer``, ``Catalog.schema_at``), and the value types they name live
    in top-level modules (``hudi_catalog.schema_layout``, ``hudi_catalog.iceberg_views``, ``model``)."""
    found = [(f, m) for f, m in imports_of(front_end, with_names=True) if m.startswith("hudi_catalog.services")]
    assert found == []


def test_no_module_of_the_tests_imports_a_test_module():
    """What tests share lives in ``tests/support`` (shared fixtures in a ``conftest.py``): no module under
    ``tests/`` imports a ``test_*`` module, as ``from tests.x.test_y import z`` or ``from tests.x import test_y``."""
    graph = _module_graph(("tests",))
    found = sorted(
        (m, i) for m, imported in graph.items() for i in imported if i.rpartition(".")[2].startswith("test_")
    )
    assert found == []
    assert "tests.support.servers" in graph["tests.hms_adapter.test_cli"]  # the graph is real
