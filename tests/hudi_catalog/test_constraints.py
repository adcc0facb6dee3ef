"""Table constraints in the catalog, on SQLite and MariaDB: kept, handed back, named, validated, and gone
with their table."""

from __future__ import annotations

import pytest

from hudi_catalog.errors import InvalidObjectError, InvalidOperationError, NoSuchObjectError, NoSuchTableError
from hudi_catalog.model import Column, ConstraintKind, Database, StorageDescriptor, Table, TableConstraint

PK, FK, UK, NN, DC, CC = (
    ConstraintKind.PRIMARY_KEY,
    ConstraintKind.FOREIGN_KEY,
    ConstraintKind.UNIQUE,
    ConstraintKind.NOT_NULL,
    ConstraintKind.DEFAULT,
    ConstraintKind.CHECK,
)


def _table(name: str, *columns: str) -> Table:
    return Table("shop", name, sd=StorageDescriptor(columns=[Column(c, "int") for c in columns]))


@pytest.fixture
def shop(catalog):
    catalog.databases.create(Database("shop"))
    catalog.tables.create(_table("orders", "id", "customer", "amount"))
    catalog.tables.create(_table("customers", "id", "region"))
    return catalog


def fk(name, column="customer", parent_column="id", parent_key="pk_customers"):
    return TableConstraint(
        FK,
        name,
        "shop",
        "orders",
        column,
        parent_database="shop",
        parent_table="customers",
        parent_column=parent_column,
        parent_key_name=parent_key,
        rely=True,
    )


def test_every_kind_is_kept_and_handed_back(shop):
    shop.constraints.add(
        [
            TableConstraint(PK, "pk_orders", "shop", "orders", "id", 1, enable=True, rely=True),
            TableConstraint(UK, "uk_orders", "shop", "Orders", "CUSTOMER", 1),
            TableConstraint(UK, "uk_orders", "shop", "orders", "amount", 2),
            TableConstraint(NN, "nn_amount", "shop", "orders", "amount"),
            TableConstraint(DC, "dc_amount", "shop", "orders", "amount", value="0"),
            TableConstraint(CC, "cc_amount", "shop", "orders", "amount", value="amount >= 0"),
        ]
    )
    assert [
        (c.name, c.column, c.position, c.enable, c.rely) for c in shop.constraints.of_table("shop", "orders", PK)
    ] == [("pk_orders", "id", 1, True, True)]
    assert [(c.column, c.position) for c in shop.constraints.of_table("shop", "orders", UK)] == [
        ("customer", 1),
        ("amount", 2),
    ]
    assert [(c.kind, c.value) for c in shop.constraints.of_table("shop", "orders") if c.kind in (DC, CC)] == [
        (CC, "amount >= 0"),
        (DC, "0"),
    ]
    assert shop.constraints.of_table("shop", "missing") == []


def test_foreign_keys_reference_a_key_and_are_found_from_both_sides(shop):
    with pytest.raises(InvalidObjectError, match="not in a primary key or unique constraint"):
        shop.constraints.add([fk("fk_customer")])
    shop.constraints.add([TableConstraint(PK, "pk_customers", "shop", "customers", "id")])
    shop.constraints.add([fk("fk_customer")])
    [found] = shop.constraints.foreign_keys(None, None, "shop", "orders")
    assert (found.name, found.parent_table, found.parent_column, found.parent_key_name) == (
        "fk_customer",
        "customers",
        "id",
        "pk_customers",
    )
    assert [c.name for c in shop.constraints.foreign_keys("shop", "customers", None, None)] == ["fk_customer"]
    assert shop.constraints.foreign_keys("shop", "other", "shop", "orders") == []
    with pytest.raises(InvalidOperationError, match="fk_customer"):
        shop.constraints.drop("shop", "customers", "pk_customers")
    shop.constraints.drop("shop", "orders", "fk_customer")
    shop.constraints.drop("shop", "customers", "pk_customers")
    assert shop.constraints.of_table("shop", "customers") == []


