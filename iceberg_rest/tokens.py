"""The spec's OAuth2 token endpoint, ``POST /v1/oauth/tokens``, under ``serve --auth password``: the client
credentials grant (RFC 6749 section 4.4) with a user and its password from the password file, as
``client_id`` and ``client_secret`` in the form or as HTTP Basic credentials. The token is a delegation
token owned by the user (``security``); errors are OAuth2's (``{"error": ..., "error_description": ...}``)."""

from __future__ import annotations

import base64
import binascii
from urllib.parse import parse_qs

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from .context import RestContext, name_object
from .errors import RestError
from .security import Caller

CLIENT_CREDENTIALS = "client_credentials"
ACCESS_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:access_token"
MAX_FORM_BYTES = 64 * 1024


class OAuthError(Exception):
    """An answer in OAuth2's error format."""

    def __init__(self, status: int, error: str, description: str) -> None:
        super().__init__(description)
        self.status = status
        self.error = error

    def response(self) -> Response:
        headers = {"WWW-Authenticate": 'Basic realm="hudi-metastore"'} if self.status == 401 else None
        return JSONResponse(
            {"error": self.error, "error_description": str(self), "error_uri": None},
            status_code=self.status,
            headers=headers,
        )


class TokenRoute:
    def __init__(self, context: RestContext) -> None:
        self.context = context

    async def issue(self, request: Request) -> Response:
        security = self.context.security
        if security.auth != "password":
            hint = (
                "this server has no authentication (serve --auth none): send no token"
                if security.auth == "none"
                else "use a delegation token got over Thrift with a Kerberos ticket as the bearer token"
            )
            raise OAuthError(400, "unsupported_grant_type", f"No token endpoint here: {hint}")
        form = await _form(request)
        if form.get("grant_type") != CLIENT_CREDENTIALS:
            raise OAuthError(400, "unsupported_grant_type", f"Only the {CLIENT_CREDENTIALS} grant is served")
        user, secret = _credentials(request, form)
        name_object(request, f"token:{user}")
        check = security.check_password
        groups = await run_in_threadpool(check, user, secret) if check is not None else None
        if groups is None:
            raise OAuthError(401, "invalid_client", "Unknown user or wrong password")
        request.state.caller = Caller(user, tuple(groups), authenticated=True)
        tokens = self.context.catalog.delegation_tokens
        token = await self.context.run(lambda: tokens.issue(user, user), "getToken")
        return JSONResponse(
            {
                "access_token": token,
                "token_type": "bearer",
                "expires_in": int(tokens.lifetimes.renew_interval),
                "issued_token_type": ACCESS_TOKEN_TYPE,
            },
            headers={"Cache-Control": "no-store"},
        )


async def _form(request: Request) -> dict[str, str]:
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_FORM_BYTES:
            raise RestError(413, "BadRequestException", f"The token request is larger than {MAX_FORM_BYTES} bytes")
    try:
        parsed = parse_qs(body.decode("utf-8"), keep_blank_values=True, strict_parsing=False)
    except (UnicodeDecodeError, ValueError) as e:
        raise OAuthError(400, "invalid_request", "The token request is not a form") from e
    return {key: values[0] for key, values in parsed.items()}


def _credentials(request: Request, form: dict[str, str]) -> tuple[str, str]:
    header = request.headers.get("authorization", "")
    if header.lower().startswith("basic "):
        try:
            user, _, secret = base64.b64decode(header[6:].strip(), validate=True).decode("utf-8").partition(":")
        except (binascii.Error, UnicodeDecodeError, ValueError) as e:
            raise OAuthError(400, "invalid_request", "Malformed Basic credentials") from e
    else:
        user, secret = form.get("client_id", ""), form.get("client_secret", "")
    if not user or not secret:
        raise OAuthError(401, "invalid_client", "The client credentials grant needs client_id and client_secret")
    return user, secret
