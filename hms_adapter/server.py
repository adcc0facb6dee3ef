"""The Thrift socket server: one thread per connection, persistent connections, graceful stop.

Transport and protocol are chosen as Hive Metastore offers them: buffered (default) or framed transport,
binary (default) or compact protocol. thriftpy2's Cython implementations are used where they exist.
"""

from __future__ import annotations

import logging
import socket
import ssl
import threading
import time

from thriftpy2.protocol import TCompactProtocolFactory, TCyBinaryProtocolFactory
from thriftpy2.transport import TCyBufferedTransportFactory, TCyFramedTransportFactory, TTransportException
from thriftpy2.transport.socket import TSocket

from . import connection
from .sasl import MechanismFactories, SaslRefused, SaslServerTransport
from .tls import ServerTls

log = logging.getLogger(__name__)

TRANSPORTS = {"buffered": TCyBufferedTransportFactory, "framed": TCyFramedTransportFactory}
PROTOCOLS = {"binary": TCyBinaryProtocolFactory, "compact": TCompactProtocolFactory}
DEFAULT_PORT = 9083
DEFAULT_METASERVER_PORT = 9090
ACCEPT_POLL_SECONDS = 0.1
STOP_GRACE_SECONDS = 30.0


class ThriftServer:
    """Serves one processor on a TCP port until ``stop()``."""

    def __init__(self, processor, host: str = "0.0.0.0", port: int = DEFAULT_PORT,
                 transport: str = "buffered", protocol: str = "binary", reuse_port: bool = False,
                 name: str = "Hive Metastore", tls: ServerTls | None = None,
                 sasl: MechanismFactories | None = None) -> None:
        """``tls``: serve TLS only (the handshake is done in each connection's thread); ``sasl``: every
        connection authenticates first with one of these SASL mechanisms, and its messages are SASL frames."""
        self.processor = processor
        self.name = name
        self.tls = tls
        self.sasl = sasl
        self.host = host
        self.transport_factory = TRANSPORTS[transport]()
        self.protocol_factory = PROTOCOLS[protocol]()
        self._stopping = threading.Event()
        self._connections: set[socket.socket] = set()
        self._threads: list[threading.Thread] = []
        self._lock = threading.Lock()
        self._listener = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if reuse_port:
            self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        self._listener.bind((host, port))
        self._listener.listen(128)
        self._listener.settimeout(ACCEPT_POLL_SECONDS)
        self.port = self._listener.getsockname()[1]

    def serve_forever(self) -> None:
        log.info("serving the %s protocol on %s:%d%s", self.name, self.host, self.port,
                 " over TLS" if self.tls else "")
        while not self._stopping.is_set():
            try:
                conn, peer = self._listener.accept()
            except socket.timeout:
                continue
            except OSError:
                if self._stopping.is_set():
                    break
                raise
            conn.settimeout(None)
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            with self._lock:
                self._connections.add(conn)
            thread = threading.Thread(target=self._serve_connection, args=(conn, peer), daemon=True,
                                      name=f"hms-{peer[0]}:{peer[1]}")
            thread.start()
            self._threads = [t for t in self._threads if t.is_alive()] + [thread]
        self._listener.close()
        deadline = time.monotonic() + STOP_GRACE_SECONDS
        for thread in self._threads:
            thread.join(max(0.0, deadline - time.monotonic()))
        log.info("stopped")

    def _serve_connection(self, conn: socket.socket, peer) -> None:
        log.debug("connection from %s:%s", peer[0], peer[1])
        connection.start(f"{peer[0]}:{peer[1]}")
        if self.tls is not None:
            try:
                tls_conn = self.tls.wrap(conn)
            except (ssl.SSLError, OSError) as error:  # not TLS, no client certificate, gone: this one only
                log.warning("TLS handshake with %s:%s failed: %s", peer[0], peer[1], error)
                with self._lock:
                    self._connections.discard(conn)
                conn.close()
                return
            with self._lock:
                self._connections.discard(conn)
                self._connections.add(tls_conn)
            conn = tls_conn
        client, transport_factory = TSocket(sock=conn), self.transport_factory
        if self.sasl is not None:  # SASL frames the messages itself: a buffer over them, no other framing
            client, transport_factory = SaslServerTransport(conn), TCyBufferedTransportFactory()
            try:
                mechanism = client.authenticate(self.sasl)
                connection.authenticated(mechanism.principal, mechanism.user, mechanism.method)
            except (SaslRefused, OSError) as error:
                log.warning("authentication of %s:%s failed: %s", peer[0], peer[1], error)
                with self._lock:
                    self._connections.discard(conn)
                conn.close()
                return
        itrans = transport_factory.get_transport(client)
        otrans = transport_factory.get_transport(client)
        iprot = self.protocol_factory.get_protocol(itrans)
        oprot = self.protocol_factory.get_protocol(otrans)
        try:
            while not self._stopping.is_set():
                self.processor.process(iprot, oprot)
        except (TTransportException, ConnectionError, OSError):
            pass  # the client went away
        except Exception:  # a malformed message: drop this connection, keep serving the others
            log.exception("closing connection from %s:%s after a protocol error", peer[0], peer[1])
        finally:
            with self._lock:
                self._connections.discard(conn)
            itrans.close()
            otrans.close()
            log.debug("connection from %s:%s closed", peer[0], peer[1])

    def stop(self) -> None:
        """Stop accepting; connections end after the call each one is running."""
        self._stopping.set()
        with self._lock:
            for conn in list(self._connections):
                try:
                    conn.shutdown(socket.SHUT_RD)
                except OSError:
                    pass
