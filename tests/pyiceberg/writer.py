"""Concurrent PyIceberg writers: ``python writer.py SPEC_JSON`` forks one process per writer and prints one JSON
line, the list of the writers' reports.

SPEC: ``{"uris": [...], "table": "ns.tbl", "writers": 6, "appends": 5, "rows": 3, "catalog": {...}}``. Writer
``w`` talks to ``uris[w % len(uris)]`` (a ``thrift://`` URI through ``NoLockHiveCatalog`` with the ``catalog``
properties, an ``http://`` one through PyIceberg's ``RestCatalog``) and appends ``appends`` batches of ``rows`` rows, every row of batch ``i``
carrying the marker ``w<w>-<i>``. As a real job would, it retries a batch whose commit failed
(``CommitFailedException``: PyIceberg guarantees that commit did not land and removed its files) with a fresh
``append`` after refreshing the table. Its report lists the batches whose commit was acknowledged (marker,
snapshot id, attempts), the ones it gave up on, and any other exception (after which it stops): a
``ValidationException`` (a conflict PyIceberg will not retry over, e.g. the writer's own earlier snapshot is gone
from the table), or an error of unknown outcome.

``NoLockHiveCatalog`` is PyIceberg's ``HiveCatalog`` committing as Iceberg Java's ``HiveTableOperations`` does when
the table property ``engine.hive.lock-enabled`` is ``false``: no ``lock``/``check_lock``/``unlock``, and
``alter_table_with_environment_context`` with ``expected_parameter_key=metadata_location`` and
``expected_parameter_value=<the metadata location the commit started from>``; the metastore's "The table has been
modified" ``MetaException`` becomes ``CommitFailedException``. PyIceberg 0.12 itself always takes the Hive lock.
"""

from __future__ import annotations

import json
import multiprocessing
import random
import sys
import time
import traceback

import pyarrow as pa
from hive_metastore.ttypes import EnvironmentContext, MetaException
from pyiceberg.catalog.hive import (
    DO_NOT_UPDATE_STATS,
    DO_NOT_UPDATE_STATS_DEFAULT,
    HIVE2_COMPATIBLE,
    HIVE2_COMPATIBLE_DEFAULT,
    HiveCatalog,
    _construct_hive_storage_descriptor,
    _construct_parameters,
)
from pyiceberg.catalog.rest import RestCatalog
from pyiceberg.exceptions import CommitFailedException, NoSuchTableError
from pyiceberg.table import CommitTableResponse
from pyiceberg.utils.properties import property_as_bool

HIVE_LOCK_ENABLED = "engine.hive.lock-enabled"  # Iceberg Java's TableProperties.HIVE_LOCK_ENABLED
NO_LOCK_EXPECTED_KEY = "expected_parameter_key"
NO_LOCK_EXPECTED_VALUE = "expected_parameter_value"
METADATA_LOCATION = "metadata_location"
MODIFIED = f"The table has been modified. The parameter value for key '{METADATA_LOCATION}' is"


