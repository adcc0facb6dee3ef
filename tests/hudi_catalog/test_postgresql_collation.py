"""On a PostgreSQL database whose locale sorts linguistically (ICU ``en-US``: ``a < B < b``), names still
compare and sort by their bytes, as on MariaDB (``utf8mb4_bin``) and SQLite: every text column has the ``C``
collation."""

from __future__ import annotations

import uuid

import psycopg
from sqlalchemy.engine import make_url

from hudi_catalog import Catalog
from hudi_catalog.model import Column, Database, Partition, StorageDescriptor, Table
from tests.conftest import libpq_url

VALUES = ["b", "B", "a", "A", "é", "e", "Z"]


def test_names_sort_by_bytes_under_a_linguistic_locale(postgresql_server_url, tmp_path):
    name = f"hms_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(libpq_url(postgresql_server_url), autocommit=True) as admin:
        admin.execute(
            f"CREATE DATABASE {name} TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en-US' LOCALE 'C.UTF-8'"
        )
        try:
            url = make_url(postgresql_server_url).set(database=name).render_as_string(hide_password=False)
            with psycopg.connect(libpq_url(url)) as conn:  # the locale does sort linguistically
                linguistic = [r[0] for r in conn.execute("SELECT v FROM unnest(%s::text[]) v ORDER BY v", (VALUES,))]
            assert linguistic != sorted(VALUES)
            catalog = Catalog.open(url, str(tmp_path / "wh"))
            try:
                catalog.databases.create(Database("c"))
                catalog.tables.create(
                    Table(
                        "c",
                        "t",
                        sd=StorageDescriptor(columns=[Column("x", "int")]),
                        partition_keys=[Column("k", "string")],
                    )
                )
                catalog.partitions.add("c", "t", [Partition("c", "t", [v]) for v in VALUES])
                assert catalog.partitions.names("c", "t") == [f"k={v}" for v in sorted(VALUES)]
                assert [p.values[0] for p in catalog.partitions.by_filter("c", "t", "k > 'Z'")] == [
                    v for v in sorted(VALUES) if v > "Z"
                ]
            finally:
                catalog.close()
        finally:
            admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
