"""The Thrift socket server: persistent connections served by a bounded pool of threads, graceful stop.

An idle connection holds no thread: it waits in a selector until its next request starts, and a pool of
``ServingLimits.threads`` threads serves requests as they arrive, so thousands of idle clients cost a
little memory each and slow nobody. ``ServingLimits`` bounds the rest of what clients can make the server
hold: connections beyond ``max_connections`` are closed at once, a connection idle for ``idle_timeout`` is
closed, a request that starts and does not arrive whole within ``read_timeout`` is dropped with its
connection, and one larger than ``max_message_size`` is refused (``channel.Channel``).

Transport and protocol are chosen as Hive Metastore offers them: buffered (default) or framed transport,
binary (default) or compact protocol. thriftpy2's Cython implementations are used where they exist.
"""

from __future__ import annotations

import logging
import select
import selectors
import socket
import ssl
import threading
import time
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from thriftpy2.protocol import TCompactProtocolFactory, TCyBinaryProtocolFactory
from thriftpy2.protocol.cybin import ProtocolError  # type: ignore[attr-defined]  # compiled: no names to check
from thriftpy2.protocol.exc import TProtocolException
from thriftpy2.transport import TCyBufferedTransportFactory, TCyFramedTransportFactory, TTransportException

from . import connection
from .channel import Channel, MessageTooLarge, RequestTimeout
from .sasl import MechanismFactories, SaslRefused, SaslServerTransport
from .tls import ServerTls

log = logging.getLogger(__name__)

TRANSPORTS = {"buffered": TCyBufferedTransportFactory, "framed": TCyFramedTransportFactory}
PROTOCOLS = {"binary": TCyBinaryProtocolFactory, "compact": TCompactProtocolFactory}
DEFAULT_PORT = 9083
DEFAULT_METASERVER_PORT = 9090
ACCEPT_POLL_SECONDS = 0.1
WATCH_POLL_SECONDS = 1.0
STOP_GRACE_SECONDS = 30.0
LINGER_MS = 5
"""How long a serving thread waits for a connection's next request before parking it: a client calling in a
loop (its next request a round trip away) stays on its thread, and an idle one holds it no longer."""
REFUSAL_LOG_INTERVAL_SECONDS = 10.0


@dataclass(frozen=True)
class ServingLimits:
    """What one server process lets its clients hold (``serve --max-connections`` and friends)."""

    max_connections: int = 8192
    idle_timeout: float = 3600.0
    """Seconds a connection may wait between requests; clients of Hive's (RetryingMetaStoreClient)
    reconnect when it was closed."""
    read_timeout: float = 60.0
    """Seconds a request has to arrive whole once it started (and an answer to be taken)."""
    max_message_size: int = 100 * 1024 * 1024
    """Bytes of one request, as libthrift's default ``TConfiguration`` maximum message size."""
    threads: int = 64
    """Requests served at once; the others wait for a thread."""


class _HandshakeFailed(Exception):
    """The TLS handshake of a new connection failed (not TLS, no client certificate, gone)."""


class _Connection:
    """One client connection: its socket, and once set up (TLS, SASL), its channel and protocols."""

    def __init__(self, sock: socket.socket, peer, state: connection.ConnectionState) -> None:
        self.sock = sock
        self.peer = f"{peer[0]}:{peer[1]}"
        self.state = state
        self.channel: Channel | None = None
        self.sasl: SaslServerTransport | None = None
        self.iprot = self.oprot = None
        self.last_active = time.monotonic()

    def buffered(self) -> bool:
        """Whether bytes of a next request were read already (the selector would not report them)."""
        return (self.channel is not None and self.channel.pending()) or (self.sasl is not None and self.sasl.buffered())


def _readable_within(sock: socket.socket, milliseconds: int) -> bool:
    """Whether ``sock`` has bytes (or its end) to read within ``milliseconds``."""
    poller = select.poll()
    poller.register(sock, select.POLLIN)
    return bool(poller.poll(milliseconds))


