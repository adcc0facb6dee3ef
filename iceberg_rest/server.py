"""The Iceberg REST port: the application served by uvicorn on a thread of the serving process
(``http_port.server.AppServer``)."""

from __future__ import annotations

from http_port.server import DEFAULT_THREADS, GRACE_SECONDS, AppServer
from hudi_catalog import Catalog

from .app import make_app
from .security import RestSecurity


class RestServer(AppServer):
    """Serves the Iceberg REST catalog of ``catalog`` on ``host:port`` (0: a free port) until ``stop``, with
    the authentication, TLS and audit of ``security``."""

    def __init__(
        self,
        catalog: Catalog,
        host: str,
        port: int,
        reuse_port: bool = False,
        security: RestSecurity | None = None,
        threads: int = DEFAULT_THREADS,
        grace: float = GRACE_SECONDS,
    ) -> None:
        self.security = security or RestSecurity()
        super().__init__(
            make_app(catalog, self.security),
            host,
            port,
            reuse_port,
            self.security.ssl_context,
            threads,
            grace,
            name="iceberg-rest",
        )
