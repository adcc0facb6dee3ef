"""The Iceberg REST catalog end to end on each store: PyIceberg's ``RestCatalog`` through namespaces and a
table's life (create, append, overwrite, delete, schema and partition evolution, snapshot expiry, rename,
drop with and without purge), staged creates, multi-table transactions, revalidation by ETag, and the same
tables seen by Hive clients over Thrift (the catalog behind both is one)."""

from __future__ import annotations

import gzip
import http.client
import json
import urllib.error
import urllib.request
from pathlib import Path

import pyarrow as pa
import pytest
from pyiceberg.catalog.hive import HiveCatalog
from pyiceberg.exceptions import (
    CommitFailedException,
    NamespaceAlreadyExistsError,
    NamespaceNotEmptyError,
    NoSuchNamespaceError,
    NoSuchTableError,
    TableAlreadyExistsError,
)
from pyiceberg.partitioning import PartitionField, PartitionSpec
from pyiceberg.schema import Schema
from pyiceberg.table.snapshots import Operation
from pyiceberg.transforms import BucketTransform, IdentityTransform
from pyiceberg.types import DoubleType, IntegerType, LongType, NestedField, StringType

SCHEMA = Schema(
    NestedField(1, "id", LongType(), required=False),
    NestedField(2, "category", StringType(), required=False),
    NestedField(3, "amount", DoubleType(), required=False),
)
SCHEMA_JSON = {"type": "struct", "fields": [{"id": 1, "name": "id", "type": "long", "required": False}]}
BY_CATEGORY = PartitionSpec(PartitionField(source_id=2, field_id=1000, transform=IdentityTransform(), name="category"))


def rows(ids, category) -> pa.Table:
    return pa.table(
        {
            "id": pa.array(ids, pa.int64()),
            "category": pa.array([category] * len(ids), pa.string()),
            "amount": pa.array([i * 1.5 for i in ids], pa.float64()),
        }
    )


def ids_of(table, **scan) -> list[int]:
    return sorted(table.scan(**scan).to_arrow().column("id").to_pylist())


def call(uri: str, method: str, path: str, body=None, headers=None, raw: bytes | None = None):
    """``(status, headers, JSON body or None)`` of one HTTP request to the REST port."""
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    request = urllib.request.Request(uri + path, data=data, method=method, headers=headers or {})
    if data is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            payload = response.read()
            return response.status, response.headers, json.loads(payload) if payload else None
    except urllib.error.HTTPError as error:
        payload = error.read()
        return error.code, error.headers, json.loads(payload) if payload else None


def test_config_names_the_served_endpoints_and_no_views(rest_uri):
    status, _, body = call(rest_uri, "GET", "/v1/config?warehouse=anything")
    assert status == 200
    assert body["defaults"] == {} and body["overrides"] == {}
    assert "POST /v1/{prefix}/transactions/commit" in body["endpoints"]
    assert not any("/views" in endpoint for endpoint in body["endpoints"])


def test_namespaces_are_the_catalogs_databases(rest, client, warehouse):
    rest.create_namespace("shop", {"comment": "REST's", "owner-team": "sales"})
    with pytest.raises(NamespaceAlreadyExistsError):
        rest.create_namespace("shop")
    assert sorted(rest.list_namespaces()) == [("default",), ("shop",)]
    properties = rest.load_namespace_properties("shop")
    assert properties["comment"] == "REST's" and properties["owner-team"] == "sales"
    assert properties["location"].endswith("/shop.db")
    database = client.get_database("shop")  # the same database, over Thrift
    assert database.description == "REST's" and database.parameters == {"owner-team": "sales"}

    summary = rest.update_namespace_properties("shop", removals={"owner-team", "absent"}, updates={"tier": "gold"})
    assert (summary.updated, sorted(summary.removed), summary.missing) == (["tier"], ["owner-team"], ["absent"])
    assert client.get_database("shop").parameters == {"tier": "gold"}

    assert rest.namespace_exists("shop") and not rest.namespace_exists("nowhere")
    with pytest.raises(NoSuchNamespaceError):
        rest.load_namespace_properties("nowhere")
    assert rest.list_namespaces("shop") == []  # one level: nothing under a database
    with pytest.raises(NoSuchNamespaceError):
        rest.list_namespaces("nowhere")

    rest.create_table("shop.t", SCHEMA)
    with pytest.raises(NamespaceNotEmptyError):
        rest.drop_namespace("shop")
    rest.drop_table("shop.t")
    rest.drop_namespace("shop")
    assert rest.list_namespaces() == [("default",)]
    with pytest.raises(NoSuchNamespaceError):
        rest.drop_namespace("shop")


