"""Reading a request of the Iceberg REST protocol: its JSON body (bounded), namespaces and identifiers, and
the page of a listing. Everything malformed is a ``RestError`` (400) before the catalog is asked."""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Mapping, Sequence
from typing import Any

from starlette.requests import Request

from .errors import RestError

NAMESPACE_SEPARATOR = "\x1f"
"""How a multi-level namespace is joined in a path (the spec's unit separator, ``%1F``)."""
DEFAULT_MAX_BODY_BYTES = 16 * 1024 * 1024
MAX_PAGE_SIZE = 1000


def bad_request(message: str) -> RestError:
    return RestError(400, "BadRequestException", message)


async def json_body(request: Request, max_bytes: int = DEFAULT_MAX_BODY_BYTES) -> dict[str, Any]:
    """The request's JSON object, read no further than ``max_bytes`` (413 beyond)."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > max_bytes:
        raise RestError(413, "BadRequestException", f"The request body is larger than {max_bytes} bytes")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > max_bytes:
            raise RestError(413, "BadRequestException", f"The request body is larger than {max_bytes} bytes")
        chunks.append(chunk)
    try:
        body = json.loads(b"".join(chunks))
    except (ValueError, UnicodeDecodeError) as e:
        raise bad_request(f"Malformed JSON body: {e}") from e
    if not isinstance(body, dict):
        raise bad_request("The request body must be a JSON object")
    return body


def path_namespace(request: Request) -> list[str]:
    """The namespace of the request's path, its levels split at the unit separator."""
    return request.path_params["namespace"].split(NAMESPACE_SEPARATOR)


def database_of(namespace: Sequence[str]) -> str:
    """The database a namespace is: Hive's databases are one level deep.

    Raises:
        RestError: an empty or nested namespace (404: no such namespace can exist here).
    """
    if len(namespace) != 1 or not namespace[0]:
        raise RestError(
            404, "NoSuchNamespaceException", f"Namespace does not exist: {'.'.join(namespace)} (one level only)"
        )
    return namespace[0]


def namespace_field(body: Mapping[str, Any], key: str = "namespace") -> list[str]:
    value = body.get(key)
    if not isinstance(value, list) or not all(isinstance(level, str) for level in value):
        raise bad_request(f"'{key}' must be a list of strings")
    return value


def identifier_field(body: Mapping[str, Any], key: str) -> tuple[list[str], str]:
    """A ``TableIdentifier`` (``{"namespace": [...], "name": ...}``) of the body."""
    value = body.get(key)
    if not isinstance(value, dict):
        raise bad_request(f"'{key}' must be a table identifier")
    name = value.get("name")
    if not isinstance(name, str) or not name:
        raise bad_request(f"'{key}.name' must be a non-empty string")
    return namespace_field(value), name


def string_map(body: Mapping[str, Any], key: str) -> dict[str, str]:
    value = body.get(key) or {}
    if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        raise bad_request(f"'{key}' must be an object of strings")
    return value


def object_list(body: Mapping[str, Any], key: str) -> list[dict[str, Any]]:
    value = body.get(key, [])
    if not isinstance(value, list) or not all(isinstance(item, dict) for item in value):
        raise bad_request(f"'{key}' must be a list of objects")
    return value


def optional_object(body: Mapping[str, Any], key: str) -> dict[str, Any] | None:
    value = body.get(key)
    if value is not None and not isinstance(value, dict):
        raise bad_request(f"'{key}' must be an object")
    return value


def page(request: Request, names: Sequence[str]) -> tuple[list[str], str | None]:
    """The page of ``names`` (sorted) that ``pageToken`` and ``pageSize`` ask for, and the next page's token
    (None: the last page). Without ``pageSize`` every name after the token is one page."""
    size_text = request.query_params.get("pageSize")
    size = None
    if size_text is not None:
        if not size_text.isdigit() or not 1 <= int(size_text) <= MAX_PAGE_SIZE:
            raise bad_request(f"pageSize must be a whole number from 1 to {MAX_PAGE_SIZE}")
        size = int(size_text)
    token = request.query_params.get("pageToken") or None
    ordered = sorted(names)
    if token is not None:
        try:
            after = base64.b64decode(token.encode("ascii"), altchars=b"-_", validate=True).decode("utf-8")
        except (ValueError, binascii.Error, UnicodeError) as e:
            raise bad_request("Malformed pageToken") from e
        ordered = [n for n in ordered if n > after]
    if size is None or len(ordered) <= size:
        return ordered, None
    chosen = ordered[:size]
    return chosen, base64.urlsafe_b64encode(chosen[-1].encode("utf-8")).decode("ascii")
