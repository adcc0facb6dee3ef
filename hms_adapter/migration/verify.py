"""``copy --verify``: the read calls engines make answer the same on both sides, object by object.

For each database and table the copy covers: ``get_database``, ``get_table``, ``get_partition_names``,
``get_partitions_by_names`` (every partition, in batches), ``get_partitions_by_filter`` (an equality on the
first partition key, and a range on it), table and partition column statistics, constraints,
``list_privileges`` and the owner's ``get_privilege_set``; then ``get_functions`` and ``get_function`` per
database. Fields a metastore sets itself (times, catalog names, ids, ``transient_lastDdlTime``) are not
compared (``forms``); differences Hive versions are known for are named as such and not counted.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

from ..idl import hive
from .constraints import read_constraints
from .copier import THRIFT_ERRORS, CopyOptions
from .endpoint import DEFAULT_CATALOG, Endpoint, TableRef, qualified
from .forms import FAST_STATISTICS, SLICE_STATISTICS, differences, form
from .partitions import ENGINE
from .report import Report
from .selection import chunks, is_hudi, matches, refusal, table_wanted

log = logging.getLogger(__name__)

FAST_STATISTICS_WHY = "fast statistics a Hive Metastore computes from the files of a folder it is given"
SLICE_STATISTICS_WHY = (
    "this server derives a Hudi table's numFiles, totalSize and numRows from its latest file slices (a folder "
    "listing counts every file version and misses the log files)"
)
MAX_LISTED = 20
"""Differences listed per object and call; more are counted."""


class Verifier:
    def __init__(self, source: Endpoint, target: Endpoint, options: CopyOptions, report: Report) -> None:
        self.source, self.target, self.options, self.report = source, target, options, report
        self.objects = 0
        self.hudi_table = False
        """The table being compared is a Hudi table (its slice statistics differ as known)."""

    def run(self) -> None:
        self.source.open()
        self.target.open()
        try:
            for catalog in self.source.catalogs():
                if catalog != DEFAULT_CATALOG and not self.target.has_catalogs:
                    continue
                names = self.source.databases(catalog)
                for database in sorted(n for n in names if matches(n, self.options.databases)):
                    self._database(catalog, database)
        finally:
            self.source.close()
            self.target.close()
        log.info("verified %d objects: %d differences", self.objects, len(self.report.differences))

    def _database(self, catalog: str, database: str) -> None:
        qname = qualified(catalog, database)
        self._compare(database, "get_database", lambda side: side.read("get_database", qname))
        tables = sorted(self.source.read("get_all_tables", qname))
        for batch in chunks(tables, 100):
            for table in self.source.tables(catalog, database, batch):
                if not table_wanted(database, table.tableName, self.options.tables):
                    continue
                ref = TableRef(catalog, database, table.tableName)
                if refusal(table):
                    continue
                self._table(ref, table)
        self._compare(
            database,
            "get_functions",
            lambda side: sorted(side.read("get_functions", qname, "*")),
        )
        for name in self.source.read("get_functions", qname, "*"):
            self._compare(
                f"{database}.{name}", "get_function", lambda side, n=name: side.read("get_function", qname, n)
            )

    def _table(self, ref: TableRef, table: Any) -> None:
        self.hudi_table = is_hudi(table)
        try:
            self._compare_table(ref, table)
        finally:
            self.hudi_table = False

    def _compare_table(self, ref: TableRef, table: Any) -> None:
        qdb = ref.qualified_database
        name = ref.display
        self._compare(name, "get_table", lambda side: side.table(ref))
        self._compare(name, "constraints", lambda side: read_constraints(side, ref))
        columns = [c.name for c in (table.sd.cols if table.sd else None) or []]
        if columns and table.tableType != "VIRTUAL_VIEW":
            request = hive.TableStatsRequest(dbName=qdb, tblName=ref.name, colNames=columns, engine=ENGINE)
            self._compare(
                name,
                "get_table_statistics_req",
                lambda side: _stats(side.read("get_table_statistics_req", request).tableStats),
            )
        object_ref = hive.HiveObjectRef(objectType=hive.HiveObjectType.TABLE, dbName=ref.database, objectName=ref.name)
        self._compare(
            name, "list_privileges", lambda side: _grants(side.read("list_privileges", None, None, object_ref))
        )
        if table.owner:
            self._compare(
                name,
                "get_privilege_set",
                lambda side: _grant_set(side.read("get_privilege_set", object_ref, table.owner, [])),
            )
        if not table.partitionKeys:
            return
        names = self.source.read("get_partition_names", qdb, ref.name, -1)
        self._compare(name, "get_partition_names", lambda side: side.read("get_partition_names", qdb, ref.name, -1))
        for batch in chunks(names, self.options.batch_size):
            self._compare(
                name,
                "get_partitions_by_names",
                lambda side, b=batch: side.read("get_partitions_by_names", qdb, ref.name, b),
            )
            if columns:
                request = hive.PartitionsStatsRequest(
                    dbName=qdb, tblName=ref.name, colNames=columns, partNames=batch, engine=ENGINE
                )
                self._compare(
                    name,
                    "get_partitions_statistics_req",
                    lambda side, r=request: {
                        k: _stats(v) for k, v in (side.read("get_partitions_statistics_req", r).partStats or {}).items()
                    },
                )
        for text in _filters(table, names):
            self._compare(
                name,
                f"get_partitions_by_filter({text})",
                lambda side, f=text: sorted(
                    (p.values for p in side.read("get_partitions_by_filter", qdb, ref.name, f, -1)), key=repr
                ),
            )

    def _compare(self, name: str, call: str, read) -> None:
        """Read with ``read(side)`` on both sides and record how the answers differ."""
        self.objects += 1
        answers = []
        for side in (self.source, self.target):
            try:
                answers.append(form(read(side)))
            except THRIFT_ERRORS as error:
                answers.append(f"{type(error).__name__}: {getattr(error, 'message', error)}")
        unknown = []
        for line in differences(*answers):
            known = _known(name, call, line, self.hudi_table)
            if known:
                self.report.known_difference(known, f"{name}: {call}: {line}")
            else:
                unknown.append(line)
        self.report.differences.extend(f"{name}: {call}: {line}" for line in unknown[:MAX_LISTED])
        if len(unknown) > MAX_LISTED:
            self.report.differences.append(f"{name}: {call}: {len(unknown) - MAX_LISTED} more differences")


def _known(name: str, call: str, line: str, hudi: bool) -> str:
    path = line.split(":", 1)[0]
    if call == "get_database" and name == "default" and path == "locationUri":
        return "every metastore has its own default database; Hive 2.3's alter_database does not move its location"
    if path in ("ownerName", "ownerType") and line.split(": ", 1)[1].startswith("None != "):
        return "Hive 4 makes the calling user the owner of a database or function created without one"
    if path.endswith(".name") and _case_only(line):
        return "Apache Hive Metastore keeps column names in lower case, this server as they are given"
    key = path.rsplit("parameters.", 1)[1] if "parameters." in path else ""
    if hudi and key in SLICE_STATISTICS:
        return SLICE_STATISTICS_WHY
    return FAST_STATISTICS_WHY if key in FAST_STATISTICS else ""


def _case_only(line: str) -> bool:
    """Whether a difference line's two values differ only in case."""
    values = line.split(": ", 1)[1].split(" != ")
    return len(values) == 2 and values[0] != values[1] and values[0].lower() == values[1].lower()


def _filters(table: Any, names: list[str]) -> Iterator[str]:
    """Two filters on the first partition key: equal to the first partition's value, and at least it."""
    if not names:
        return
    key = table.partitionKeys[0]
    value = names[0].split("/", 1)[0].split("=", 1)[1]
    numeric = key.type.lower() in ("tinyint", "smallint", "int", "bigint")
    literal = value if numeric and value.lstrip("-").isdigit() else '"' + value.replace('"', '\\"') + '"'
    yield f"{key.name} = {literal}"
    yield f"{key.name} >= {literal}"


def _stats(stats: Any) -> Any:
    return sorted((stats or []), key=lambda s: s.colName.lower())


def _grants(privileges: Any) -> list[tuple]:
    return sorted(
        (p.principalName, p.principalType, (p.grantInfo.privilege or "").upper(), bool(p.grantInfo.grantOption))
        for p in privileges or []
    )


def _grant_set(privileges: Any) -> Any:
    if privileges is None:
        return None
    return {
        kind: {
            who: sorted((g.privilege or "").upper() for g in grants)
            for who, grants in (getattr(privileges, kind) or {}).items()
        }
        for kind in ("userPrivileges", "groupPrivileges", "rolePrivileges")
    }
