"""``hudi-metastore status``: is a metastore answering? One cheap Hive Metastore call (``get_all_databases``,
the call engines' health checks use), timed, and optionally the readiness probe of its ``--metrics-port``."""

from __future__ import annotations

import argparse
import getpass
import json
import os
import sys
import time
import urllib.error
import urllib.request

from thriftpy2.thrift import TException

from .client import ClientError, Security, connect

PASSWORD_VARIABLE = "HUDI_METASTORE_PASSWORD"
"""The environment variable holding the password of ``status --auth password``."""


class StatusError(Exception):
    """The metastore did not answer, or answered that it is not ready; the message says what happened."""


def client_security(args: argparse.Namespace) -> Security:
    """The connection ``status``'s options ask for; with ``--auth password``, the password is
    ``HUDI_METASTORE_PASSWORD``, else asked for on a terminal, else the first line of standard input."""
    if args.auth == "password" and not args.user:
        raise StatusError("--auth password needs --user")
    if args.user and args.auth != "password":
        raise StatusError("--user goes with --auth password (Kerberos connects as the ticket's principal)")
    return Security(
        auth=args.auth,
        user=args.user,
        password=_password(args.user) if args.auth == "password" else None,
        kerberos_service_principal=args.kerberos_service_principal,
        tls_ca=args.tls_ca,
        tls_cert=args.tls_cert,
        tls_key=args.tls_key,
    )


def _password(user: str) -> str:
    if PASSWORD_VARIABLE in os.environ:
        return os.environ[PASSWORD_VARIABLE]
    if sys.stdin.isatty():
        return getpass.getpass(f"password of {user}: ")
    return sys.stdin.readline().rstrip("\n")


def check_metastore(uri: str, timeout: float, security: Security | None = None) -> str:
    """Call ``get_all_databases`` at ``thrift://host:port``, connected as ``security`` says; returns a line
    saying how long it took."""
    started = time.perf_counter()
    try:
        with connect(uri, security, timeout) as client:
            databases = client.get_all_databases()
    except ClientError as error:
        raise StatusError(f"{uri}: {error}") from error
    except (OSError, TException) as error:
        raise StatusError(f"{uri}: {type(error).__name__}: {error}") from error
    elapsed_ms = (time.perf_counter() - started) * 1000
    return f"get_all_databases answered in {elapsed_ms:.1f} ms ({len(databases)} databases visible)"


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