def test_bad_constraints_are_refused_whole(shop):
    shop.constraints.add([TableConstraint(PK, "pk_orders", "shop", "orders", "id")])
    cases = [
        ([TableConstraint(PK, "pk2", "shop", "orders", "customer")], InvalidObjectError, "Primary key already exists"),
        (
            [TableConstraint(NN, "pk_orders", "shop", "customers", "id")],
            InvalidObjectError,
            "Constraint name already exists: pk_orders",
        ),
        ([TableConstraint(NN, "nn_x", "shop", "orders", "nope")], InvalidObjectError, "Parent column not found: nope"),
        ([TableConstraint(NN, "nn_y", "shop", "missing", "id")], NoSuchTableError, "Parent table not found"),
        # the second fails: the first is not kept either
        (
            [
                TableConstraint(NN, "nn_ok", "shop", "customers", "region"),
                TableConstraint(NN, "nn_bad", "shop", "customers", "nope"),
            ],
            InvalidObjectError,
            "nope",
        ),
    ]
    for constraints, error, message in cases:
        with pytest.raises(error, match=message):
            shop.constraints.add(constraints)
    assert [c.name for c in shop.constraints.of_table("shop", "customers")] == []
    with pytest.raises(NoSuchObjectError, match="The constraint: nope does not exist for the associated table"):
        shop.constraints.drop("shop", "orders", "nope")


def test_unnamed_constraints_get_names_one_per_key(shop):
    shop.constraints.add(
        [
            TableConstraint(PK, None, "shop", "orders", "id", 1),
            TableConstraint(PK, None, "shop", "orders", "customer", 2),
            TableConstraint(NN, None, "shop", "orders", "id"),
            TableConstraint(NN, None, "shop", "orders", "amount"),
        ]
    )
    keys = shop.constraints.of_table("shop", "orders", PK)
    assert len({c.name for c in keys}) == 1 and keys[0].name.startswith("pk_orders_")
    assert len({c.name for c in shop.constraints.of_table("shop", "orders", NN)}) == 2


def test_constraints_follow_a_renamed_table_and_go_with_a_dropped_one(shop):
    shop.constraints.add([TableConstraint(PK, "pk_customers", "shop", "customers", "id")])
    shop.constraints.add([fk("fk_customer"), TableConstraint(NN, "nn_amount", "shop", "orders", "amount")])
    shop.tables.alter("shop", "orders", _table("sales", "id", "customer", "amount"))
    assert {c.name for c in shop.constraints.of_table("shop", "sales")} == {"fk_customer", "nn_amount"}
    shop.tables.drop("shop", "customers", delete_data=False)  # its key, and the foreign key on it, go
    assert [c.name for c in shop.constraints.of_table("shop", "sales")] == ["nn_amount"]
    shop.tables.drop("shop", "sales", delete_data=False)
    shop.tables.create(_table("sales", "id"))
    assert shop.constraints.of_table("shop", "sales") == []
    shop.constraints.add([TableConstraint(NN, "nn_amount", "shop", "sales", "id")])  # the name is free again


def test_a_table_is_created_with_its_constraints_in_one_transaction(shop):
    shop.tables.create(
        _table("items", "id", "order_id"),
        constraints=[
            TableConstraint(PK, "pk_items", "shop", "items", "id"),
            TableConstraint(UK, "uk_items", "shop", "items", "order_id"),
            # a foreign key on a key of the same call
            TableConstraint(
                FK,
                "fk_self",
                "shop",
                "items",
                "order_id",
                parent_database="shop",
                parent_table="items",
                parent_column="id",
                parent_key_name="pk_items",
            ),
        ],
    )
    assert {c.name for c in shop.constraints.of_table("shop", "items")} == {"pk_items", "uk_items", "fk_self"}
    with pytest.raises(InvalidObjectError, match="Parent column not found"):
        shop.tables.create(_table("broken", "id"), constraints=[TableConstraint(NN, "nn", "shop", "broken", "x")])
    assert "broken" not in shop.tables.names("shop")
