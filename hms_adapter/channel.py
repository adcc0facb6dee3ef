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
import struct
import time

from thriftpy2.transport import TTransportException


class MessageTooLarge(TTransportException):
    """A request declared or sent more bytes than ``--max-message-size``."""


class RequestTimeout(TTransportException):
    """A request did not arrive whole within ``--read-timeout``."""


def _timeval(seconds: float) -> bytes:
    return struct.pack("ll", int(seconds), int((seconds % 1) * 1_000_000))


class Channel:
    """``recv``/``sendall`` for the SASL transport, ``read``/``write``/``flush`` for Thrift's transports.

    The socket stays in blocking mode, with the read timeout as the kernel's receive and send timeouts
    (``SO_RCVTIMEO``, ``SO_SNDTIMEO``), so a read costs one system call; a request's deadline is checked
    between reads. A request that stalls is dropped after the read timeout; one that trickles, at its next
    byte after the deadline (at most twice the read timeout from its start)."""

    def __init__(self, sock: socket.socket, read_timeout: float, max_message_size: int) -> None:
        self.sock = sock
        self.read_timeout = read_timeout
        self.max_message_size = max_message_size
        self._deadline: float | None = None
        self._received = 0
        sock.settimeout(None)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, _timeval(read_timeout))
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, _timeval(read_timeout))

    def begin_message(self) -> None:
        """A request starts: it has the read timeout from now, and the whole size budget."""
        self._deadline = time.monotonic() + self.read_timeout
        self._received = 0

    def settimeout(self, seconds: float | None) -> None:
        """What the SASL negotiation calls: a deadline for the reads until the next ``settimeout(None)``."""
        self._deadline = None if seconds is None else time.monotonic() + seconds
        self._received = 0

    def _timed_out(self) -> RequestTimeout:
        return RequestTimeout(message=f"a request did not arrive within {self.read_timeout:g} s")

    def recv(self, size: int) -> bytes:
        if size > self.max_message_size:
            raise MessageTooLarge(
                message=f"a request declared {size} bytes, over the maximum message size of {self.max_message_size}"
            )
        if self._deadline is not None and time.monotonic() > self._deadline:
            raise self._timed_out()
        try:
            data = self.sock.recv(min(size, 1 << 20))
        except (TimeoutError, BlockingIOError, ssl.SSLWantReadError) as error:  # SO_RCVTIMEO passed
            raise self._timed_out() from error
        self._received += len(data)
        if self._received > self.max_message_size:
            raise MessageTooLarge(message=f"a request of more than {self.max_message_size} bytes")
        return data

    def sendall(self, data: bytes) -> None:
        """An answer must be taken by the client within the read timeout too (``SO_SNDTIMEO``)."""
        try:
            self.sock.sendall(data)
        except (TimeoutError, BlockingIOError, ssl.SSLWantWriteError) as error:
            raise ConnectionError(f"the client took no answer for {self.read_timeout:g} s") from error

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