class NoLockHiveCatalog(HiveCatalog):
    """``HiveCatalog`` honouring ``engine.hive.lock-enabled=false`` as Iceberg Java does (see the module doc)."""

    def commit_table(self, table, requirements, updates):
        if property_as_bool(table.properties, HIVE_LOCK_ENABLED, True):
            return super().commit_table(table, requirements, updates)
        database_name, table_name = self.identifier_to_database_and_table(table.name(), NoSuchTableError)
        with self._client as open_client:
            hive_table = self._get_hive_table(open_client, database_name, table_name)
            current = self._convert_hive_into_iceberg(hive_table)
            staged = self._update_and_stage_table(current, table.name(), requirements, updates)
            if staged.metadata == current.metadata:
                return CommitTableResponse(metadata=current.metadata, metadata_location=current.metadata_location)
            self._write_metadata(staged.metadata, staged.io, staged.metadata_location)
            parameters = dict(hive_table.parameters or {})
            for key in current.properties.keys() - staged.properties.keys():
                parameters.pop(key, None)
            parameters.update(
                _construct_parameters(staged.metadata_location, current.metadata_location, staged.properties)
            )
            hive_table.parameters = parameters
            hive_table.sd = _construct_hive_storage_descriptor(
                staged.schema(),
                staged.location(),
                property_as_bool(self.properties, HIVE2_COMPATIBLE, HIVE2_COMPATIBLE_DEFAULT),
            )
            context = EnvironmentContext(
                properties={
                    DO_NOT_UPDATE_STATS: DO_NOT_UPDATE_STATS_DEFAULT,
                    NO_LOCK_EXPECTED_KEY: METADATA_LOCATION,
                    NO_LOCK_EXPECTED_VALUE: current.metadata_location,
                }
            )
            try:
                open_client.alter_table_with_environment_context(
                    dbname=database_name, tbl_name=table_name, new_tbl=hive_table, environment_context=context
                )
            except MetaException as e:
                if MODIFIED in (e.message or ""):
                    raise CommitFailedException(
                        f"The table {database_name}.{table_name} has been modified concurrently"
                    ) from e
                raise
        return CommitTableResponse(metadata=staged.metadata, metadata_location=staged.metadata_location)


def batch(writer: int, index: int, rows: int) -> pa.Table:
    marker = f"w{writer}-{index}"
    return pa.table(
        {
            "id": pa.array([writer * 1_000_000 + index * 1_000 + r for r in range(rows)], pa.int64()),
            "marker": pa.array([marker] * rows, pa.string()),
            "writer": pa.array([writer] * rows, pa.int32()),
        }
    )


def write(spec: dict, writer: int) -> dict:
    uri = spec["uris"][writer % len(spec["uris"])]
    report = {"writer": writer, "uri": uri, "acked": [], "gave_up": [], "errors": [], "commit_failures": 0}
    if uri.startswith("http"):
        catalog = RestCatalog(f"writer{writer}", uri=uri)
    else:
        catalog = NoLockHiveCatalog(f"writer{writer}", uri=uri, **spec.get("catalog", {}))
    table = catalog.load_table(spec["table"])
    for index in range(spec["appends"]):
        marker = f"w{writer}-{index}"
        for attempt in range(1, spec.get("attempts", 10) + 1):
            try:
                table.append(batch(writer, index, spec["rows"]))
            except CommitFailedException as e:
                report["commit_failures"] += 1
                last = repr(e)
                time.sleep(random.uniform(0.05, 0.3))
                table.refresh()
                continue
            except Exception:  # ValidationException (a conflict PyIceberg refuses to retry), or unknown outcome
                report["errors"].append({"marker": marker, "attempt": attempt, "error": traceback.format_exc()})
                return report
            report["acked"].append(
                {"marker": marker, "snapshot_id": table.metadata.current_snapshot_id, "attempts": attempt}
            )
            break
        else:
            report["gave_up"].append({"marker": marker, "error": last})
    return report


def _child(spec: dict, writer: int, results) -> None:
    try:
        results.put(write(spec, writer))
    except BaseException:
        results.put(
            {
                "writer": writer,
                "acked": [],
                "gave_up": [],
                "commit_failures": 0,
                "errors": [{"marker": None, "error": traceback.format_exc()}],
            }
        )


def main(argv: list[str]) -> int:
    spec = json.loads(argv[1])
    context = multiprocessing.get_context("fork")  # PyIceberg and pyarrow imported once, here
    results = context.Queue()
    children = [context.Process(target=_child, args=(spec, w, results)) for w in range(spec["writers"])]
    for child in children:
        child.start()
    reports = [results.get(timeout=spec.get("timeout", 120)) for _ in children]
    for child in children:
        child.join(10)
    print(json.dumps(sorted(reports, key=lambda r: r["writer"])), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
