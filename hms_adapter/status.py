"""``hudi-metastore status``: is a metastore answering? One cheap Hive Metastore call (``get_all_databases``,
the call engines' health checks use), timed, and optionally the readiness probe of its ``--metrics-port``."""

from __future__ import annotations

import json
import ssl
import time
import urllib.error
import urllib.request
from urllib.parse import urlparse

from thriftpy2.rpc import make_client
from thriftpy2.thrift import TException

from .idl import hive


class StatusError(Exception):
    """The metastore did not answer, or answered that it is not ready; the message says what happened."""


def check_metastore(
    uri: str, timeout: float, tls_ca: str | None = None, client_certificate: tuple[str, str] | None = None
) -> str:
    """Call ``get_all_databases`` at ``thrift://host:port``; returns a line saying how long it took.

    ``tls_ca``: connect over TLS, verifying the server with these CA certificates; ``client_certificate``:
    the (certificate, key) PEM files to present to a server started with ``--tls-ca``."""
    parsed = urlparse(uri)
    if parsed.scheme != "thrift" or not parsed.hostname or not parsed.port:
        raise StatusError(f"{uri}: expected thrift://host:port")
    if client_certificate is not None and not tls_ca:
        raise StatusError("a client certificate is presented over TLS only: give --tls-ca too")
    context = _tls_context(tls_ca, client_certificate) if tls_ca else None
    started = time.perf_counter()
    try:
        client = make_client(
            hive.ThriftHiveMetastore, parsed.hostname, parsed.port, timeout=int(timeout * 1000), ssl_context=context
        )
        try:
            databases = client.get_all_databases()
        finally:
            client.close()
    except (OSError, TException) as error:
        raise StatusError(f"{uri}: {type(error).__name__}: {error}") from error
    elapsed_ms = (time.perf_counter() - started) * 1000
    return f"get_all_databases answered in {elapsed_ms:.1f} ms ({len(databases)} databases visible)"


def _tls_context(ca: str, client_certificate: tuple[str, str] | None) -> ssl.SSLContext:
    try:
        context = ssl.create_default_context(cafile=ca)
        if client_certificate is not None:
            context.load_cert_chain(*client_certificate)
    except (OSError, ssl.SSLError) as error:
        raise StatusError(f"cannot use the TLS files: {error}") from error
    return context


def check_readiness(url: str, timeout: float) -> str:
    """Read ``/health/ready`` under ``url`` (a ``--metrics-port`` address); returns its reason when ready."""
    ready_url = url.rstrip("/") + "/health/ready"
    try:
        with urllib.request.urlopen(ready_url, timeout=timeout) as response:
            return json.load(response)["reason"]
    except urllib.error.HTTPError as error:  # 503: not ready, with the reason
        reason = json.load(error).get("reason", error.reason)
        raise StatusError(f"{ready_url}: not ready: {reason}") from error
    except (OSError, ValueError) as error:
        raise StatusError(f"{ready_url}: {type(error).__name__}: {error}") from error
