"""Delegation tokens, as Hive Metastore hands them to jobs that cannot hold a Kerberos ticket (Spark
executors, YARN tasks): ``issue`` to a Kerberos-authenticated caller, ``renew`` by the token's renewer,
``cancel`` by its owner or renewer, and ``verify`` when a client authenticates with one (SASL DIGEST-MD5).

Tokens and the master keys that sign them live in the catalog database, so every worker and every server on
it accepts every token. A master key signs new tokens for ``key_update_interval`` and is kept until the last
token it signed can have expired. Expired tokens and keys are removed when tokens are issued.
"""

from __future__ import annotations

import hmac
import logging
import os

from ..delegation_tokens import (
    MalformedToken,
    TokenIdentifier,
    TokenLifetimes,
    decode_token,
    encode_token,
    password,
)
from ..errors import DelegationTokenError
from ..store import delegation_tokens as token_store
from ..store import sequences
from .context import ServiceContext

log = logging.getLogger(__name__)

MASTER_KEY_BYTES = 64


def _ms(seconds: float) -> int:
    return int(seconds * 1000)


class DelegationTokenService:
    def __init__(self, ctx: ServiceContext, lifetimes: TokenLifetimes | None = None) -> None:
        self.ctx = ctx
        self.lifetimes = lifetimes or TokenLifetimes()

    def _now_ms(self) -> int:
        return int(self.ctx.clock().timestamp() * 1000)

    def issue(self, owner: str, renewer: str, real_user: str = "") -> str:
        """A new token for ``owner``, renewable by ``renewer``, as Hadoop's URL-safe token string. Who may ask
        for it is the caller's concern (Hive: a Kerberos-authenticated ``owner``)."""
        if not owner:
            raise DelegationTokenError("a delegation token needs an owner")
        now, lifetimes = self._now_ms(), self.lifetimes
        with self.ctx.store.write() as conn:
            removed = token_store.remove_expired(conn, now)
            key = token_store.current_key(conn, now - _ms(lifetimes.key_update_interval))
            if key is None:
                key_id, secret = sequences.take(conn, "token_key"), os.urandom(MASTER_KEY_BYTES)
                token_store.add_key(
                    conn, key_id, secret, now, now + _ms(lifetimes.key_update_interval) + _ms(lifetimes.max_lifetime)
                )
                log.info("new delegation token master key %d", key_id)
            else:
                key_id, secret = key.key_id, key.secret
            identifier = TokenIdentifier(
                owner, renewer, real_user, now, now + _ms(lifetimes.max_lifetime), sequences.take(conn, "token"), key_id
            )
            raw = identifier.encode()
            token_store.add_token(conn, identifier, raw, min(identifier.max_date, now + _ms(lifetimes.renew_interval)))
        if any(removed):
            log.info("removed %d expired delegation token(s) and %d master key(s)", *removed)
        log.info("issued delegation token %d to %s (renewer %s)", identifier.sequence_number, owner, renewer)
        return encode_token(raw, password(secret, raw))

    def renew(self, token: str, caller: str) -> int:
        """Extend the token by the renew interval, never past its maximum date; returns its new expiry (ms).
        Only its renewer may."""
        identifier, raw, token_password = self._parse(token)
        now = self._now_ms()
        with self.ctx.store.write() as conn:
            self._check(conn, identifier, raw, token_password, now, lock=True)
            if caller != identifier.renewer:
                raise DelegationTokenError(
                    f"Client with username {caller} tries to renew a token "
                    f"({self._describe(identifier)}) with non-matching renewer "
                    f"{identifier.renewer}"
                )
            expires = min(identifier.max_date, now + _ms(self.lifetimes.renew_interval))
            token_store.set_expiry(conn, identifier.sequence_number, expires)
        log.info("renewed delegation token %d until %d", identifier.sequence_number, expires)
        return expires

    def cancel(self, token: str, caller: str) -> None:
        """Revoke the token at once; its owner or its renewer may."""
        identifier, raw, _ = self._parse(token)
        with self.ctx.store.write() as conn:
            stored = token_store.token(conn, identifier.sequence_number, lock=True)
            if stored is None or stored.identifier != raw:
                raise DelegationTokenError(f"Token not found ({self._describe(identifier)})")
            if caller not in (identifier.owner, identifier.renewer):
                raise DelegationTokenError(
                    f"{caller} is not authorized to cancel the token ({self._describe(identifier)})"
                )
            token_store.remove_token(conn, identifier.sequence_number)
        log.info("cancelled delegation token %d", identifier.sequence_number)

    def verify(self, raw_identifier: bytes) -> tuple[TokenIdentifier, bytes]:
        """The identifier and the password of a live token (a SASL client proves it knows the password);
        ``DelegationTokenError`` for an unknown, cancelled or expired token."""
        try:
            identifier = TokenIdentifier.decode(raw_identifier)
        except MalformedToken as error:
            raise DelegationTokenError(f"malformed delegation token: {error}") from None
        with self.ctx.store.read() as conn:
            self._check(conn, identifier, raw_identifier, None, self._now_ms())
            secret = token_store.key_secret(conn, identifier.master_key_id)
        if secret is None:
            raise DelegationTokenError(f"no master key for {self._describe(identifier)}")
        return identifier, password(secret, raw_identifier)

    def authenticate(self, token: str) -> TokenIdentifier:
        """The identifier of ``token`` (Hadoop's token string, as ``issue`` gives it) when it is live and
        carries its own password: a bearer token of the Iceberg REST port names its owner.

        Raises:
            DelegationTokenError: malformed, unknown, cancelled, expired, or its password does not match.
        """
        identifier, raw, token_password = self._parse(token)
        with self.ctx.store.read() as conn:
            self._check(conn, identifier, raw, token_password, self._now_ms())
        return identifier

    @staticmethod
    def _parse(token: str) -> tuple[TokenIdentifier, bytes, bytes]:
        try:
            raw, token_password = decode_token(token)
            return TokenIdentifier.decode(raw), raw, token_password
        except MalformedToken as error:
            raise DelegationTokenError(f"malformed delegation token: {error}") from None

    def _check(
        self, conn, identifier: TokenIdentifier, raw: bytes, token_password: bytes | None, now: int, lock: bool = False
    ) -> int:
        """The stored expiry of a token that exists, carries its own password (when given) and is live."""
        stored = token_store.token(conn, identifier.sequence_number, lock=lock)
        if stored is None or stored.identifier != raw:
            raise DelegationTokenError(f"Token not found ({self._describe(identifier)})")
        if token_password is not None:
            secret = token_store.key_secret(conn, identifier.master_key_id)
            if secret is None or not hmac.compare_digest(password(secret, raw), token_password):
                raise DelegationTokenError(f"Password mismatch for {self._describe(identifier)}")
        if stored.expires < now or identifier.max_date < now:
            raise DelegationTokenError(f"Token has expired ({self._describe(identifier)})")
        return stored.expires

    @staticmethod
    def _describe(identifier: TokenIdentifier) -> str:
        """The token as logs and errors name it: never its password."""
        return (
            f"owner={identifier.owner}, renewer={identifier.renewer}, "
            f"sequenceNumber={identifier.sequence_number}, masterKeyId={identifier.master_key_id}"
        )