def test_nested_namespaces_are_refused_and_listings_page(rest_uri, catalog):
    status, _, body = call(rest_uri, "POST", "/v1/namespaces", {"namespace": ["a", "b"]})
    assert (status, body["error"]["type"]) == (400, "BadRequestException")
    status, _, body = call(rest_uri, "GET", "/v1/namespaces/a%1Fb")
    assert (status, body["error"]["type"]) == (404, "NoSuchNamespaceException")

    for name in ("n1", "n2", "n3", "n4"):
        assert call(rest_uri, "POST", "/v1/namespaces", {"namespace": [name]})[0] == 200
    seen, token, pages = [], None, 0
    while True:
        query = "?pageSize=2" + (f"&pageToken={token}" if token else "")
        status, _, body = call(rest_uri, "GET", "/v1/namespaces" + query)
        assert status == 200 and len(body["namespaces"]) <= 2
        seen += [ns[0] for ns in body["namespaces"]]
        pages += 1
        token = body.get("next-page-token")
        if not token:
            break
    assert seen == ["default", "n1", "n2", "n3", "n4"] and pages == 3
    assert call(rest_uri, "GET", "/v1/namespaces?pageSize=0")[0] == 400
    assert call(rest_uri, "GET", "/v1/namespaces?pageToken=%25%25")[0] == 400


def test_a_tables_life_through_pyiceberg(rest, client, warehouse):
    rest.create_namespace("shop")
    table = rest.create_table("shop.events", SCHEMA, partition_spec=BY_CATEGORY)
    with pytest.raises(TableAlreadyExistsError):
        rest.create_table("shop.events", SCHEMA)
    assert rest.list_tables("shop") == [("shop", "events")]
    assert table.metadata_location.startswith(f"file:{warehouse}/shop.db/events/metadata/00000-")
    assert Path(table.metadata_location.removeprefix("file:")).is_file()

    table.append(rows([1, 2, 3], "a"))
    table.append(rows([4, 5], "b"))
    assert ids_of(table) == [1, 2, 3, 4, 5]
    assert ids_of(rest.load_table("shop.events"), row_filter="category == 'a'") == [1, 2, 3]

    # a writer holding stale metadata: its commit is refused (409), PyIceberg refreshes and retries
    stale = rest.load_table("shop.events")
    table.append(rows([6], "a"))
    stale.append(rows([7], "b"))
    assert ids_of(rest.load_table("shop.events")) == [1, 2, 3, 4, 5, 6, 7]

    table = rest.load_table("shop.events")
    table.delete("id = 1")
    table.overwrite(rows([10, 11], "c"), overwrite_filter="category == 'b'")
    assert ids_of(rest.load_table("shop.events")) == [2, 3, 6, 10, 11]
    operations = [s.summary.operation for s in rest.load_table("shop.events").snapshots()]
    assert operations[:4] == [Operation.APPEND] * 4 and Operation.DELETE in operations[4:]

    # schema and partition evolution
    table = rest.load_table("shop.events")
    with table.update_schema() as update:
        update.add_column("quantity", IntegerType())
        update.rename_column("amount", "price")
    with table.update_spec() as update:
        update.add_field("id", BucketTransform(4), "id_bucket")
    table = rest.load_table("shop.events")
    assert [f.name for f in table.schema().fields] == ["id", "category", "price", "quantity"]
    assert len(table.specs()) == 2
    table.transaction().set_properties(team="sales", tier="gold").commit_transaction()
    table = rest.load_table("shop.events")
    table.transaction().remove_properties("tier").commit_transaction()
    table = rest.load_table("shop.events")
    stored = client.get_table("shop", "events")  # Hive clients see the current schema's columns
    assert [(c.name, c.type) for c in stored.sd.cols] == [
        ("id", "bigint"),
        ("category", "string"),
        ("price", "double"),
        ("quantity", "int"),
    ]
    assert stored.parameters["table_type"] == "ICEBERG"
    assert stored.parameters["team"] == "sales" and "tier" not in stored.parameters  # the properties, as Iceberg's
    assert stored.parameters["metadata_location"] == table.metadata_location
    assert stored.parameters["previous_metadata_location"] != table.metadata_location

    # snapshot expiry
    oldest = table.snapshots()[0].snapshot_id
    table.maintenance.expire_snapshots().by_id(oldest).commit()
    assert oldest not in [s.snapshot_id for s in rest.load_table("shop.events").snapshots()]
    assert ids_of(rest.load_table("shop.events")) == [2, 3, 6, 10, 11]

    # rename keeps the files; drop without purge keeps them, with purge removes the table's directory
    rest.rename_table("shop.events", "shop.sales")
    assert not rest.table_exists("shop.events") and rest.table_exists("shop.sales")
    assert ids_of(rest.load_table("shop.sales")) == [2, 3, 6, 10, 11]
    with pytest.raises(NoSuchTableError):
        rest.load_table("shop.events")
    location = Path(f"{warehouse}/shop.db/events")
    rest.drop_table("shop.sales")
    assert location.is_dir() and not rest.table_exists("shop.sales")

    again = rest.create_table("shop.purged", SCHEMA)
    again.append(rows([1], "a"))
    purged = Path(f"{warehouse}/shop.db/purged")
    assert purged.is_dir()
    rest.purge_table("shop.purged")
    assert not purged.exists()


