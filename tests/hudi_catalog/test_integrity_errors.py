"""Which integrity error means what: a unique key refusing a row another transaction committed first is
``AlreadyExists``; a broken reference (its object dropped meanwhile) or a missing value is not."""

from __future__ import annotations

import pytest
from sqlalchemy import insert

from hudi_catalog.errors import AlreadyExistsError, InvalidObjectError
from hudi_catalog.model import Database
from hudi_catalog.store import schema


def test_a_duplicate_key_is_already_exists(catalog):
    catalog.databases.create(Database("dup"))
    with pytest.raises(AlreadyExistsError):
        with catalog.store.write() as conn:
            conn.execute(insert(schema.db).values(name="dup", cat_name="hive"))


def test_a_reference_to_a_missing_object_is_not_already_exists(catalog):
    with pytest.raises(InvalidObjectError, match="no longer exists"):
        with catalog.store.write() as conn:
            conn.execute(insert(schema.partitions).values(tbl_id=987654, part_name="ds=1", schema_version=0))


def test_a_missing_value_is_not_already_exists(catalog):
    with pytest.raises(InvalidObjectError, match="no longer exists"):
        with catalog.store.write() as conn:
            conn.execute(insert(schema.db).values(name=None, cat_name="hive"))
