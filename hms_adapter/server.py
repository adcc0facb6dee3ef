"""The Thrift socket server: persistent connections served by a bounded pool of threads, graceful stop.

No thread waits for a client's bytes. Connections wait in a selector, whose thread reads what each one
sends without blocking (the TLS handshake too) until a request is whole (``channel.Channel``, cut into
messages by ``message_scan``); only then does one of the pool's ``ServingLimits.threads`` threads decode
and answer it. A SASL negotiation goes the same way, a message at a time. So thousands of idle clients cost
a little memory each, and clients that send half a request, or one byte of a negotiation, hold their own
connection only: other clients are served as before. ``ServingLimits`` bounds the rest of what clients can
make the server hold: connections beyond ``max_connections`` are closed at once, a connection idle for
``idle_timeout`` is closed, a request that starts and does not arrive whole within ``read_timeout`` is
dropped with its connection, one larger than ``max_message_size``, or declaring more than it can hold, is
refused before it is decoded, and a negotiation not finished ``NEGOTIATION_TIMEOUT_SECONDS`` after the
connection was made is dropped. ``accept`` failing (out of descriptors, say) is waited out, never fatal.

Transport and protocol are chosen as Hive Metastore offers them: buffered (default) or framed transport,
binary (default) or compact protocol. thriftpy2's Cython implementations are used where they exist.
"""

from __future__ import annotations

import enum
import errno
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
from thriftpy2.transport import (
    TCyBufferedTransportFactory,
    TCyFramedTransportFactory,
    TCyMemoryBuffer,
    TTransportException,
)

from . import connection
from .channel import Channel
from .message_scan import SCANNERS, HostileMessage
from .sasl import NEGOTIATION_TIMEOUT_SECONDS, MechanismFactories, SaslRefused, SaslServerTransport
from .tls import HANDSHAKE_TIMEOUT_SECONDS, ServerTls

log = logging.getLogger(__name__)

TRANSPORTS = {"buffered": TCyBufferedTransportFactory, "framed": TCyFramedTransportFactory}
"""The transports answers are written with (requests are taken apart by ``channel.Channel``)."""
PROTOCOLS = {"binary": TCyBinaryProtocolFactory, "compact": TCompactProtocolFactory}
DEFAULT_PORT = 9083
DEFAULT_METASERVER_PORT = 9090
ACCEPT_POLL_SECONDS = 0.1
SWEEP_SECONDS = 0.5
"""How often the selector thread looks for connections past their time limits."""
LINGER_MS = 5
"""How long a serving thread waits for a connection's next request before parking it: a client calling in a
loop (its next request a round trip away) stays on its thread, and an idle one holds it no longer."""
REFUSAL_LOG_INTERVAL_SECONDS = 10.0
ACCEPT_RESOURCE_ERRORS = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM})
"""``accept`` failures that last while the server holds what it holds: waited out, with a back-off."""
ACCEPT_BACKOFF_SECONDS = 0.05
MAX_ACCEPT_BACKOFF_SECONDS = 1.0
ACCEPT_ERROR_LOG_INTERVAL_SECONDS = 5.0


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
    graceful_timeout: float = 25.0
    """Seconds a stop waits for the calls under way (``serve --graceful-timeout``): inside the 30 s that
    Kubernetes, by default, gives a pod between SIGTERM and SIGKILL."""


class _HandshakeFailed(Exception):
    """The TLS handshake of a new connection failed (not TLS, no client certificate, gone)."""


class _Phase(enum.Enum):
    """Where a connection is: its TLS handshake, its SASL negotiation, or its requests."""

    HANDSHAKE = "handshake"
    NEGOTIATION = "negotiation"
    REQUESTS = "requests"


