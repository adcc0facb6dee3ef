"""Queries on ``token_master_key`` and ``delegation_token`` (see ``schema``)."""

from __future__ import annotations

from typing import NamedTuple

from sqlalchemy import Connection, delete, insert, select, update

from ..delegation_tokens import TokenIdentifier
from . import schema

_k = schema.token_master_key.c
_t = schema.delegation_token.c


class MasterKeyRecord(NamedTuple):
    """A master key that signs tokens."""

    key_id: int
    secret: bytes


class TokenRecord(NamedTuple):
    """A stored token: Hadoop's serialized identifier and its expiry (ms since the epoch)."""

    identifier: bytes
    expires: int


def current_key(conn: Connection, created_after: int) -> MasterKeyRecord | None:
    """The newest master key created after ``created_after`` (ms), if any."""
    row = conn.execute(
        select(_k.key_id, _k.secret).where(_k.created > created_after).order_by(_k.key_id.desc()).limit(1)
    ).first()
    return None if row is None else MasterKeyRecord._make(row)


def add_key(conn: Connection, key_id: int, secret: bytes, created: int, expires: int) -> None:
    conn.execute(insert(schema.token_master_key).values(key_id=key_id, secret=secret, created=created, expires=expires))


def key_secret(conn: Connection, key_id: int) -> bytes | None:
    return conn.execute(select(_k.secret).where(_k.key_id == key_id)).scalar_one_or_none()


def add_token(conn: Connection, identifier: TokenIdentifier, raw: bytes, expires: int) -> None:
    conn.execute(
        insert(schema.delegation_token).values(
            sequence_number=identifier.sequence_number,
            identifier=raw,
            owner=identifier.owner,
            renewer=identifier.renewer,
            real_user=identifier.real_user,
            issue_date=identifier.issue_date,
            max_date=identifier.max_date,
            expires=expires,
            master_key_id=identifier.master_key_id,
        )
    )


def token(conn: Connection, sequence_number: int, lock: bool = False) -> TokenRecord | None:
    """The stored token of ``sequence_number``; ``lock`` holds its row."""
    query = select(_t.identifier, _t.expires).where(_t.sequence_number == sequence_number)
    row = conn.execute(query.with_for_update() if lock else query).first()
    return None if row is None else TokenRecord._make(row)


def set_expiry(conn: Connection, sequence_number: int, expires: int) -> None:
    conn.execute(update(schema.delegation_token).where(_t.sequence_number == sequence_number).values(expires=expires))


def remove_token(conn: Connection, sequence_number: int) -> None:
    conn.execute(delete(schema.delegation_token).where(_t.sequence_number == sequence_number))


def remove_expired(conn: Connection, now: int) -> tuple[int, int]:
    """Drop expired tokens, then expired master keys no token refers to; returns how many of each."""
    tokens = conn.execute(delete(schema.delegation_token).where(_t.expires < now)).rowcount
    in_use = select(_t.master_key_id).distinct().scalar_subquery()
    keys = conn.execute(delete(schema.token_master_key).where(_k.expires < now, _k.key_id.not_in(in_use))).rowcount
    return tokens, keys
