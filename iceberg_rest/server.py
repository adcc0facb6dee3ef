"""The Iceberg REST port: the application served by uvicorn on a thread of the serving process.

With ``serve --workers`` every worker serves the port, on a socket of its own bound with ``SO_REUSEPORT``
(as the Thrift ports are), so the kernel spreads the connections.
"""

from __future__ import annotations

import logging
import socket
import threading

import uvicorn

from hudi_catalog import Catalog

from .app import make_app

log = logging.getLogger(__name__)


class RestServer:
    """Serves the Iceberg REST catalog of ``catalog`` on ``host:port`` (0: a free port) until ``stop``."""

    def __init__(self, catalog: Catalog, host: str, port: int, reuse_port: bool = False) -> None:
        self.socket = _listening_socket(host, port, reuse_port)
        self.host = host
        self.port = self.socket.getsockname()[1]
        config = uvicorn.Config(
            make_app(catalog),
            log_level=logging.WARNING,
            access_log=False,
            lifespan="off",
            server_header=False,
            timeout_keep_alive=30,
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._serve, name="iceberg-rest", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def _serve(self) -> None:
        self._server.run(sockets=[self.socket])

    def stop(self) -> None:
        """Stop accepting, finish the requests under way (uvicorn's graceful shutdown), close the socket."""
        self._server.should_exit = True
        self._thread.join(30)
        self.socket.close()


def _listening_socket(host: str, port: int, reuse_port: bool) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if reuse_port:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    try:
        sock.bind((host, port))
        sock.listen(256)
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock
