"""Generated requests against the REST port (hypothesis): arbitrary JSON bodies, commits of known and unknown
requirement and update types with fields of any shape, odd namespaces and names in paths, odd query
parameters. None may answer 5xx, every refusal is in the spec's error model, and the table the commits aim
at stays a loadable Iceberg table whose versions all came from accepted commits."""

from __future__ import annotations

import json
import urllib.parse

import pytest
import requests
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hudi_catalog import Catalog
from iceberg_rest.server import RestServer

UPDATE_ACTIONS = [
    "assign-uuid",
    "upgrade-format-version",
    "add-schema",
    "set-current-schema",
    "add-spec",
    "set-default-spec",
    "add-sort-order",
    "set-default-sort-order",
    "add-snapshot",
    "set-snapshot-ref",
    "remove-snapshots",
    "remove-snapshot-ref",
    "set-location",
    "set-properties",
    "remove-properties",
    "set-statistics",
    "remove-statistics",
    "remove-partition-specs",
    "remove-schemas",
    "add-view-version",
    "no-such-action",
]
REQUIREMENT_TYPES = [
    "assert-create",
    "assert-table-uuid",
    "assert-ref-snapshot-id",
    "assert-last-assigned-field-id",
    "assert-current-schema-id",
    "assert-last-assigned-partition-id",
    "assert-default-spec-id",
    "assert-default-sort-order-id",
    "assert-nothing",
]
FIELDS = [
    "uuid",
    "format-version",
    "schema",
    "schema-id",
    "last-column-id",
    "spec",
    "spec-id",
    "sort-order",
    "sort-order-id",
    "snapshot",
    "ref-name",
    "type",
    "snapshot-id",
    "snapshot-ids",
    "location",
    "updates",
    "removals",
    "statistics",
    "spec-ids",
    "schema-ids",
    "ref",
    "current-schema-id",
    "last-assigned-field-id",
    "last-assigned-partition-id",
    "default-spec-id",
    "default-sort-order-id",
]
SCHEMA = {"type": "struct", "schema-id": 0, "fields": [{"id": 1, "name": "id", "type": "long", "required": False}]}

scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**63)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
)
json_values = st.recursive(
    scalars,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=16,
)
shaped_schema = st.fixed_dictionaries(
    {"type": st.sampled_from(["struct", "list", "nonsense"]), "fields": st.lists(json_values, max_size=3)},
    optional={"schema-id": json_values},
)


def _entry(key: str, kinds: list[str]):
    field_value = json_values | shaped_schema
    optional = {f: field_value for f in FIELDS if f != key}
    return st.fixed_dictionaries({key: st.sampled_from(kinds)}, optional=optional) | st.dictionaries(
        st.sampled_from([key, *FIELDS]), json_values, max_size=4
    )


commits = st.fixed_dictionaries(
    {},
    optional={
        "requirements": st.lists(_entry("type", REQUIREMENT_TYPES), max_size=3) | json_values,
        "updates": st.lists(_entry("action", UPDATE_ACTIONS), max_size=4) | json_values,
        "identifier": json_values,
    },
)
names = st.text(min_size=1, max_size=12) | st.sampled_from(["gen", "t", "default", "a\x1fb", ".", "..", "%2F"])


@pytest.fixture(scope="module")
def rest(tmp_path_factory):
    home = tmp_path_factory.mktemp("generated-requests")
    catalog = Catalog.open(f"sqlite:///{home / 'catalog.db'}", str(home / "warehouse"))
    server = RestServer(catalog, "127.0.0.1", 0)
    server.start()
    uri = f"http://127.0.0.1:{server.port}"
    session = requests.Session()
    session.post(f"{uri}/v1/namespaces", json={"namespace": ["gen"]}).raise_for_status()
    session.post(f"{uri}/v1/namespaces/gen/tables", json={"name": "t", "schema": SCHEMA}).raise_for_status()
    yield uri, session
    server.stop()
    catalog.close()


def _check(response: requests.Response) -> None:
    assert response.status_code < 500, (response.status_code, response.text[:500])
    if response.status_code >= 400:
        error = response.json()["error"]
        assert error["code"] == response.status_code and error["type"] and isinstance(error["message"], str)


SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@SETTINGS
@given(body=commits)
def test_generated_commits_answer_below_500_and_leave_a_loadable_table(rest, body):
    uri, session = rest
    _check(session.post(f"{uri}/v1/namespaces/gen/tables/t", json=body))
    loaded = session.get(f"{uri}/v1/namespaces/gen/tables/t")
    assert loaded.status_code == 200
    assert loaded.json()["metadata"]["format-version"] in (1, 2, 3)


@SETTINGS
@given(
    changes=st.lists(st.fixed_dictionaries({"identifier": json_values}, optional={"updates": json_values}), max_size=3)
)
def test_generated_transactions_answer_below_500(rest, changes):
    uri, session = rest
    _check(session.post(f"{uri}/v1/transactions/commit", json={"table-changes": changes}))
    _check(session.post(f"{uri}/v1/transactions/commit", json=changes))


@SETTINGS
@given(
    method=st.sampled_from(["GET", "HEAD", "POST", "DELETE", "PUT"]),
    namespace=names,
    table=names,
    suffix=st.sampled_from(["", "/tables", "/properties", "/register", "/tables/{t}", "/tables/{t}/metrics"]),
    query=st.dictionaries(
        st.sampled_from(["pageSize", "pageToken", "parent", "purgeRequested", "snapshots"]),
        st.text(max_size=8),
        max_size=3,
    ),
    body=json_values,
)
def test_generated_paths_and_bodies_answer_below_500(rest, method, namespace, table, suffix, query, body):
    uri, session = rest
    if method == "DELETE" and namespace == "gen":  # keep the table the other tests commit to
        return
    path = (
        "/v1/namespaces/"
        + urllib.parse.quote(namespace, safe="")
        + suffix.replace("{t}", urllib.parse.quote(table, safe=""))
    )
    data = None if method in ("GET", "HEAD", "DELETE") else json.dumps(body)
    response = session.request(
        method, uri + path, params=query, data=data, headers={"Content-Type": "application/json"}
    )
    assert response.status_code < 500, (method, path, response.status_code, response.text[:500])
    if response.status_code >= 400 and method != "HEAD":
        assert response.json()["error"]["code"] == response.status_code


@SETTINGS
@given(body=json_values, name=names)
def test_generated_creates_and_namespaces_answer_below_500(rest, body, name):
    uri, session = rest
    created = {"name": name, "schema": body} if isinstance(body, dict) else body
    _check(session.post(f"{uri}/v1/namespaces/gen/tables", json=created))
    _check(session.post(f"{uri}/v1/namespaces", json=body))
    _check(session.post(f"{uri}/v1/namespaces/gen/register", json=created))
    _check(session.post(f"{uri}/v1/tables/rename", json=body))