def test_a_staged_create_exists_once_its_transaction_commits(rest, client):
    rest.create_namespace("shop")
    transaction = rest.create_table_transaction("shop.staged", SCHEMA, partition_spec=BY_CATEGORY)
    assert not rest.table_exists("shop.staged")
    transaction.append(rows([1, 2], "a"))
    transaction.commit_transaction()
    assert ids_of(rest.load_table("shop.staged")) == [1, 2]
    assert client.get_table("shop", "staged").parameters["table_type"] == "ICEBERG"

    second = rest.create_table_transaction("shop.twice", SCHEMA)
    rest.create_table("shop.twice", SCHEMA)  # created meanwhile: the staged create's assert-create fails
    with pytest.raises(CommitFailedException):
        second.commit_transaction()


def test_a_multi_table_transaction_applies_all_or_nothing(rest, rest_uri):
    rest.create_namespace("shop")
    first = rest.create_table("shop.one", SCHEMA)
    second = rest.create_table("shop.two", SCHEMA)

    def change(table, uuid, key):
        return {
            "identifier": {"namespace": ["shop"], "name": table},
            "requirements": [{"type": "assert-table-uuid", "uuid": uuid}],
            "updates": [{"action": "set-properties", "updates": {key: "yes"}}],
        }

    one_uuid, two_uuid = str(first.metadata.table_uuid), str(second.metadata.table_uuid)
    stale = change("two", "00000000-0000-0000-0000-000000000000", "b")
    status, _, body = call(
        rest_uri, "POST", "/v1/transactions/commit", {"table-changes": [change("one", one_uuid, "a"), stale]}
    )
    assert (status, body["error"]["type"]) == (409, "CommitFailedException")
    assert "a" not in rest.load_table("shop.one").properties  # nothing half-applied

    both = [change("one", one_uuid, "a"), change("two", two_uuid, "b")]
    status, _, body = call(rest_uri, "POST", "/v1/transactions/commit", {"table-changes": both})
    assert status == 204, body
    assert rest.load_table("shop.one").properties["a"] == "yes"
    assert rest.load_table("shop.two").properties["b"] == "yes"

    # a staged create in a transaction: created with the other changes, or not at all
    staged = call(
        rest_uri, "POST", "/v1/namespaces/shop/tables", {"name": "three", "schema": SCHEMA_JSON, "stage-create": True}
    )[2]
    creation = {
        "identifier": {"namespace": ["shop"], "name": "three"},
        "requirements": [{"type": "assert-create"}],
        "updates": [
            {"action": "assign-uuid", "uuid": staged["metadata"]["table-uuid"]},
            {"action": "upgrade-format-version", "format-version": 2},
            {"action": "add-schema", "schema": staged["metadata"]["schemas"][0]},
            {"action": "set-current-schema", "schema-id": -1},
            {"action": "add-spec", "spec": {"spec-id": 0, "fields": []}},
            {"action": "set-default-spec", "spec-id": -1},
            {"action": "add-sort-order", "sort-order": {"order-id": 0, "fields": []}},
            {"action": "set-default-sort-order", "sort-order-id": -1},
            {"action": "set-location", "location": staged["metadata"]["location"]},
        ],
    }
    status, _, body = call(rest_uri, "POST", "/v1/transactions/commit", {"table-changes": [creation, stale]})
    assert status == 409 and not rest.table_exists("shop.three")
    status, _, body = call(
        rest_uri, "POST", "/v1/transactions/commit", {"table-changes": [creation, change("one", one_uuid, "c")]}
    )
    assert status == 204, body
    assert rest.load_table("shop.three").metadata.table_uuid == first.metadata.table_uuid.__class__(
        staged["metadata"]["table-uuid"]
    )
    assert rest.load_table("shop.one").properties["c"] == "yes"


