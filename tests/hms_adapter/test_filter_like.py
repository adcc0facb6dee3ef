"""``LIKE`` in partition filters, read as the client's Hive version reads it (``serve --filter-like``).

Hive 2/3 clients and Spark send a Java regular expression matched whole; Hive Metastore 4 reads the pattern
as SQL ``LIKE`` (``%``, ``_``) where ``.`` and ``.*`` keep working and ``[...]`` is only text. By default a
connection that makes one of Hive 4's own calls (its request forms) gets Hive 4's rule, any other Hive 2/3's.
The expected answers are Hive Metastore 2.3.10's and 4.0.1's on the same partitions.
"""

from __future__ import annotations

import pytest

from hms_adapter.catalog_access import hive_wire
from hudi_catalog import Catalog
from hudi_catalog.pruning.hive4_like import LikeRule
from tests.conftest import RunningServer, hive
from tests.hms_adapter.helpers import cols, make_partition, make_table

COUNTRIES = ("de", "uk", "us")
HIVE_2_3 = {
    "%k": [],
    "u%": [],
    "u_": [],
    "%": [],
    "u[ks]": ["uk", "us"],
    "u.*": ["uk", "us"],
    ".*k": ["uk"],
    "(?i)UK": ["uk"],
    "u.": ["uk", "us"],
}
HIVE_4 = {
    "%k": ["uk"],
    "u%": ["uk", "us"],
    "u_": ["uk", "us"],
    "%": ["de", "uk", "us"],
    "u[ks]": [],
    "u.*": ["uk", "us"],
    ".*k": ["uk"],
    "(?i)UK": ["uk"],
    "u.": ["uk", "us"],
}


def _countries(client) -> None:
    client.create_database(hive.Database(name="geo"))
    client.create_table(make_table("geo", "t", partition_keys=cols("country:string")))
    client.add_partitions([make_partition("geo", "t", [c]) for c in COUNTRIES])


def _plain(client, pattern: str) -> list[str]:
    return sorted(p.values[0] for p in client.get_partitions_by_filter("geo", "t", f'country like "{pattern}"', -1))


def _request(client, pattern: str) -> list[str]:
    request = hive.GetPartitionsByFilterRequest(dbName="geo", tblName="t", filter=f'country like "{pattern}"')
    return sorted(p.values[0] for p in client.get_partitions_by_filter_req(request))


def test_each_client_gets_its_hive_versions_rule(server, client):
    _countries(client)
    assert {p: _plain(client, p) for p in HIVE_2_3} == HIVE_2_3  # a Hive 2/3 client's calls
    hive4 = server.client()
    try:
        assert {p: _request(hive4, p) for p in HIVE_4} == HIVE_4  # Hive 4's request form
        # the connection is a Hive 4 client's from then on, in its other filter calls too
        assert {p: _plain(hive4, p) for p in HIVE_4} == HIVE_4
        assert hive4.get_num_partitions_by_filter("geo", "t", 'country like "u%"') == 2
    finally:
        hive4.close()
    assert {p: _plain(client, p) for p in HIVE_2_3} == HIVE_2_3  # the other connection is unchanged


@pytest.mark.parametrize("rule", [LikeRule.JAVA_REGEX, LikeRule.HIVE4])
def test_the_rule_can_be_fixed_for_every_client(db_url, warehouse, rule):
    catalog = Catalog.open(db_url, str(warehouse), **hive_wire(), filter_like=rule)
    running = RunningServer(catalog)
    client = running.client()
    try:
        _countries(client)
        expected = HIVE_4 if rule is LikeRule.HIVE4 else HIVE_2_3
        assert {p: _plain(client, p) for p in expected} == expected
        assert {p: _request(client, p) for p in expected} == expected
    finally:
        client.close()
        running.stop()
        catalog.close()
