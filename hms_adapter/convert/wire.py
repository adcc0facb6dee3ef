"""Answers sent as ready-made binary-protocol bytes (spliced from cached encodings) instead of thriftpy2
structs; ``hms_adapter.processor`` sends them."""

from __future__ import annotations

from thriftpy2.protocol import TBinaryProtocol, TCyBinaryProtocol


def speaks_binary(protocol) -> bool:
    """Whether a reply in ``protocol`` can splice binary-protocol encodings."""
    return isinstance(protocol, (TCyBinaryProtocol, TBinaryProtocol))


class EncodedAnswer:
    """An answer whose binary-protocol form is assembled from bytes."""

    def result_struct(self) -> bytes:
        """The whole ``<method>_result`` struct with this answer as its ``success`` field (id 0)."""
        raise NotImplementedError

    def to_thrift(self):
        """The answer as thriftpy2 structs, for replies in protocols other than binary."""
        raise NotImplementedError