class ThriftServer:
    """Serves one processor on a TCP port until ``stop()``."""

    def __init__(
        self,
        processor,
        host: str = "0.0.0.0",
        port: int = DEFAULT_PORT,
        transport: str = "buffered",
        protocol: str = "binary",
        reuse_port: bool = False,
        name: str = "Hive Metastore",
        tls: ServerTls | None = None,
        sasl: MechanismFactories | None = None,
        limits: ServingLimits = ServingLimits(),
    ) -> None:
        """``tls``: serve TLS only (the handshake is done by a serving thread); ``sasl``: every connection
        authenticates first with one of these SASL mechanisms, and its messages are SASL frames."""
        self.processor = processor
        self.name = name
        self.tls = tls
        self.sasl = sasl
        self.host = host
        self.limits = limits
        self.transport_factory = TRANSPORTS[transport]()
        self.protocol_factory = PROTOCOLS[protocol]()
        self._stopping = threading.Event()
        self._connections: set[_Connection] = set()
        self._lock = threading.Lock()
        self._parked: deque[_Connection] = deque()
        self._selector = selectors.DefaultSelector()
        self._wake_read, self._wake_write = socket.socketpair()
        self._wake_read.setblocking(False)
        self._wake_write.setblocking(False)  # a full pipe means a wake-up is pending: never block a sender
        self._selector.register(self._wake_read, selectors.EVENT_READ, None)
        self._pool = ThreadPoolExecutor(max_workers=limits.threads, thread_name_prefix="hms")
        self._refused, self._refusal_logged = 0, 0.0
        self._listener = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if reuse_port:
            self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        self._listener.bind((host, port))
        self._listener.listen(1024)
        self._listener.settimeout(ACCEPT_POLL_SECONDS)
        self.port = self._listener.getsockname()[1]

    @property
    def open_connections(self) -> int:
        with self._lock:
            return len(self._connections)

    def serve_forever(self) -> None:
        log.info("serving the %s protocol on %s:%d%s", self.name, self.host, self.port, " over TLS" if self.tls else "")
        watcher = threading.Thread(target=self._watch, name=f"{self.name}-connections", daemon=True)
        watcher.start()
        while not self._stopping.is_set():
            try:
                sock, peer = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                if self._stopping.is_set():
                    break
                raise
            self._admit(sock, peer)
        self._listener.close()
        self._wake()
        watcher.join(STOP_GRACE_SECONDS)
        self._pool.shutdown(wait=True)
        log.info("stopped")

    def _admit(self, sock: socket.socket, peer) -> None:
        """A new connection waits for its first bytes, unless the server holds its maximum already."""
        with self._lock:
            full = len(self._connections) >= self.limits.max_connections
            if not full:
                conn = _Connection(sock, peer, connection.ConnectionState(f"{peer[0]}:{peer[1]}"))
                self._connections.add(conn)
        if full:  # logged at most every few seconds, with how many were refused since
            self._refused += 1
            now = time.monotonic()
            if now - self._refusal_logged >= REFUSAL_LOG_INTERVAL_SECONDS:
                log.warning(
                    "%d connections open, the maximum (--max-connections): closed %d new ones, the latest from %s:%s",
                    self.limits.max_connections,
                    self._refused,
                    peer[0],
                    peer[1],
                )
                self._refused, self._refusal_logged = 0, now
            sock.close()
            return
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._park(conn)

    # -- idle connections ---------------------------------------------------------------------------

    def _park(self, conn: _Connection) -> None:
        """Hand a connection between requests to the watcher."""
        conn.last_active = time.monotonic()
        self._parked.append(conn)
        self._wake()

    def _wake(self) -> None:
        try:
            self._wake_write.send(b"x")
        except (BlockingIOError, OSError):
            pass  # a wake-up is pending already, or the server is stopping

    def _watch(self) -> None:
        """Waits for parked connections' next requests and hands them to the pool; closes idle ones."""
        swept = time.monotonic()
        while not self._stopping.is_set():
            while self._parked:
                conn = self._parked.popleft()
                try:
                    self._selector.register(conn.sock, selectors.EVENT_READ, conn)
                except (ValueError, OSError):  # closed meanwhile
                    self._close(conn)
            for key, _events in self._selector.select(WATCH_POLL_SECONDS):
                if key.data is None:
                    try:
                        self._wake_read.recv(4096)
                    except BlockingIOError:
                        pass
                    continue
                self._selector.unregister(key.fileobj)
                try:
                    self._pool.submit(self._serve_ready, key.data)
                except RuntimeError:  # the pool is shut down: the server is stopping
                    self._close(key.data)
            now = time.monotonic()
            if now - swept >= WATCH_POLL_SECONDS:
                swept = now
                self._close_idle(now)
        for key in list(self._selector.get_map().values()):
            if key.data is not None:
                self._selector.unregister(key.fileobj)
                self._close(key.data)
        while self._parked:
            self._close(self._parked.popleft())

    def _close_idle(self, now: float) -> None:
        idle = [
            key
            for key in self._selector.get_map().values()
            if key.data is not None and now - key.data.last_active > self.limits.idle_timeout
        ]
        for key in idle:
            self._selector.unregister(key.fileobj)
            log.info(
                "closing connection from %s idle for %.0f s (--idle-timeout)", key.data.peer, now - key.data.last_active
            )
            self._close(key.data)

    def _close(self, conn: _Connection) -> None:
        with self._lock:
            self._connections.discard(conn)
        try:
            conn.sock.close()
        except OSError:
            pass

    # -- serving ------------------------------------------------------------------------------------

    def _serve_ready(self, conn: _Connection) -> None:
        """Serve the requests a connection has ready (setting it up first if new), then park it again."""
        connection.attach(conn.state)
        try:
            if conn.iprot is None and self._set_up(conn) and not conn.buffered():
                self._park(conn)  # negotiated: its first request is still to come
                return
            channel = conn.channel
            if channel is None:
                raise RuntimeError(f"connection from {conn.peer} has no channel after its set-up")
            while True:
                channel.begin_message()
                answered = self.processor.process(conn.iprot, conn.oprot)
                if self._stopping.is_set():
                    self._close(conn)
                    return
                # after a one-way call the client may have sent its next request with it
                if answered and not conn.buffered() and not _readable_within(conn.sock, LINGER_MS):
                    break
            self._park(conn)
        except (MessageTooLarge, RequestTimeout) as error:
            log.warning("closing connection from %s: %s", conn.peer, error.message)
            self._close(conn)
        except _HandshakeFailed as error:
            log.warning("TLS handshake with %s failed: %s", conn.peer, error)
            self._close(conn)
        except SaslRefused as error:
            log.warning("authentication of %s failed: %s", conn.peer, error)
            self._close(conn)
        except (TTransportException, ConnectionError, OSError):
            self._close(conn)  # the client went away
        except (ProtocolError, TProtocolException, SystemError) as error:
            # not a Thrift message (thriftpy2's reader raises SystemError on negative lengths): no traceback
            log.warning("closing connection from %s: not a valid Thrift message: %s", conn.peer, error)
            self._close(conn)
        except MemoryError as error:  # thriftpy2 could not allocate the buffer for a declared length
            log.warning("closing connection from %s: a request declared more than can be read: %s", conn.peer, error)
            self._close(conn)
        except Exception:  # a malformed message: drop this connection, keep serving the others
            log.exception("closing connection from %s after a protocol error", conn.peer)
            self._close(conn)

    def _set_up(self, conn: _Connection) -> bool:
        """TLS handshake and SASL negotiation, bounded by the read timeout; then the connection's protocols.
        Whether it negotiated (TLS or SASL took the bytes that woke it)."""
        log.debug("connection from %s", conn.peer)
        if self.tls is not None:
            conn.sock.settimeout(self.limits.read_timeout)
            try:
                conn.sock = self.tls.wrap(conn.sock)
            except (ssl.SSLError, OSError) as error:  # not TLS, no client certificate, gone: this one only
                raise _HandshakeFailed(str(error)) from error
        conn.channel = Channel(conn.sock, self.limits.read_timeout, self.limits.max_message_size)
        stream: Channel | SaslServerTransport = conn.channel
        transport_factory = self.transport_factory
        if self.sasl is not None:  # SASL frames the messages itself: a buffer over them, no other framing
            conn.sasl = stream = SaslServerTransport(conn.channel)
            transport_factory = TCyBufferedTransportFactory()
            try:
                mechanism = conn.sasl.authenticate(self.sasl)
            except OSError as error:
                raise SaslRefused(f"authentication broken off: {error}") from error
            if mechanism.principal is None or mechanism.user is None:
                raise SaslRefused(f"the {mechanism.method} negotiation completed without naming who authenticated")
            connection.authenticated(mechanism.principal, mechanism.user, mechanism.method)
        conn.iprot = self.protocol_factory.get_protocol(transport_factory.get_transport(stream))
        conn.oprot = self.protocol_factory.get_protocol(transport_factory.get_transport(stream))
        return self.tls is not None or self.sasl is not None

    def stop(self) -> None:
        """Stop accepting; idle connections are closed, the others after the call each one is running."""
        self._stopping.set()
        self._wake()