def test_a_table_registered_from_its_metadata_file(rest, rest_uri, warehouse):
    rest.create_namespace("shop")
    original = rest.create_table("shop.original", SCHEMA)
    original.append(rows([1, 2], "a"))
    registered = rest.register_table("shop.copy", original.metadata_location)
    assert registered.metadata_location == original.metadata_location and ids_of(registered) == [1, 2]
    compressed = Path(f"{warehouse}/elsewhere/00001-abc.gz.metadata.json")  # as Iceberg Java gzips it
    compressed.parent.mkdir()
    compressed.write_bytes(gzip.compress(Path(original.metadata_location.removeprefix("file:")).read_bytes()))
    assert ids_of(rest.register_table("shop.zipped", f"file:{compressed}")) == [1, 2]
    with pytest.raises(TableAlreadyExistsError):
        rest.register_table("shop.copy", original.metadata_location)
    # overwrite: the table moves to the file named, here back to its first version
    first = rest.load_table("shop.original").metadata.metadata_log[0].metadata_file
    request = {"name": "original", "metadata-location": first, "overwrite": True}
    status, _, body = call(rest_uri, "POST", "/v1/namespaces/shop/register", request)
    assert status == 200 and body["metadata-location"] == first
    assert rest.load_table("shop.original").snapshots() == []
    for location, message in [
        ("file:/etc/passwd", "not named as a metadata file"),
        ("file:/etc/x.metadata.json", "system directory"),
        (f"file:{warehouse}/missing.metadata.json", "Cannot read"),
    ]:
        status, _, body = call(
            rest_uri, "POST", "/v1/namespaces/shop/register", {"name": "bad", "metadata-location": location}
        )
        assert status == 400 and message in body["error"]["message"], body
    assert not rest.table_exists("shop.bad")


def test_a_load_revalidates_by_etag(rest, rest_uri):
    rest.create_namespace("shop")
    table = rest.create_table("shop.t", SCHEMA)
    status, headers, body = call(rest_uri, "GET", "/v1/namespaces/shop/tables/t")
    assert status == 200 and body["metadata-location"] == table.metadata_location
    etag = headers["ETag"]
    status, headers, body = call(rest_uri, "GET", "/v1/namespaces/shop/tables/t", headers={"If-None-Match": etag})
    assert (status, body, headers["ETag"]) == (304, None, etag)
    table.append(rows([1], "a"))
    status, headers, body = call(rest_uri, "GET", "/v1/namespaces/shop/tables/t", headers={"If-None-Match": etag})
    assert status == 200 and headers["ETag"] != etag and body["metadata-location"] == table.metadata_location


def test_one_catalog_for_rest_and_thrift_clients(rest, server, warehouse):
    hive_catalog = HiveCatalog("hms", uri=server.uri, warehouse=f"file://{warehouse}")
    rest.create_namespace("shop")
    over_rest = rest.create_table("shop.from_rest", SCHEMA)
    over_rest.append(rows([1, 2], "a"))
    read_over_thrift = hive_catalog.load_table("shop.from_rest")
    assert ids_of(read_over_thrift) == [1, 2]
    read_over_thrift.append(rows([3], "b"))  # a Thrift commit on a REST-made table
    assert ids_of(rest.load_table("shop.from_rest")) == [1, 2, 3]

    over_thrift = hive_catalog.create_table("shop.from_hive", SCHEMA)
    over_thrift.append(rows([5], "a"))
    assert rest.list_tables("shop") == [("shop", "from_hive"), ("shop", "from_rest")]
    read_over_rest = rest.load_table("shop.from_hive")
    assert ids_of(read_over_rest) == [5]
    read_over_rest.append(rows([6], "a"))
    assert ids_of(hive_catalog.load_table("shop.from_hive")) == [5, 6]


def test_only_iceberg_tables_are_served(rest, client, catalog):
    from tests.conftest import hive
    from tests.hms_adapter.helpers import cols, make_table

    rest.create_namespace("shop")
    client.create_table(make_table("shop", "plain", columns=cols("x:int")))
    assert rest.list_tables("shop") == []
    with pytest.raises(NoSuchTableError):
        rest.load_table("shop.plain")
    assert not rest.table_exists("shop.plain")
    assert isinstance(client.get_table("shop", "plain"), hive.Table)


