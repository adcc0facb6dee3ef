"""A dropped database takes its write ids with it, over a real Thrift socket on every store: those of its
tables, those taken for names that never became a table, and those taken through a ``@catalog#`` name; a new
table of the same name starts again at write id 1. Write ids are keyed by database and table name only (as in
Hive), so a same-named table of another catalog keeps the ones it shares."""

from __future__ import annotations

from sqlalchemy import insert, text

from hudi_catalog.store import schema
from hudi_catalog.store import txns as txn_store
from tests.conftest import hive
from tests.hms_adapter.helpers import cols, make_table


def _allocate(client, database: str, table: str, txn_id: int) -> int:
    request = hive.AllocateTableWriteIdsRequest(dbName=database, tableName=table, txnIds=[txn_id])
    [pair] = client.allocate_table_write_ids(request).txnToWriteIds
    return pair.writeId


def _open(client, count: int) -> list[int]:
    return client.open_txns(hive.OpenTxnRequest(num_txns=count, user="u", hostname="h")).txn_ids


def _write_id_rows(catalog) -> list[tuple]:
    with catalog.store.read() as conn:
        return [
            tuple(row)
            for table in ("next_write_id", "txn_write_id")
            for row in conn.execute(text(f"SELECT db_name, tbl_name FROM {table} ORDER BY db_name, tbl_name"))
        ]


def test_drop_database_cascade_leaves_no_write_ids(client, catalog):
    client.create_database(hive.Database(name="sales"))
    client.create_table(make_table("sales", "orders", columns=cols("x:int")))
    txns = _open(client, 4)
    assert _allocate(client, "sales", "orders", txns[0]) == 1
    assert _allocate(client, "@hive#Sales", "Orders", txns[1]) == 2  # the same table, named another way
    assert _allocate(client, "Sales", "Pending", txns[2]) == 1  # a table not created yet
    assert _allocate(client, "other", "orders", txns[3]) == 1  # another database's: stays
    for txn_id in txns:
        client.commit_txn(hive.CommitTxnRequest(txnid=txn_id))

    client.drop_database("sales", True, True)
    assert _write_id_rows(catalog) == [("other", "orders"), ("other", "orders")]

    client.create_database(hive.Database(name="sales"))
    client.create_table(make_table("sales", "orders", columns=cols("x:int")))
    [txn_id] = _open(client, 1)
    assert (_allocate(client, "sales", "orders", txn_id), _allocate(client, "sales", "pending", txn_id)) == (1, 1)
    [valid] = client.get_valid_write_ids(
        hive.GetValidWriteIdsRequest(fullTableNames=["sales.orders"], validTxnList=f"{txn_id}:{txn_id}:{txn_id}:")
    ).tblValidWriteIds
    assert (valid.writeIdHighWaterMark, valid.invalidWriteIds) == (1, [1])  # only the new transaction's


def test_a_same_named_table_of_another_catalog_keeps_its_write_ids(client, catalog, warehouse):
    client.create_catalog(
        hive.CreateCatalogRequest(catalog=hive.Catalog(name="spark", locationUri=f"file:{warehouse}/spark"))
    )
    for name in ("hive", "spark"):
        client.create_database(hive.Database(name="sales", catalogName=name))
        table = make_table("sales", "orders", columns=cols("x:int"))
        table.catName = name
        client.create_table(table)
    txns = _open(client, 2)
    assert (_allocate(client, "sales", "orders", txns[0]), _allocate(client, "sales", "gone", txns[1])) == (1, 1)

    client.drop_database("sales", True, True)  # the hive catalog's; spark's sales.orders shares its write ids
    assert _write_id_rows(catalog) == [("sales", "orders"), ("sales", "orders")]
    [txn_id] = _open(client, 1)
    assert _allocate(client, "sales", "orders", txn_id) == 2

    client.drop_table("@spark#sales", "orders", True)  # the last table of that name: its write ids go
    assert _write_id_rows(catalog) == []


def test_a_dropped_table_leaves_the_write_ids_a_same_named_table_of_another_catalog_shares(client, catalog, warehouse):
    client.create_catalog(
        hive.CreateCatalogRequest(catalog=hive.Catalog(name="spark", locationUri=f"file:{warehouse}/spark"))
    )
    for name in ("hive", "spark"):
        client.create_database(hive.Database(name="sales", catalogName=name))
        for table_name in ("orders", "returns"):
            table = make_table("sales", table_name, columns=cols("x:int"))
            table.catName = name
            client.create_table(table)
    client.drop_table("@spark#sales", "returns", True)  # only the hive catalog's sales.returns left
    txns = _open(client, 2)
    assert (_allocate(client, "sales", "orders", txns[0]), _allocate(client, "sales", "returns", txns[1])) == (1, 1)

    client.drop_table("sales", "orders", True)  # the hive catalog's; spark's sales.orders shares its write ids
    client.drop_table("sales", "returns", True)  # no other catalog's: its write ids go
    assert _write_id_rows(catalog) == [("sales", "orders"), ("sales", "orders")]


def test_the_kept_tables_of_a_dropped_database_are_kept_however_many_lists_they_take(catalog):
    """The store's delete directly, with more kept tables than one ``NOT IN`` list holds (``txns.BATCH``): the
    lists are ANDed, so a row goes only when its table is in none of them."""
    kept = [f"t{n:05d}" for n in range(2 * txn_store.BATCH + 1)]  # three lists, the last of one name
    names = ["a_gone", kept[0], kept[txn_store.BATCH + 7], kept[-1], "z_gone"]
    with catalog.store.write() as conn:
        for txn_id, (database, name) in enumerate([("other", "a_gone"), *(("sales", n) for n in names)]):
            conn.execute(insert(schema.next_write_id).values(db_name=database, tbl_name=name, next_value=2))
            conn.execute(insert(schema.txn_write_id).values(db_name=database, tbl_name=name, write_id=1, txn_id=txn_id))
        txn_store.delete_database(conn, "sales", kept[::-1])
    left = [("other", "a_gone"), *(("sales", n) for n in names[1:-1])]
    assert _write_id_rows(catalog) == sorted(left) + sorted(left)