class _Connection:
    """One client connection: its socket, its channel once TLS is set up, and its SASL negotiation."""

    def __init__(self, sock: socket.socket, peer, state: connection.ConnectionState) -> None:
        self.sock = sock
        self.peer = f"{peer[0]}:{peer[1]}"
        self.state = state
        self.phase = _Phase.REQUESTS
        self.channel: Channel | None = None
        self.sasl: SaslServerTransport | None = None
        self.negotiation: tuple[int, bytes] | None = None
        """The SASL negotiation message read whole and not answered yet."""
        self.oprot = None
        self.interest = selectors.EVENT_READ
        self.accepted = self.last_active = time.monotonic()

    def channel_of(self) -> Channel:
        if self.channel is None:
            raise RuntimeError(f"connection from {self.peer} has no channel after its set-up")
        return self.channel


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
        """``tls``: serve TLS only; ``sasl``: every connection authenticates first with one of these SASL
        mechanisms, and its messages are SASL frames."""
        self.processor = processor
        self.name = name
        self.tls = tls
        self.sasl = sasl
        self.host = host
        self.limits = limits
        self.framed = transport == "framed"
        self.transport_factory = TRANSPORTS[transport]()
        self.protocol_factory = PROTOCOLS[protocol]()
        self.scanner = SCANNERS[protocol]
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
        self._serving = 0
        """Connections a pool thread is serving now."""
        self._served = threading.Condition(self._lock)
        self.drained = True
        """False once a stop gave up waiting for calls under way (``graceful_timeout``)."""
        self._refused, self._refusal_logged = 0, 0.0
        self._accept_errors, self._accept_error_logged = 0, 0.0
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
        log.info(
            "serving the %s protocol on %s:%d%s (at most %d connections)",
            self.name,
            self.host,
            self.port,
            " over TLS" if self.tls else "",
            self.limits.max_connections,
        )
        watcher = threading.Thread(target=self._watch, name=f"{self.name}-connections", daemon=True)
        watcher.start()
        backoff = ACCEPT_BACKOFF_SECONDS
        while not self._stopping.is_set():
            try:
                sock, peer = self._listener.accept()
            except TimeoutError:
                continue
            except OSError as error:
                if self._stopping.is_set():
                    break
                self._accept_failed(error, backoff)
                backoff = min(backoff * 2, MAX_ACCEPT_BACKOFF_SECONDS)
                continue
            backoff = ACCEPT_BACKOFF_SECONDS
            self._admit(sock, peer)
        self._listener.close()
        self._wake()
        self._drain(time.monotonic() + self.limits.graceful_timeout, watcher)

    def _drain(self, deadline: float, watcher: threading.Thread) -> None:
        """Let the calls under way finish until ``deadline``; requests not started are dropped with their
        connections (a client retries them elsewhere, nothing of them ran). Past the deadline the calls still
        running are left to the process's exit (``drained`` False), which rolls back their transactions."""
        watcher.join(max(0.0, deadline - time.monotonic()))
        self._pool.shutdown(wait=False, cancel_futures=True)
        with self._served:
            self.drained = self._served.wait_for(lambda: self._serving == 0, max(0.0, deadline - time.monotonic()))
            running = self._serving
            left = list(self._connections)
        for conn in left:  # connections whose turn was cancelled, and those of calls still running
            self._close(conn)
        if self.drained:
            log.info("stopped")
        else:
            log.warning(
                "stopped with %d calls still running after %g s (--graceful-timeout): their transactions roll "
                "back as the process exits",
                running,
                self.limits.graceful_timeout,
            )

    def _accept_failed(self, error: OSError, backoff: float) -> None:
        """``accept`` failed: out of descriptors or memory (``EMFILE``, ``ENFILE``, ``ENOBUFS``, ``ENOMEM``), or
        a connection gone before it was taken. Never fatal: the waiting connections stay in the backlog while
        this thread waits ``backoff`` seconds; logged at most every ``ACCEPT_ERROR_LOG_INTERVAL_SECONDS``."""
        self._accept_errors += 1
        now = time.monotonic()
        if (
            error.errno in ACCEPT_RESOURCE_ERRORS
            and now - self._accept_error_logged >= ACCEPT_ERROR_LOG_INTERVAL_SECONDS
        ):
            log.warning(
                "cannot accept connections: %s (%d failures since the last message; %d connections open): "
                "waiting %.2f s before the next try",
                error.strerror or error,
                self._accept_errors,
                self.open_connections,
                backoff,
            )
            self._accept_errors, self._accept_error_logged = 0, now
        self._stopping.wait(backoff if error.errno in ACCEPT_RESOURCE_ERRORS else 0)

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
        try:
            sock.setblocking(False)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if self.tls is not None:  # the handshake is read like a request, without waiting for bytes
                conn.sock = self.tls.context().wrap_socket(sock, server_side=True, do_handshake_on_connect=False)
                conn.phase = _Phase.HANDSHAKE
            else:
                self._open(conn)
        except OSError:  # gone already
            self._close(conn)
            return
        self._park(conn)

    def _open(self, conn: _Connection) -> None:
        """The connection's channel and answering protocol, once TLS is set up; SASL's negotiation next."""
        conn.channel = Channel(
            conn.sock, self.limits.read_timeout, self.scanner(self.limits.max_message_size), self.framed
        )
        stream: Channel | SaslServerTransport = conn.channel
        transport_factory = self.transport_factory
        if self.sasl is not None:  # SASL frames the messages itself: a buffer over them, no other framing
            conn.sasl = stream = SaslServerTransport(conn.channel, self.sasl)
            conn.channel.raw = True
            conn.phase = _Phase.NEGOTIATION
            transport_factory = TCyBufferedTransportFactory()
        else:
            conn.phase = _Phase.REQUESTS
        conn.oprot = self.protocol_factory.get_protocol(transport_factory.get_transport(stream))

    # -- reading: the selector thread --------------------------------------------------------------

    def _park(self, conn: _Connection) -> None:
        """Hand a connection waiting for bytes to the watcher."""
        conn.last_active = time.monotonic()
        self._parked.append(conn)
        self._wake()

    def _wake(self) -> None:
        try:
            self._wake_write.send(b"x")
        except (BlockingIOError, OSError):
            pass  # a wake-up is pending already, or the server is stopping

    def _watch(self) -> None:
        """Reads what parked connections send, without waiting for missing bytes, and hands whole requests
        to the pool; closes connections idle, or sending too slowly, past their limits."""
        swept = time.monotonic()
        while not self._stopping.is_set():
            while self._parked:
                conn = self._parked.popleft()
                try:
                    self._selector.register(conn.sock, conn.interest, conn)
                except (ValueError, OSError):  # closed meanwhile
                    self._close(conn)
            for key, _events in self._selector.select(SWEEP_SECONDS):
                if key.data is None:
                    try:
                        self._wake_read.recv(4096)
                    except BlockingIOError:
                        pass
                    continue
                self._on_ready(key.data)
            now = time.monotonic()
            if now - swept >= SWEEP_SECONDS:
                swept = now
                self._close_expired(now)
        for key in list(self._selector.get_map().values()):
            if key.data is not None:
                self._selector.unregister(key.fileobj)
                self._close(key.data)
        while self._parked:
            self._close(self._parked.popleft())

    def _on_ready(self, conn: _Connection) -> None:
        """The socket of a parked connection is ready: move its handshake on, read what came, and hand it to
        the pool once a request (or a negotiation message) is whole."""
        try:
            if conn.phase is _Phase.HANDSHAKE and not self._handshake(conn):
                return
            if not conn.channel_of().receive():
                self._unregister(conn)
                self._close(conn)
                return
            if not self._has_work(conn):
                return
        except Exception as error:  # noqa: BLE001  # each refusal is logged by _refused, never raised here
            self._unregister(conn)
            self._refused_connection(conn, error)
            return
        self._unregister(conn)
        try:
            self._pool.submit(self._counted, conn)
        except RuntimeError:  # the pool is shut down: the server is stopping
            self._close(conn)

    def _handshake(self, conn: _Connection) -> bool:
        """One step of the TLS handshake; whether it is done (then the connection has its channel)."""
        try:
            conn.sock.do_handshake()  # type: ignore[attr-defined]  # an SSLSocket in this phase
        except (ssl.SSLWantReadError, ssl.SSLWantWriteError) as wanting:
            interest = selectors.EVENT_WRITE if isinstance(wanting, ssl.SSLWantWriteError) else selectors.EVENT_READ
            if interest != conn.interest:
                conn.interest = interest
                self._selector.modify(conn.sock, interest, conn)
            return False
        except (ssl.SSLError, OSError) as error:  # not TLS, no client certificate, gone: this one only
            raise _HandshakeFailed(str(error)) from error
        if conn.interest != selectors.EVENT_READ:
            conn.interest = selectors.EVENT_READ
            self._selector.modify(conn.sock, conn.interest, conn)
        self._open(conn)
        return True

    def _has_work(self, conn: _Connection) -> bool:
        """Whether a request, or a negotiation message, was read whole."""
        channel = conn.channel_of()
        if conn.phase is _Phase.NEGOTIATION and conn.negotiation is None and conn.sasl is not None:
            conn.negotiation = conn.sasl.take_message(channel.received)
            if conn.negotiation is not None:
                channel.consumed()
        return bool(channel.requests) or conn.negotiation is not None

    def _unregister(self, conn: _Connection) -> None:
        try:
            self._selector.unregister(conn.sock)
        except (KeyError, ValueError):
            pass

    def _close_expired(self, now: float) -> None:
        """Close the connections past their limits: a handshake or negotiation not finished in time, a
        request not whole within the read timeout, no request within the idle timeout."""
        for key in list(self._selector.get_map().values()):
            conn = key.data
            if conn is None:
                continue
            error = self._expired(conn, now)
            if error is None and conn.channel is not None and conn.channel.started is None:
                if now - conn.last_active > self.limits.idle_timeout:
                    self._selector.unregister(key.fileobj)
                    log.info(
                        "closing connection from %s idle for %.0f s (--idle-timeout)", conn.peer, now - conn.last_active
                    )
                    self._close(conn)
                continue
            if error is not None:
                self._selector.unregister(key.fileobj)
                self._refused_connection(conn, error)

    def _expired(self, conn: _Connection, now: float) -> Exception | None:
        if conn.phase is _Phase.HANDSHAKE and now - conn.accepted > HANDSHAKE_TIMEOUT_SECONDS:
            return _HandshakeFailed(f"not finished within {HANDSHAKE_TIMEOUT_SECONDS:g} s")
        if conn.phase is _Phase.NEGOTIATION and now - conn.accepted > NEGOTIATION_TIMEOUT_SECONDS:
            return SaslRefused(f"the negotiation did not finish within {NEGOTIATION_TIMEOUT_SECONDS:g} s")
        return None if conn.channel is None else conn.channel.expired(now)

    def _refused_connection(self, conn: _Connection, error: Exception) -> None:
        """Close a connection for what its client did (or failed to do), with one line in the log and never a
        traceback; other errors are the server's own, logged with theirs."""
        if isinstance(error, HostileMessage):
            log.warning("closing connection from %s: %s", conn.peer, error)
        elif isinstance(error, _HandshakeFailed):
            log.warning("TLS handshake with %s failed: %s", conn.peer, error)
        elif isinstance(error, SaslRefused):
            log.warning("authentication of %s failed: %s", conn.peer, error)
        elif isinstance(error, (ProtocolError, TProtocolException, SystemError)):
            # not a Thrift message the decoder takes (thriftpy2's reader raises SystemError on some)
            log.warning("closing connection from %s: not a valid Thrift message: %s", conn.peer, error)
        elif isinstance(error, MemoryError):
            log.warning("closing connection from %s: a request needed more memory than there is: %s", conn.peer, error)
        elif not isinstance(error, (TTransportException, ConnectionError, OSError)):  # else: the client went away
            log.error("closing connection from %s after an error", conn.peer, exc_info=error)
        self._close(conn)

    def _close(self, conn: _Connection) -> None:
        with self._lock:
            self._connections.discard(conn)
        try:
            conn.sock.close()
        except OSError:
            pass

    # -- serving: the pool's threads ---------------------------------------------------------------

    def _counted(self, conn: _Connection) -> None:
        """``_serve``, counted for the stop to wait on."""
        with self._served:
            self._serving += 1
        try:
            self._serve(conn)
        finally:
            with self._served:
                self._serving -= 1
                self._served.notify_all()

    def _serve(self, conn: _Connection) -> None:
        """Answer what a connection sent whole (a negotiation step, requests), and what follows at once from a
        client calling in a loop; then park it again."""
        connection.attach(conn.state)
        try:
            channel = conn.channel_of()
            while True:
                if conn.negotiation is not None:
                    self._negotiate(conn)
                while channel.requests and not self._stopping.is_set():
                    iprot = self.protocol_factory.get_protocol(TCyMemoryBuffer(channel.requests.popleft()))
                    self.processor.process(iprot, conn.oprot)
                if self._stopping.is_set():
                    self._close(conn)
                    return
                if not channel.pending() and not _readable_within(conn.sock, LINGER_MS):
                    break
                if not channel.receive():
                    self._close(conn)
                    return
                if not self._has_work(conn):
                    break
        except Exception as error:  # noqa: BLE001  # logged by _refused_connection, by kind
            self._refused_connection(conn, error)
            return
        self._park(conn)

    def _negotiate(self, conn: _Connection) -> None:
        """Answer the negotiation messages read whole; once complete, the connection's requests come in SASL
        frames."""
        sasl, channel = conn.sasl, conn.channel_of()
        while conn.negotiation is not None and sasl is not None:
            status, payload = conn.negotiation
            conn.negotiation = None
            if not sasl.negotiate(status, payload):
                self._has_work(conn)  # its next message may be here already
                continue
            mechanism = sasl.mechanism
            if mechanism is None or mechanism.principal is None or mechanism.user is None:
                raise SaslRefused("the negotiation completed without naming who authenticated")
            connection.authenticated(mechanism.principal, mechanism.user, mechanism.method, mechanism.groups)
            conn.phase = _Phase.REQUESTS
            channel.frames(sasl.layer)

    def stop(self) -> None:
        """Stop accepting; idle connections are closed, the others after the call each one is running."""
        self._stopping.set()
        self._wake()
