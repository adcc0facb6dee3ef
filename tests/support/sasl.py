"""SASL for the tests' Apache Thrift clients (``thrift_sasl``): pure-sasl's client in the interface they call."""

from __future__ import annotations

from puresasl.client import SASLClient


class _SaslClient:
    """``pure-sasl``'s client in the interface ``thrift_sasl`` calls (that of the ``sasl`` package), as
    impyla adapts it."""

    def __init__(self, client: SASLClient) -> None:
        self.client = client

    def start(self, mechanism: str):
        return True, mechanism, self.client.process()

    def step(self, challenge: bytes):
        return True, self.client.process(challenge)

    def encode(self, data: bytes):
        return True, self.client.wrap(data)

    def decode(self, data: bytes):
        return True, self.client.unwrap(data)

    def getError(self):  # noqa: N802 (the interface's name)
        return self.client.get_error()
