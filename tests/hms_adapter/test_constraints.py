"""Table constraints over the wire: a Hive 3.1 client (``hive-metastore-client``) creates a table with
constraints of every kind and adds and drops more; the calls Flink's Hive catalog makes on every table it
loads (``HiveShimV310.getPrimaryKey``/``getNotNullColumns``: ``get_primary_keys`` with a
``PrimaryKeysRequest(db, table)``, ``get_not_null_constraints`` with a ``NotNullConstraintsRequest("hive", db,
table)``) are replayed with the structs it sends; Hive 4's ``get_all_table_constraints`` and
``create_table_req`` go through the project's IDL."""

from __future__ import annotations

import pytest
from thrift_files.libraries.thrift_hive_metastore_client import ttypes as hive3

from tests.conftest import hive
from tests.hms_adapter.helpers import cols, make_table


def _hive3_table(name: str, *columns: str) -> hive3.Table:
    return hive3.Table(
        tableName=name,
        dbName="shop",
        owner="alice",
        tableType="MANAGED_TABLE",
        parameters={},
        sd=hive3.StorageDescriptor(
            cols=[hive3.FieldSchema(c, "int", None) for c in columns], serdeInfo=hive3.SerDeInfo()
        ),
        partitionKeys=[],
    )


def test_a_hive_3_client_creates_reads_and_drops_constraints(client, hive3_metastore):
    client.create_database(hive.Database(name="shop"))
    hive3_metastore.create_table_with_constraints(
        _hive3_table("customers", "id", "region"),
        [hive3.SQLPrimaryKey("shop", "customers", "id", 1, "pk_customers", True, False, True, "hive")],
        [],
        [],
        [],
        [],
        [],
    )
    hive3_metastore.create_table_with_constraints(
        _hive3_table("orders", "id", "customer", "amount"),
        [hive3.SQLPrimaryKey("shop", "orders", "id", 1, "pk_orders", True, False, True, "hive")],
        [
            hive3.SQLForeignKey(
                "shop",
                "customers",
                "id",
                "shop",
                "orders",
                "customer",
                1,
                0,
                0,
                "fk_customer",
                "pk_customers",
                True,
                False,
                True,
                "hive",
            )
        ],
        [hive3.SQLUniqueConstraint("hive", "shop", "orders", "customer", 1, "uk_customer", True, False, False)],
        [hive3.SQLNotNullConstraint("hive", "shop", "orders", "amount", "nn_amount", True, False, True)],
        [hive3.SQLDefaultConstraint("hive", "shop", "orders", "amount", "0", "dc_amount", True, False, False)],
        [hive3.SQLCheckConstraint("hive", "shop", "orders", "amount", "amount >= 0", "cc_amount", True, False, False)],
    )

    # Flink's HiveCatalog, on every table it loads
    [pk] = hive3_metastore.get_primary_keys(hive3.PrimaryKeysRequest("shop", "orders")).primaryKeys
    assert (pk.pk_name, pk.column_name, pk.key_seq, pk.rely_cstr) == ("pk_orders", "id", 1, True)
    [nn] = hive3_metastore.get_not_null_constraints(
        hive3.NotNullConstraintsRequest("hive", "shop", "orders")
    ).notNullConstraints
    assert (nn.nn_name, nn.column_name, nn.rely_cstr) == ("nn_amount", "amount", True)

    [fk] = hive3_metastore.get_foreign_keys(hive3.ForeignKeysRequest(None, None, "shop", "orders")).foreignKeys
    assert (fk.fk_name, fk.pktable_name, fk.pkcolumn_name, fk.pk_name) == (
        "fk_customer",
        "customers",
        "id",
        "pk_customers",
    )
    assert [
        u.uk_name
        for u in hive3_metastore.get_unique_constraints(
            hive3.UniqueConstraintsRequest("hive", "shop", "orders")
        ).uniqueConstraints
    ] == ["uk_customer"]
    assert [
        (d.default_value, d.dc_name)
        for d in hive3_metastore.get_default_constraints(
            hive3.DefaultConstraintsRequest("hive", "shop", "orders")
        ).defaultConstraints
    ] == [("0", "dc_amount")]
    assert [
        c.check_expression
        for c in hive3_metastore.get_check_constraints(
            hive3.CheckConstraintsRequest("hive", "shop", "orders")
        ).checkConstraints
    ] == ["amount >= 0"]

    hive3_metastore.add_not_null_constraint(
        hive3.AddNotNullConstraintRequest(
            [hive3.SQLNotNullConstraint("hive", "shop", "customers", "region", "nn_region", True, False, False)]
        )
    )
    with pytest.raises(hive3.MetaException, match="Constraint name already exists: nn_region"):
        hive3_metastore.add_not_null_constraint(
            hive3.AddNotNullConstraintRequest(
                [hive3.SQLNotNullConstraint("hive", "shop", "orders", "id", "nn_region", True, False, False)]
            )
        )
    with pytest.raises(hive3.NoSuchObjectException, match="Parent table not found"):
        hive3_metastore.add_primary_key(
            hive3.AddPrimaryKeyRequest(
                [hive3.SQLPrimaryKey("shop", "missing", "id", 1, "pk_m", True, False, True, "hive")]
            )
        )
    with pytest.raises(hive3.MetaException, match="foreign key"):
        hive3_metastore.drop_constraint(hive3.DropConstraintRequest("shop", "customers", "pk_customers"))
    hive3_metastore.drop_constraint(hive3.DropConstraintRequest("shop", "orders", "fk_customer"))
    with pytest.raises(hive3.NoSuchObjectException, match="The constraint: fk_customer does not exist"):
        hive3_metastore.drop_constraint(hive3.DropConstraintRequest("shop", "orders", "fk_customer"))
    hive3_metastore.drop_table("shop", "orders", False)
    assert hive3_metastore.get_primary_keys(hive3.PrimaryKeysRequest("shop", "orders")).primaryKeys == []


def test_hive_4_create_table_req_and_all_table_constraints(client):
    client.create_database(hive.Database(name="shop"))
    client.create_table_req(
        hive.CreateTableRequest(
            table=make_table("shop", "t", columns=cols("id:int", "v:string")),
            primaryKeys=[hive.SQLPrimaryKey("shop", "t", "id", 1, "pk_t", True, False, True)],
            notNullConstraints=[hive.SQLNotNullConstraint("hive", "shop", "t", "v", "nn_v", True, False, False)],
        )
    )
    found = client.get_all_table_constraints(
        hive.AllTableConstraintsRequest(dbName="shop", tblName="t", catName="hive")
    ).allTableConstraints
    assert [k.pk_name for k in found.primaryKeys] == ["pk_t"]
    assert [n.nn_name for n in found.notNullConstraints] == ["nn_v"]
    assert (found.foreignKeys, found.uniqueConstraints, found.defaultConstraints, found.checkConstraints) == (
        [],
        [],
        [],
        [],
    )
    # a bad constraint: neither the table nor any constraint is kept
    with pytest.raises(hive.InvalidObjectException, match="Parent column not found: nope"):
        client.create_table_req(
            hive.CreateTableRequest(
                table=make_table("shop", "u", columns=cols("id:int")),
                notNullConstraints=[hive.SQLNotNullConstraint("hive", "shop", "u", "nope", "nn_u", True, False, False)],
            )
        )
    assert client.get_all_tables("shop") == ["t"]
