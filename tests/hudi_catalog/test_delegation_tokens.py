"""Delegation tokens in the catalog: Hadoop's token format, and the service's lifetimes, master key rotation
and refusals on SQLite and MariaDB, with the catalog's clock moved by hand."""

from __future__ import annotations

import io

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hudi_catalog import Catalog
from hudi_catalog.delegation_tokens import (
    MalformedToken,
    TokenIdentifier,
    TokenLifetimes,
    _read_vlong,
    _write_vlong,
    decode_token,
    encode_token,
)
from hudi_catalog.errors import DelegationTokenError
from tests.support.catalog_probes import Clock

DAY = 86400.0


@pytest.mark.parametrize(
    "value, encoded",
    [
        (0, "00"),
        (127, "7f"),
        (-112, "90"),
        (128, "8f80"),
        (1000, "8e03e8"),
        (-113, "8770"),
        (-1, "ff"),
        (2**31 - 1, "8c7fffffff"),
    ],
)
def test_variable_length_numbers_are_hadoops(value, encoded):
    """Hadoop's ``WritableUtils.writeVLong`` bytes (worked out from its rules)."""
    out = io.BytesIO()
    _write_vlong(out, value)
    assert out.getvalue().hex() == encoded
    assert _read_vlong(io.BytesIO(out.getvalue())) == value


@given(
    st.text(max_size=40),
    st.text(max_size=40),
    st.text(max_size=40),
    st.integers(-(2**63), 2**63 - 1),
    st.integers(-(2**63), 2**63 - 1),
    st.integers(-(2**31), 2**31 - 1),
    st.integers(-(2**31), 2**31 - 1),
)
def test_identifiers_and_tokens_round_trip(owner, renewer, real_user, issued, max_date, sequence, key):
    identifier = TokenIdentifier(owner, renewer, real_user, issued, max_date, sequence, key)
    raw = identifier.encode()
    assert TokenIdentifier.decode(raw) == identifier
    assert decode_token(encode_token(raw, b"p" * 20)) == (raw, b"p" * 20)


def test_malformed_tokens_are_refused():
    raw = TokenIdentifier("alice", "hive", "", 1, 2, 3, 4).encode()
    token = encode_token(raw, b"x" * 20)
    for cut in range(len(token)):
        with pytest.raises(MalformedToken):
            decode_token(token[:cut])
    for bad in ("!!!!", "A" * 20_000, encode_token(raw, b"x")[:-4] + "AAAA"):
        with pytest.raises(MalformedToken):
            decode_token(bad)
    for cut in range(len(raw)):
        with pytest.raises(MalformedToken):
            TokenIdentifier.decode(raw[:cut])
    with pytest.raises(MalformedToken):
        TokenIdentifier.decode(raw + b"\0")


@pytest.fixture
def tokens(db_url, warehouse):
    catalog = Catalog.open(db_url, str(warehouse), token_lifetimes=TokenLifetimes(DAY, 7 * DAY, DAY))
    catalog.ctx.clock = Clock()
    yield catalog.delegation_tokens, catalog.ctx.clock
    catalog.close()


def test_renewals_stop_at_the_maximum_lifetime(tokens):
    service, clock = tokens
    token = service.issue("alice", "hive")
    raw = decode_token(token)[0]
    for _ in range(6):
        clock.advance(DAY - 60)  # renewed a minute before it would expire
        service.renew(token, "hive")
        assert service.verify(raw)[0].owner == "alice"
    clock.advance(DAY - 60)
    expiry = service.renew(token, "hive")
    assert expiry == TokenIdentifier.decode(raw).max_date  # capped
    clock.advance(DAY)
    with pytest.raises(DelegationTokenError, match="Token has expired"):
        service.verify(raw)
    with pytest.raises(DelegationTokenError, match="Token has expired"):
        service.renew(token, "hive")


def test_an_unrenewed_token_expires_after_the_renew_interval(tokens):
    service, clock = tokens
    raw = decode_token(service.issue("alice", "hive"))[0]
    clock.advance(DAY - 1)
    service.verify(raw)
    clock.advance(2)
    with pytest.raises(DelegationTokenError, match="Token has expired"):
        service.verify(raw)


def test_master_keys_rotate_and_old_tokens_stay_valid(tokens):
    service, clock = tokens
    first = service.issue("alice", "hive")
    second = service.issue("bob", "hive")
    keys = {TokenIdentifier.decode(decode_token(t)[0]).master_key_id for t in (first, second)}
    assert len(keys) == 1  # one key signs every token of its interval
    clock.advance(DAY - 1)
    service.renew(first, "hive")
    clock.advance(2)  # the key's update interval is over
    third = service.issue("carol", "hive")
    assert TokenIdentifier.decode(decode_token(third)[0]).master_key_id not in keys
    assert service.verify(decode_token(first)[0])[1] == decode_token(first)[1]  # signed by the old key


def test_refusals(tokens):
    service, _ = tokens
    token = service.issue("alice", "hive")
    raw, password = decode_token(token)
    with pytest.raises(DelegationTokenError, match="Client with username alice tries to renew"):
        service.renew(token, "alice")
    with pytest.raises(DelegationTokenError, match="Password mismatch"):
        service.renew(encode_token(raw, bytes(20)), "hive")
    with pytest.raises(DelegationTokenError, match="mallory is not authorized to cancel"):
        service.cancel(token, "mallory")
    with pytest.raises(DelegationTokenError, match="Token not found"):
        service.verify(TokenIdentifier("alice", "hive", "", 1, 2, 999, 1).encode())
    with pytest.raises(DelegationTokenError, match="a delegation token needs an owner"):
        service.issue("", "hive")
    service.cancel(token, "hive")  # the renewer may cancel
    with pytest.raises(DelegationTokenError, match="Token not found"):
        service.verify(raw)
