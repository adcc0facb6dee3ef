"""An ASGI application served by uvicorn on a thread of the serving process (``AppServer``).

With ``serve --workers`` every worker serves the port, on a socket of its own bound with ``SO_REUSEPORT``
(as the Thrift ports are), so the kernel spreads the connections. The Iceberg REST port and the web console
are both served this way.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import ssl
import threading
from typing import Any

import anyio.to_thread
import uvicorn

log = logging.getLogger(__name__)

DEFAULT_THREADS = 64
"""Catalog calls under way at once (``serve --threads``); further requests wait for a thread."""
GRACE_SECONDS = 10.0
"""How long a stop waits for requests under way before it cancels them, unless told (``serve
--graceful-timeout``)."""
IDLE_CLOSE_SECONDS = 1.0
"""How long a stop lets idle connections close politely: a TLS connection's close waits for the client's
close_notify, which an idle client never sends (asyncio would wait 30 s); after this they are cut."""


class AppServer:
    """Serves ``app`` on ``host:port`` (0: a free port) until ``stop``, over TLS with ``ssl_context``; its
    blocking work runs on at most ``threads`` threads at once."""

    def __init__(
        self,
        app: Any,
        host: str,
        port: int,
        reuse_port: bool = False,
        ssl_context: ssl.SSLContext | None = None,
        threads: int = DEFAULT_THREADS,
        grace: float = GRACE_SECONDS,
        name: str = "http",
    ) -> None:
        self.socket = listening_socket(host, port, reuse_port)
        self.host = host
        self.port = self.socket.getsockname()[1]
        self.threads = threads
        self.grace = grace
        config = uvicorn.Config(
            app,
            log_level=logging.WARNING,
            access_log=False,
            lifespan="off",
            server_header=False,
            timeout_keep_alive=30,
            timeout_graceful_shutdown=max(1, round(grace)),
        )
        config.load()
        config.ssl = ssl_context  # TLS as the Thrift ports have it (``serve --tls-*``)
        self._server = uvicorn.Server(config)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread = threading.Thread(target=asyncio.run, args=(self._serve(),), name=name, daemon=True)

    def start(self) -> None:
        self._thread.start()

    async def _serve(self) -> None:
        self._loop = asyncio.get_running_loop()
        # the catalog calls run on these threads: as many at once as the Thrift port's --threads
        anyio.to_thread.current_default_thread_limiter().total_tokens = self.threads
        await self._server.serve(sockets=[self.socket])

    def request_stop(self) -> None:
        """Stop accepting and let the requests under way finish, without waiting (a signal handler's part)."""
        self._server.should_exit = True

    def stop(self) -> bool:
        """Stop accepting, finish the requests under way (uvicorn's graceful shutdown, at most ``grace``
        seconds), close the socket; whether the server ended in that time."""
        self.request_stop()
        self._thread.join(IDLE_CLOSE_SECONDS)
        if self._thread.is_alive() and self._loop is not None:
            self._loop.call_soon_threadsafe(self._cut_idle_connections)
        self._thread.join(self.grace + 5)
        self.socket.close()
        return not self._thread.is_alive()

    def _cut_idle_connections(self) -> None:
        """Abort the connections with no request under way (run on the server's loop)."""
        for connection in list(self._server.server_state.connections):
            cycle = getattr(connection, "cycle", None)
            transport = getattr(connection, "transport", None)
            if transport is not None and (cycle is None or cycle.response_complete):
                transport.abort()


def listening_socket(host: str, port: int, reuse_port: bool) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP named: asyncio sets TCP_NODELAY only on sockets that name it, and without it a response
    # written in two parts (head, body) waits for the client's delayed ACK on a kept-alive connection (40 ms)
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
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
