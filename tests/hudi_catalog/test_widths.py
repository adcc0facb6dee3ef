"""The column-width guard of the store (``hudi_catalog.store.widths``): which columns it knows, which binds of
a statement it checks, and what a large batch costs."""

from __future__ import annotations

import pytest
from sqlalchemy import String, insert, select, update

from hudi_catalog import names
from hudi_catalog.errors import ValueTooLongError
from hudi_catalog.store import schema, widths
from hudi_catalog.store.widths import TEXT_BYTES, WIDTHS, check_widths


def test_every_limited_text_column_of_the_schema_is_checked():
    for table in schema.metadata.sorted_tables:
        for column in table.columns:
            if isinstance(column.type, String) and column.type.length is not None:
                assert WIDTHS[table.name][column.key][:2] == (column.type.length, False), f"{table.name}.{column.key}"
    assert WIDTHS["db"]["description"][:2] == (TEXT_BYTES, True)  # TEXT on MySQL
    assert "param_value" not in WIDTHS["tbl_params"]  # LONGTEXT: no limit of its own


def test_hive_limits_fit_the_schema():
    assert names.NAME_LIMIT <= min(schema.db.c.name.type.length, schema.tbl.c.name.type.length)
    assert names.NAME_LIMIT <= min(schema.functions.c.name.type.length, schema.catalogs.c.name.type.length)
    assert names.COLUMN_NAME_LIMIT <= schema.schema.c.name.type.length
    assert names.PARTITION_VALUE_LIMIT <= schema.partition_key_val.c.key_val.type.length
    assert names.PARTITION_NAME_LIMIT == schema.partitions.c.part_name.type.length


def test_the_field_is_named_in_words_and_characters_or_bytes_counted():
    with pytest.raises(
        ValueTooLongError, match=r"The role name 'rrrr.*\.\.\.' is too long: 129 characters, at most 128"
    ):
        check_widths("role", [{"name": "ok"}, {"name": "r" * 129}])
    check_widths("db", [{"description": "é" * (TEXT_BYTES // 2)}])  # 65,534 bytes
    with pytest.raises(ValueTooLongError, match="description .* 65536 bytes, at most 65535"):
        check_widths("db", [{"description": "é" * (TEXT_BYTES // 2 + 1)}])
    check_widths("db", [{"name": None, "owner_name": 12}])  # not text: not this guard's business


def test_inserts_and_updates_are_checked_but_not_what_they_compare_with(catalog):
    with pytest.raises(ValueTooLongError, match="role name"):  # a multi-row insert binds name_m0, name_m1, ...
        with catalog.store.write() as conn:
            conn.execute(insert(schema.role).values([{"name": "fine"}, {"name": "r" * 129}]))
    with pytest.raises(ValueTooLongError, match="owner name"):
        with catalog.store.write() as conn:
            conn.execute(update(schema.db).where(schema.db.c.name == "default").values(owner_name="o" * 129))
    with catalog.store.write() as conn:  # a long value in a WHERE clause finds nothing; it stores nothing
        found = conn.execute(update(schema.db).where(schema.db.c.name == "d" * 200).values(owner_name="alice"))
        assert found.rowcount == 0
    with catalog.store.read() as conn:
        assert "fine" not in conn.execute(select(schema.role.c.name)).scalars().all()


def test_a_large_batch_is_checked_column_by_column(monkeypatch):
    """A batch within its widths costs a pass of ``len`` per column: no value is looked at on its own (what a
    Python loop per value would cost, counted in calls rather than seconds); a batch with a value too long
    has that one column's values looked at, no other's."""
    looked_at = []

    def too_long(value, limit, in_bytes):
        looked_at.append(value)
        return real_too_long(value, limit, in_bytes)

    real_too_long = widths._too_long
    monkeypatch.setattr(widths, "_too_long", too_long)
    rows = [
        {
            "tbl_id": 1,
            "part_name": f"ds=2024-01-01/hour={i}",
            "location": f"file:/warehouse/db.db/t/ds=2024-01-01/hour={i}",
            "input_format": "org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat",
            "output_format": "org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat",
            "serde_name": None,
            "serde_lib": "org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe",
            "bucket_cols": "[]",
            "sort_cols": "[]",
        }
        for i in range(50_000)
    ]
    check_widths("partitions", rows)
    assert looked_at == []
    rows[-1]["part_name"] = "p" * (names.PARTITION_NAME_LIMIT + 1)
    with pytest.raises(ValueTooLongError, match="partition name"):
        check_widths("partitions", rows)
    assert 0 < len(looked_at) <= len(rows) and all(value.startswith(("ds=", "p")) for value in looked_at)
