"""Hadoop's delegation token format, as Hive Metastore issues its tokens (kind ``HIVE_DELEGATION_TOKEN``).

A token is an identifier and a password. The identifier is Hadoop's ``AbstractDelegationTokenIdentifier``
written as a ``Writable``: a version byte (0), the owner, renewer and real user as ``Text`` (a variable-length
length, then UTF-8), the issue and maximum dates (milliseconds) as variable-length longs, the sequence number
and the master key id as variable-length ints. The password is the HMAC-SHA1 of the identifier's bytes under
the master key. A token travels as the URL-safe base64 of: identifier length, identifier, password length,
password, kind, service (Hadoop's ``Token.encodeToUrlString``). ``TokenLifetimes`` holds the intervals tokens
and master keys live by (``services.delegation_tokens`` issues them).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import io
from dataclasses import dataclass

from . import config

TOKEN_KIND = "HIVE_DELEGATION_TOKEN"
IDENTIFIER_VERSION = 0
MAX_TOKEN_BYTES = 16 * 1024
"""The longest token string accepted (a real one is about 100 bytes)."""


class MalformedToken(ValueError):
    """Bytes or a string that are not a delegation token."""


def _write_vlong(out: io.BytesIO, value: int) -> None:
    """Hadoop's ``WritableUtils.writeVLong``: one byte for -112..127, else a length byte and big-endian bytes."""
    if -112 <= value <= 127:
        out.write((value & 0xFF).to_bytes(1, "big"))
        return
    length = -112
    if value < 0:
        value ^= -1
        length = -120
    size = (value.bit_length() + 7) // 8
    out.write(((length - size) & 0xFF).to_bytes(1, "big"))
    out.write(value.to_bytes(size, "big"))


def _read_exactly(data: io.BytesIO, size: int) -> bytes:
    chunk = data.read(size)
    if len(chunk) != size:
        raise MalformedToken("truncated token")
    return chunk


def _read_vlong(data: io.BytesIO) -> int:
    first = int.from_bytes(_read_exactly(data, 1), "big", signed=True)
    if first >= -112:
        return first
    negative = first < -120
    size = (-120 - first) if negative else (-112 - first)
    value = int.from_bytes(_read_exactly(data, size), "big")
    return value ^ -1 if negative else value


def _write_bytes(out: io.BytesIO, value: bytes) -> None:
    _write_vlong(out, len(value))
    out.write(value)


def _read_bytes(data: io.BytesIO) -> bytes:
    size = _read_vlong(data)
    if not 0 <= size <= MAX_TOKEN_BYTES:
        raise MalformedToken("bad length in token")
    return _read_exactly(data, size)


def _read_text(data: io.BytesIO) -> str:
    try:
        return _read_bytes(data).decode("utf-8")
    except UnicodeDecodeError:
        raise MalformedToken("token text is not UTF-8") from None


@dataclass(frozen=True)
class TokenIdentifier:
    """What a token says: who it is for, who may renew it, when it was issued and when it ends for good."""

    owner: str
    renewer: str
    real_user: str
    issue_date: int
    max_date: int
    sequence_number: int
    master_key_id: int

    def encode(self) -> bytes:
        out = io.BytesIO()
        out.write(bytes([IDENTIFIER_VERSION]))
        for text in (self.owner, self.renewer, self.real_user):
            _write_bytes(out, text.encode("utf-8"))
        for number in (self.issue_date, self.max_date, self.sequence_number, self.master_key_id):
            _write_vlong(out, number)
        return out.getvalue()

    @classmethod
    def decode(cls, raw: bytes) -> TokenIdentifier:
        data = io.BytesIO(raw)
        if _read_exactly(data, 1)[0] != IDENTIFIER_VERSION:
            raise MalformedToken("unknown token identifier version")
        owner, renewer, real_user = _read_text(data), _read_text(data), _read_text(data)
        numbers = [_read_vlong(data) for _ in range(4)]
        if data.read(1):
            raise MalformedToken("trailing bytes after the token identifier")
        return cls(owner, renewer, real_user, *numbers)


def password(master_key: bytes, identifier: bytes) -> bytes:
    """The token's password: HMAC-SHA1 of the identifier under the master key (Hadoop's ``SecretManager``)."""
    return hmac.new(master_key, identifier, hashlib.sha1).digest()


def encode_token(identifier: bytes, token_password: bytes, service: str = "") -> str:
    """The token as Hadoop's ``Token.encodeToUrlString`` writes it."""
    out = io.BytesIO()
    _write_bytes(out, identifier)
    _write_bytes(out, token_password)
    _write_bytes(out, TOKEN_KIND.encode())
    _write_bytes(out, service.encode())
    return base64.urlsafe_b64encode(out.getvalue()).decode().rstrip("=")


def decode_token(text: str) -> tuple[bytes, bytes]:
    """The identifier and password of a token string (URL-safe or standard base64, padded or not);
    ``MalformedToken`` when it is not one of Hive's tokens."""
    if len(text) > MAX_TOKEN_BYTES:
        raise MalformedToken("token too long")
    try:
        raw = base64.urlsafe_b64decode(text.replace("+", "-").replace("/", "_") + "=" * (-len(text) % 4))
    except (ValueError, TypeError):
        raise MalformedToken("token is not base64") from None
    data = io.BytesIO(raw)
    identifier, token_password = _read_bytes(data), _read_bytes(data)
    if _read_bytes(data).decode("utf-8", "replace") != TOKEN_KIND:
        raise MalformedToken(f"not a {TOKEN_KIND}")
    _read_bytes(data)  # the service: the client's name for the token, no concern of the server
    return identifier, token_password


@dataclass(frozen=True)
class TokenLifetimes:
    """Hive's ``hive.cluster.delegation.*`` intervals, in seconds."""

    renew_interval: float = config.TOKEN_RENEW_INTERVAL_SECONDS_DEFAULT
    max_lifetime: float = config.TOKEN_MAX_LIFETIME_SECONDS_DEFAULT
    key_update_interval: float = config.TOKEN_KEY_UPDATE_INTERVAL_SECONDS_DEFAULT

    def __post_init__(self) -> None:
        if min(self.renew_interval, self.max_lifetime, self.key_update_interval) <= 0:
            raise ValueError("delegation token intervals must be positive")
