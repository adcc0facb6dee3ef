"""The console's port (``serve --console-port``): the application served by uvicorn on a thread of the serving
process, and the sampling of the server's figures for its health page."""

from __future__ import annotations

from pathlib import Path

from http_port.server import DEFAULT_THREADS, GRACE_SECONDS, AppServer
from hudi_catalog import Catalog

from .app import make_app
from .metrics_history import MetricsHistory
from .security import ConsoleSecurity


class ConsoleServer(AppServer):
    """Serves the console of ``catalog`` on ``host:port`` (0: a free port) until ``stop``; the health page
    charts the metrics recorded in ``metrics_directory`` (None: no charts)."""

    def __init__(
        self,
        catalog: Catalog,
        host: str,
        port: int,
        reuse_port: bool = False,
        security: ConsoleSecurity | None = None,
        metrics_directory: Path | None = None,
        threads: int = DEFAULT_THREADS,
        grace: float = GRACE_SECONDS,
    ) -> None:
        self.security = security or ConsoleSecurity()
        self.history = MetricsHistory(metrics_directory) if metrics_directory is not None else None
        app = make_app(catalog, self.security, self.history)
        super().__init__(app, host, port, reuse_port, self.security.ssl_context, threads, grace, name="console")

    def start(self) -> None:
        if self.history is not None:
            self.history.start()
        super().start()

    def stop(self) -> bool:
        if self.history is not None:
            self.history.stop()
        return super().stop()