def test_bad_requests_get_the_specs_errors_and_change_nothing(rest, rest_uri):
    rest.create_namespace("shop")
    table = rest.create_table("shop.t", SCHEMA)
    path = "/v1/namespaces/shop/tables/t"
    cases = [
        ("malformed JSON", {"raw": b"{not json"}, 400, "BadRequestException"),
        ("not an object", {"raw": b"[1, 2]"}, 400, "BadRequestException"),
        (
            "unknown update",
            {"body": {"requirements": [], "updates": [{"action": "make-coffee"}]}},
            400,
            "BadRequestException",
        ),
        (
            "update of the wrong shape",
            {"body": {"updates": [{"action": "set-properties", "updates": 5}]}},
            400,
            "BadRequestException",
        ),
        (
            "an update that does not apply",
            {"body": {"updates": [{"action": "set-current-schema", "schema-id": 42}]}},
            400,
            "BadRequestException",
        ),
        (
            "a stale requirement",
            {"body": {"requirements": [{"type": "assert-current-schema-id", "current-schema-id": 7}], "updates": []}},
            409,
            "CommitFailedException",
        ),
        ("updates not a list", {"body": {"updates": {"action": "set-properties"}}}, 400, "BadRequestException"),
    ]
    for label, request, status, error_type in cases:
        got, _, body = call(rest_uri, "POST", path, body=request.get("body"), raw=request.get("raw"))
        assert (got, body["error"]["type"], body["error"]["code"]) == (status, error_type, status), label
    assert rest.load_table("shop.t").metadata_location == table.metadata_location  # nothing applied

    # a body declared larger than the limit is refused from its headers, before any of it is read
    connection = http.client.HTTPConnection("127.0.0.1", int(rest_uri.rsplit(":", 1)[1]), timeout=60)
    connection.putrequest("POST", path)
    connection.putheader("Content-Type", "application/json")
    connection.putheader("Content-Length", str(17 * 1024 * 1024))
    connection.endheaders()
    response = connection.getresponse()
    assert response.status == 413 and json.loads(response.read())["error"]["code"] == 413
    connection.close()
    # one sent in chunks, without a length, is refused once it passes the limit
    chunks = (b" " * (1024 * 1024) for _ in range(17))
    connection = http.client.HTTPConnection("127.0.0.1", int(rest_uri.rsplit(":", 1)[1]), timeout=60)
    try:
        connection.request("POST", path, body=chunks, headers={"Content-Type": "application/json"}, encode_chunked=True)
        response = connection.getresponse()
        assert response.status == 413
    except ConnectionError:  # the server answered 413 and closed while the client was still sending
        pass
    connection.close()
    status, _, body = call(rest_uri, "GET", "/v1/nowhere")
    assert (status, body["error"]["type"]) == (404, "NotFoundException")
    status, _, body = call(rest_uri, "PUT", "/v1/namespaces")
    assert status == 405 and body["error"]["code"] == 405
    status, _, body = call(rest_uri, "GET", "/v1/namespaces/shop/tables/missing")
    assert (status, body["error"]["type"]) == (404, "NoSuchTableException")
    status, _, body = call(rest_uri, "POST", "/v1/namespaces/shop/tables", {"name": "x"})
    assert (status, body["error"]["type"]) == (400, "BadRequestException")
    status, _, body = call(
        rest_uri, "POST", "/v1/namespaces/shop/tables", {"name": "x", "schema": {"type": "nonsense"}}
    )
    assert (status, body["error"]["type"]) == (400, "BadRequestException")
    status, _, body = call(rest_uri, "POST", "/v1/namespaces/shop/tables", {"name": "a%b", "schema": SCHEMA_JSON})
    assert (status, body["error"]["type"]) == (400, "BadRequestException")
    # no table, and no file, where no table may be: the server writes nothing there
    for location, properties in [("file:/etc/iceberg-test", {}), (None, {"write.metadata.path": "file:/etc/meta"})]:
        request = {"name": "placed", "schema": SCHEMA_JSON, "properties": properties}
        if location:
            request["location"] = location
        status, _, body = call(rest_uri, "POST", "/v1/namespaces/shop/tables", request)
        assert (status, body["error"]["type"]) == (400, "BadRequestException"), body
        assert "system directory" in body["error"]["message"]
    assert not Path("/etc/iceberg-test").exists() and not Path("/etc/meta").exists()
    assert not rest.table_exists("shop.placed")
    assert call(rest_uri, "GET", "/v1/config")[0] == 200  # still serving
