"""Column statistics and notification events through Hive 2.3.10's own metastore client (``EventsAndStats.java``),
on SQLite and MariaDB.

Statistics of every 2.3 type are written, read back exactly, aggregated over partitions and deleted, with
Hive's errors for a repeated delete and a column the table lacks. Then a scripted session (a database, a
table, partitions, a function, an insert) runs after a Hudi table was replayed through the metaserver, and
every event since is read with ``getNextNotification`` and deserialized by Hive's ``MessageFactory``: each
must parse and name the right objects.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from hudi_catalog.services.hudi_import import HudiImporter
from tests.hudi.tables import unpack
from tests.java.wheel_jars import JARS, compile_source
from tests.support.metaserver_replay import replay

SOURCE = Path(__file__).with_name("EventsAndStats.java")
HUDI_TABLE = "sample_table_cow_v8_complexkeygen_hivestyle"


@pytest.fixture(scope="module")
def compiled(tmp_path_factory) -> Path:
    return compile_source(SOURCE, tmp_path_factory.mktemp("java"))


def run(compiled: Path, *args: str) -> list[str]:
    done = subprocess.run(
        ["java", "-XX:TieredStopAtLevel=1", "-cp", f"{compiled}:{JARS}/*", "EventsAndStats", *args],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    return done.stdout.splitlines()


def test_statistics_of_every_type_round_trip_aggregate_and_delete(compiled, server):
    lines = run(compiled, "stats", server.uri, "st")
    table = {line.split()[1]: line for line in lines if line.startswith("TABLE ")}
    assert sorted(table) == ["amount", "blob", "day", "flag", "name", "price", "qty"]
    assert "lowValue:-3, highValue:1099511627776, numNulls:0, numDVs:5" in table["qty"]
    assert "lowValue:-0.5, highValue:1.0E300, numNulls:2, numDVs:9" in table["price"]
    # -12345678901.25 and 0.10 as Java's BigDecimal bytes and scale
    assert (
        "lowValue:Decimal(unscaled:FE E0 8E 04 FB 33, scale:2), highValue:Decimal(unscaled:0A, scale:2)"
        in table["amount"]
    )
    assert "numTrues:7, numFalses:2, numNulls:1" in table["flag"]
    assert "maxColLen:40, avgColLen:7.25, numNulls:3, numDVs:11" in table["name"]
    assert "maxColLen:1024, avgColLen:100.5, numNulls:0" in table["blob"]
    assert "lowValue:Date(daysSinceEpoch:19000), highValue:Date(daysSinceEpoch:19030)" in table["day"]
    assert (
        'ACCURATE {"COLUMN_STATS":{"amount":"true","blob":"true","day":"true","flag":"true","name":"true",'
        '"price":"true","qty":"true"}}'
    ) in lines
    assert "PARTITION region=eu 7" in lines and "PARTITION region=us 7" in lines
    aggregated = {line.split()[1]: line for line in lines if line.startswith("AGGR ") and "parts=" not in line}
    assert "AGGR parts=2" in lines
    assert "numTrues:15, numFalses:4, numNulls:2" in aggregated["flag"]
    assert "lowValue:-4, highValue:1099511627776, numNulls:1, numDVs:5" in aggregated["qty"]
    assert "lowValue:Date(daysSinceEpoch:18999), highValue:Date(daysSinceEpoch:19030)" in aggregated["day"]
    assert "DELETE_AGAIN NoSuchObjectException Column stats doesn't exist for db=st table=sales col=qty" in lines
    assert "BAD_COLUMN MetaException Column nope doesn't exist in table sales in database st" in lines
    assert lines[-1] == "LEFT 6"


def test_every_event_of_a_session_is_read_by_hives_deserializer(compiled, server, catalog, metaserver_client, tmp_path):
    base = unpack(HUDI_TABLE, tmp_path)
    HudiImporter(catalog).run(str(base), database="imported", table="t")
    keys = catalog.tables.get("imported", "t").partition_keys
    start = catalog.events.current_id()
    replay(catalog, metaserver_client, base, "hudi", keys)
    run(compiled, "session", server.uri, "ses")

    lines = run(compiled, "events", server.uri, str(start))
    events = [line.split(" ", 6)[1:] for line in lines if line.startswith("EVENT ")]
    assert lines[-1] == f"EVENTS {len(events)}"
    assert [int(e[0]) for e in events] == list(range(start + 1, start + 1 + len(events)))  # no gap
    assert {e[4] for e in events} == {"json-0.2"}
    hudi = [e for e in events if e[2] == "hudi"]
    assert [e[1] for e in hudi[:2]] == ["CREATE_DATABASE", "CREATE_TABLE"]
    added = [e[5] for e in hudi if e[1] == "ADD_PARTITION"]
    assert added and all(a.startswith("t:") for a in added)  # partitions a Hudi commit added
    assert sum(a.split(":")[1].count("t[") for a in added) == 3

    session = [(e[1], e[3], e[5]) for e in events if e[2] == "ses"]
    assert session == [
        ("CREATE_DATABASE", "null", "ses"),
        ("ALTER_DATABASE", "null", "ses{}->ses{owner=ops}"),
        ("CREATE_TABLE", "sales", "sales"),
        ("ALTER_TABLE", "sales", "sales->salessales by region"),
        ("ADD_PARTITION", "sales", "sales:sales[eu],sales[us]:[{region=eu}, {region=us}]"),
        ("ALTER_PARTITION", "sales", "sales:{region=eu}:[eu]->[eu]yes"),
        ("ALTER_PARTITION", "sales", "sales:{region=us}:[us]->[usa]null"),
        ("DROP_PARTITION", "sales", "sales:[{region=usa}]"),
        ("CREATE_FUNCTION", "null", "to_eur"),
        ("DROP_FUNCTION", "null", "to_eur"),
        ("INSERT", "sales", "sales:{region=eu}:[file:/data/part-0.parquet, file:/data/part-1.parquet]"),
        ("DROP_TABLE", "sales", "sales"),
        ("DROP_DATABASE", "null", "ses"),
    ]
