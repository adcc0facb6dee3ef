"""Every answer of the REST port read by models generated from the Iceberg REST catalog's OpenAPI document:
the ``apache_polaris.sdk.catalog.models`` of the ``apache-polaris`` package on PyPI (openapi-generator's
pydantic models of the spec Polaris serves, which includes Iceberg's). Each route's success body parses as the
spec's response model for it, each error body as ``IcebergErrorResponse`` (and the token endpoint's as the
OAuth2 models). The same models refuse bodies the spec does not allow (checked first, so a model that
accepted anything would fail the test)."""

from __future__ import annotations

import urllib.parse

import pytest
import requests

from hms_adapter.passwords import PasswordFile
from iceberg_rest.security import RestSecurity
from iceberg_rest.server import RestServer
from tests.conftest import require_module
from tests.support.authorization import _password
from tests.support.servers import write_passwords

models = require_module("apache_polaris.sdk.catalog.models", extra="test")

SCHEMA = {"type": "struct", "fields": [{"id": 1, "name": "id", "type": "long", "required": False}]}


def parses(model, response: requests.Response) -> None:
    assert response.content, f"{model.__name__}: an empty body ({response.status_code})"
    model.from_dict(response.json())  # raises on a body the spec does not allow


@pytest.fixture
def served(catalog, tmp_path):
    path = tmp_path / "passwords"
    write_passwords(path, {"alice": _password("alice")})
    passwords = PasswordFile(str(path))
    server = RestServer(catalog, "127.0.0.1", 0, security=RestSecurity("password", passwords.check))
    server.start()
    yield f"http://127.0.0.1:{server.port}"
    server.stop()


def test_the_models_refuse_what_the_spec_does_not_allow():
    for model, body in [
        (models.LoadTableResult, {"metadata": {"format-version": 2}}),
        (models.ListNamespacesResponse, {"namespaces": ["flat"]}),
        (models.IcebergErrorResponse, {"error": {"message": "no code", "type": "T"}}),
        (models.CommitTableResponse, {"metadata-location": "x"}),
    ]:
        with pytest.raises(ValueError):
            model.from_dict(body)


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_every_route_answers_in_the_specs_models(served):
    session = requests.Session()
    form = {"grant_type": "client_credentials", "client_id": "alice", "client_secret": "wrong"}
    refused = session.post(f"{served}/v1/oauth/tokens", data=form)
    assert refused.status_code == 401
    parses(models.OAuthError, refused)
    granted = session.post(f"{served}/v1/oauth/tokens", data={**form, "client_secret": _password("alice")})
    parses(models.OAuthTokenResponse, granted)
    unauthenticated = session.get(f"{served}/v1/namespaces")
    assert unauthenticated.status_code == 401
    parses(models.IcebergErrorResponse, unauthenticated)
    session.headers["Authorization"] = f"Bearer {granted.json()['access_token']}"

    parses(models.CatalogConfig, session.get(f"{served}/v1/config"))
    parses(models.CreateNamespaceResponse, session.post(f"{served}/v1/namespaces", json={"namespace": ["shop"]}))
    parses(models.ListNamespacesResponse, session.get(f"{served}/v1/namespaces", params={"pageSize": 1}))
    parses(models.GetNamespaceResponse, session.get(f"{served}/v1/namespaces/shop"))
    updated = session.post(f"{served}/v1/namespaces/shop/properties", json={"removals": ["x"], "updates": {"y": "1"}})
    parses(models.UpdateNamespacePropertiesResponse, updated)

    table = f"{served}/v1/namespaces/shop/tables"
    created = session.post(table, json={"name": "t", "schema": SCHEMA})
    parses(models.LoadTableResult, created)
    staged = session.post(table, json={"name": "later", "schema": SCHEMA, "stage-create": True})
    parses(models.LoadTableResult, staged)
    assert "metadata-location" not in staged.json()
    parses(models.ListTablesResponse, session.get(table))
    parses(models.LoadTableResult, session.get(f"{table}/t"))
    uuid = created.json()["metadata"]["table-uuid"]
    change = {
        "requirements": [{"type": "assert-table-uuid", "uuid": uuid}],
        "updates": [{"action": "set-properties", "updates": {"k": "v"}}],
    }
    committed = session.post(f"{table}/t", json=change)
    parses(models.CommitTableResponse, committed)
    registered = session.post(
        f"{served}/v1/namespaces/shop/register",
        json={"name": "copy", "metadata-location": committed.json()["metadata-location"]},
    )
    parses(models.LoadTableResult, registered)

    for response in [
        session.get(f"{table}/missing"),
        session.get(f"{served}/v1/namespaces/nowhere"),
        session.post(table, json={"name": "t", "schema": SCHEMA}),
        session.post(f"{table}/t", json={"requirements": [{"type": "assert-table-uuid", "uuid": "0"}]}),
        session.post(f"{table}/t", data=b"{not json"),
        session.post(f"{table}/t", json={"updates": [{"action": "make-coffee"}]}),
        session.delete(f"{served}/v1/namespaces/shop"),
        session.get(f"{served}/v1/nowhere"),
        session.put(f"{served}/v1/namespaces"),
    ]:
        assert response.status_code >= 400
        parses(models.IcebergErrorResponse, response)

    # the routes that answer 204 answer with no body, as the spec says
    quoted = urllib.parse.quote("shop")
    for response in [
        session.head(f"{served}/v1/namespaces/{quoted}"),
        session.head(f"{table}/t"),
        session.post(f"{table}/t/metrics", json={"report-type": "commit-report"}),
        session.post(
            f"{served}/v1/tables/rename",
            json={
                "source": {"namespace": ["shop"], "name": "copy"},
                "destination": {"namespace": ["shop"], "name": "moved"},
            },
        ),
        session.post(
            f"{served}/v1/transactions/commit",
            json={"table-changes": [{**change, "identifier": {"namespace": ["shop"], "name": "t"}}]},
        ),
        session.delete(f"{table}/moved"),
    ]:
        assert (response.status_code, response.content) == (204, b""), response.text
