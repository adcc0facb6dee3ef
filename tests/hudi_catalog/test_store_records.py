"""The store's records are built from their selects' rows by position: their fields are those columns, in order
(``DriverStatement`` checks its own records when it first runs)."""

from __future__ import annotations

import pytest

from hudi_catalog.store import authorization, catalogs, databases, functions, locks, schema, snapshot, tables

SELECTS = [
    (tables.TableRecord, tables._table_query()),
    (functions.FunctionRecord, functions._query()),
    (databases.DatabaseRecord, schema.db.select()),
    (catalogs.CatalogRecord, schema.catalogs.select()),
    (authorization.RoleRecord, schema.role.select()),
    (authorization.MemberRecord, schema.role_member.select()),
    (authorization.MembershipRecord, authorization._MEMBERSHIP),
    (authorization.GrantRecord, schema.privilege_grant.select()),
    (authorization.NamedGrantRecord, authorization._GRANTS_WITH_NAMES),
    (locks.NearLockRecord, locks._NEAR),
    (snapshot.PartitionFileRecord, snapshot._PARTITION_FILES),
    (snapshot.PartitionFileRecord, snapshot._UNPARTITIONED_FILES),
]


@pytest.mark.parametrize(("record", "query"), SELECTS, ids=[f"{r.__name__}-{n}" for n, (r, _) in enumerate(SELECTS)])
def test_a_record_has_its_selects_columns_in_order(record, query):
    assert record._fields == tuple(c.name for c in query.selected_columns)
