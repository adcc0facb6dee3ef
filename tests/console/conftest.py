"""The console served in-process over the test's catalog (``ConsoleServer`` on a free port of 127.0.0.1)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from console.security import ConsoleSecurity
from console.server import ConsoleServer
from hudi_catalog import Catalog


@pytest.fixture
def serve_console() -> Iterator[Callable[..., ConsoleServer]]:
    """Starts consoles (``serve_console(catalog, security)``) and stops them after the test."""
    started: list[ConsoleServer] = []

    def start(catalog: Catalog, security: ConsoleSecurity | None = None) -> ConsoleServer:
        server = ConsoleServer(catalog, "127.0.0.1", 0, security=security)
        server.start()
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


@pytest.fixture
def console(catalog, serve_console) -> ConsoleServer:
    """The console of ``catalog`` without authentication."""
    return serve_console(catalog)
