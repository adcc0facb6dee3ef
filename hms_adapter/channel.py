"""The bytes of one connection, with the limits of ``serve``: requests are read without waiting for missing
bytes and handed out whole, none may be larger than the maximum message size, and answers must be taken
within the read timeout.

``Channel`` stands between a socket (plain or TLS, non-blocking) and the server: the selector thread calls
``receive`` when the socket has bytes, and a serving thread takes whole requests from ``requests`` and
decodes them from memory. The framed transport's frames and SASL's (unwrapped by its security layer) are
taken apart here; what they carry, or what the buffered transport sends, is one stream of messages, cut
into requests by the protocol's ``message_scan.MessageScanner``, which refuses a message that declares
more than it can hold before anything is decoded. A frame declaring more than the maximum is refused
before its bytes are read.
"""

from __future__ import annotations

import select
import socket
import ssl
import struct
import time
from collections import deque

from .message_scan import HostileMessage, MessageScanner, MessageTooLarge
from .sasl import SecurityLayer

RECEIVE_BYTES = 256 * 1024
"""Bytes read from a socket at once; a connection gets its turn again at its next readiness, so one client
sending a large request does not keep the selector thread from the others."""


class RequestTimeout(HostileMessage):
    """A request did not arrive whole within ``--read-timeout``."""


class Channel:
    """``receive`` and ``requests`` for the server, ``write``/``flush``/``sendall`` for Thrift's transports
    and SASL's answers."""

    def __init__(self, sock: socket.socket, read_timeout: float, scanner: MessageScanner, framed: bool) -> None:
        """``framed``: requests come in frames of a 4-byte length and their bytes (framed transport)."""
        self.sock = sock
        self.read_timeout = read_timeout
        self.max_message_size = scanner.max_message_size
        self.requests: deque[bytes] = deque()
        """Whole requests, in the order they came, for a serving thread to decode."""
        self.received = bytearray()
        """Bytes read and not taken apart yet: a frame or SASL message not whole yet."""
        self.started: float | None = None
        """When the first byte of the request (or frame, or SASL message) being received came."""
        self.raw = False
        """Whether received bytes are left in ``received`` for the SASL negotiation to take."""
        self._scanner = scanner
        self._framed = framed
        self._layer: SecurityLayer | None = None
        self._stream = bytearray()
        sock.setblocking(False)

    def frames(self, layer: SecurityLayer | None) -> None:
        """From now on requests come in SASL frames, unwrapped by ``layer`` (the negotiation is over); the
        bytes received already are taken apart as such."""
        self.raw, self._framed, self._layer = False, True, layer
        self._take()

    def receive(self) -> bool:
        """Read what the socket has without waiting, until a request is whole; False when the client closed.
        Raises ``HostileMessage`` for bytes that are not a request the server will decode."""
        taken = 0
        while (taken < RECEIVE_BYTES or self.pending()) and not self.requests:
            try:
                data = self.sock.recv(RECEIVE_BYTES)
            except (BlockingIOError, ssl.SSLWantReadError, ssl.SSLWantWriteError):
                return True
            if not data:
                return False
            if self.started is None:
                self.started = time.monotonic()
            taken += len(data)
            self.received += data
            if not self.raw:
                self._take()
        return True

    def pending(self) -> bool:
        """Whether TLS has decrypted bytes waiting that the socket will not signal again."""
        return isinstance(self.sock, ssl.SSLSocket) and self.sock.pending() > 0

    def expired(self, now: float) -> RequestTimeout | None:
        """The error of a request that started more than the read timeout ago and is still not whole."""
        if self.started is None or now - self.started <= self.read_timeout:
            return None
        return RequestTimeout(f"a request did not arrive within {self.read_timeout:g} s")

    def consumed(self) -> None:
        """The bytes that started a message were taken: the next one starts when more come."""
        self.started = time.monotonic() if self.received or self._stream else None

    def _take(self) -> None:
        """Received bytes to the stream of messages (unframed), and whole messages to ``requests``."""
        if self._framed:
            received = self.received
            while len(received) >= 4:
                length = struct.unpack_from(">i", received)[0]
                if length < 0 or length > self.max_message_size:
                    raise MessageTooLarge(
                        f"a request declared {length} bytes, over the maximum message size of {self.max_message_size}"
                    )
                if len(received) < 4 + length:
                    break
                frame = bytes(received[4 : 4 + length])
                del received[: 4 + length]
                self._stream += self._layer.unwrap(frame) if self._layer else frame
        else:
            self._stream += self.received
            self.received.clear()
        while self._stream:
            length = self._scanner.scan(self._stream)
            if length is None:
                break
            self.requests.append(bytes(self._stream[:length]))
            del self._stream[:length]
            self._scanner.reset()
        if self.requests:
            self.consumed()

    def sendall(self, data: bytes) -> None:
        """Send ``data`` whole; the client must take it within the read timeout (else ``ConnectionError``)."""
        view = memoryview(data)
        deadline = time.monotonic() + self.read_timeout
        while view:
            try:
                view = view[self.sock.send(view) :]
                continue
            except (BlockingIOError, ssl.SSLWantWriteError):
                wanted = select.POLLOUT
            except ssl.SSLWantReadError:
                wanted = select.POLLIN
            left = deadline - time.monotonic()
            poller = select.poll()
            poller.register(self.sock, wanted)
            if left <= 0 or not poller.poll(left * 1000):
                raise ConnectionError(f"the client took no answer for {self.read_timeout:g} s")

    def send(self, data: bytes) -> int:
        """One attempt to send ``data`` without waiting (a last word before closing); the bytes sent."""
        return self.sock.send(data)

    # -- Thrift's transport interface (answers) ----------------------------------------------------

    def write(self, data: bytes) -> None:
        self.sendall(data)

    def flush(self) -> None:
        """Nothing: ``write`` sends (Thrift's buffered transport writes a whole answer at once)."""

    def is_open(self) -> bool:
        return True

    def close(self) -> None:
        self.sock.close()
