"""The byte stream of one connection, with the limits of ``serve``: a request must arrive whole within the
read timeout, and none may be larger than the maximum message size.

``Channel`` stands between a socket (plain or TLS) and Thrift's transports, or the SASL transport: it is
what they read from and write to. Thrift's buffered transport grows its buffer to a length a message
declares before it reads that many bytes; asked for more than the limit, the channel refuses before any of
those bytes is read.
"""

from __future__ import annotations

import socket
import ssl
import time

from thriftpy2.transport import TTransportException


class MessageTooLarge(TTransportException):
    """A request declared or sent more bytes than ``--max-message-size``."""


class RequestTimeout(TTransportException):
    """A request did not arrive whole within ``--read-timeout``."""


class Channel:
    """``recv``/``sendall`` for the SASL transport, ``read``/``write``/``flush`` for Thrift's transports."""

    def __init__(self, sock: socket.socket, read_timeout: float, max_message_size: int) -> None:
        self.sock = sock
        self.read_timeout = read_timeout
        self.max_message_size = max_message_size
        self._deadline: float | None = None
        self._received = 0

    def begin_message(self) -> None:
        """A request starts: it has the read timeout from now, and the whole size budget."""
        self._deadline = time.monotonic() + self.read_timeout
        self._received = 0

    def settimeout(self, seconds: float | None) -> None:
        """What the SASL negotiation calls: a deadline for the reads until the next ``settimeout(None)``."""
        self._deadline = None if seconds is None else time.monotonic() + seconds
        self._received = 0

    def recv(self, size: int) -> bytes:
        if size > self.max_message_size:
            raise MessageTooLarge(message=f"a request declared {size} bytes, over the maximum message size of "
                                          f"{self.max_message_size}")
        if self._deadline is not None:
            remaining = self._deadline - time.monotonic()
            if remaining <= 0:
                raise RequestTimeout(message=f"a request did not arrive within {self.read_timeout:g} s")
            self.sock.settimeout(remaining)
        try:
            data = self.sock.recv(min(size, 1 << 20))
        except socket.timeout as error:
            raise RequestTimeout(message=f"a request did not arrive within {self.read_timeout:g} s") from error
        self._received += len(data)
        if self._received > self.max_message_size:
            raise MessageTooLarge(message=f"a request of more than {self.max_message_size} bytes")
        return data

    def sendall(self, data: bytes) -> None:
        """An answer must be taken by the client within the read timeout too."""
        self.sock.settimeout(self.read_timeout)
        self.sock.sendall(data)

    # -- Thrift's transport interface --------------------------------------------------------------

    read = recv

    def write(self, data: bytes) -> None:
        self.sendall(data)

    def flush(self) -> None:
        """Nothing: ``write`` sends (Thrift's buffered transport writes a whole answer at once)."""

    def is_open(self) -> bool:
        return True

    def pending(self) -> bool:
        """Whether TLS has decrypted bytes waiting that the socket will not signal again."""
        return isinstance(self.sock, ssl.SSLSocket) and self.sock.pending() > 0

    def close(self) -> None:
        self.sock.close()
