"""The one place catalog errors become the Iceberg REST protocol's error model: an HTTP status and an
``ErrorModel`` body (``{"error": {"message", "type", "code"}}``), the ``type`` named as Iceberg's Java
exceptions are, which clients map back to their own (PyIceberg by status, Java's by status and type)."""

from __future__ import annotations

import logging

from starlette.responses import JSONResponse, Response

from hudi_catalog.errors import (
    AccessDeniedError,
    AlreadyExistsError,
    CatalogError,
    ConcurrentModificationError,
    DatabaseNotEmptyError,
    DelegationTokenError,
    InvalidFilterError,
    InvalidInputError,
    InvalidObjectError,
    InvalidOperationError,
    NoSuchDatabaseError,
    NoSuchObjectError,
    NoSuchTableError,
    ReadOnlyTableError,
    StorageError,
    TransientStorageError,
)

log = logging.getLogger(__name__)


class RestError(Exception):
    """An answer of the protocol's error model, raised where the request is read (bad JSON, a namespace the
    catalog cannot hold) before any catalog call."""

    def __init__(self, status: int, error_type: str, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.error_type = error_type
        self.headers = headers or {}


NOT_AUTHORIZED = "NotAuthorizedException"


def not_authenticated(message: str) -> RestError:
    """401: no bearer token, or one the catalog does not accept."""
    return RestError(401, NOT_AUTHORIZED, message, {"WWW-Authenticate": 'Bearer realm="hudi-metastore"'})


_BY_CATALOG_ERROR: list[tuple[type[CatalogError], int, str]] = [
    (NoSuchDatabaseError, 404, "NoSuchNamespaceException"),
    (NoSuchTableError, 404, "NoSuchTableException"),
    (NoSuchObjectError, 404, "NotFoundException"),
    (AlreadyExistsError, 409, "AlreadyExistsException"),
    (ConcurrentModificationError, 409, "CommitFailedException"),
    (DatabaseNotEmptyError, 409, "NamespaceNotEmptyException"),
    (ReadOnlyTableError, 403, "ForbiddenException"),
    (AccessDeniedError, 403, "ForbiddenException"),
    (DelegationTokenError, 401, "NotAuthorizedException"),
    (InvalidInputError, 400, "BadRequestException"),
    (InvalidObjectError, 400, "BadRequestException"),
    (InvalidFilterError, 400, "BadRequestException"),
    (InvalidOperationError, 400, "BadRequestException"),
    (TransientStorageError, 503, "ServiceUnavailableException"),
]


def error_response(status: int, error_type: str, message: str, headers: dict[str, str] | None = None) -> Response:
    return JSONResponse(
        {"error": {"message": message, "type": error_type, "code": status}}, status_code=status, headers=headers
    )


def catalog_error_response(error: CatalogError, committing: bool = False) -> Response:
    """The answer to a catalog error; ``committing``: the request was a commit, where a storage failure
    leaves its outcome unknown (the spec's ``CommitStateUnknownException``)."""
    for kind, status, error_type in _BY_CATALOG_ERROR:
        if isinstance(error, kind):
            return error_response(status, error_type, str(error))
    if isinstance(error, StorageError):
        log.error("catalog database or storage failure: %s (%s)", error, getattr(error, "detail", None))
        if committing:
            return error_response(500, "CommitStateUnknownException", str(error))
        return error_response(500, "InternalServerError", str(error))
    # any other refusal of the catalog's (Hive's MetaException: "Can not drop default database")
    return error_response(400, "BadRequestException", str(error))
