"""TLS for the Thrift ports: modern TLS only (1.2 and later), an optional CA that client certificates must
chain to, and certificates reloaded without a restart.

The certificate, key and CA files are checked (their modification times) when a connection arrives; when
any changed, a new context is built from them for that connection and those after it. Connections already
open keep the context they started with. A reload that fails (a half-written file) keeps the previous
context and is logged.
"""

from __future__ import annotations

import logging
import os
import ssl
import threading
from dataclasses import dataclass

log = logging.getLogger(__name__)

HANDSHAKE_TIMEOUT_SECONDS = 30.0


@dataclass(frozen=True)
class TlsFiles:
    cert: str
    key: str
    ca: str | None = None

    def mtimes(self) -> tuple[float, ...]:
        return tuple(os.stat(path).st_mtime_ns for path in (self.cert, self.key, self.ca) if path)


def _context(files: TlsFiles) -> ssl.SSLContext:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.load_cert_chain(files.cert, files.key)
    if files.ca:
        context.load_verify_locations(files.ca)
        context.verify_mode = ssl.CERT_REQUIRED
    return context


class ServerTls:
    """The server side of TLS for a listener (``ThriftServer(tls=...)``)."""

    def __init__(self, files: TlsFiles) -> None:
        self.files = files
        self._lock = threading.Lock()
        self._mtimes = files.mtimes()
        self._context = _context(files)  # an unreadable certificate or key fails the start

    def context(self) -> ssl.SSLContext:
        """The current context, rebuilt first if a file changed since it was built."""
        with self._lock:
            try:
                mtimes = self.files.mtimes()
                if mtimes != self._mtimes:
                    self._context = _context(self.files)
                    self._mtimes = mtimes
                    log.info("reloaded the TLS certificate %s", self.files.cert)
            except (OSError, ssl.SSLError) as error:
                log.error("could not reload the TLS files (%s); keeping the previous certificate", error)
            return self._context

    def wrap(self, conn):
        """The TLS side of an accepted connection, handshake done (within ``HANDSHAKE_TIMEOUT_SECONDS``)."""
        conn.settimeout(HANDSHAKE_TIMEOUT_SECONDS)
        wrapped = self.context().wrap_socket(conn, server_side=True)
        wrapped.settimeout(None)
        return wrapped
