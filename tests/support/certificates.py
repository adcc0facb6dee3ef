"""Test certificates made with openssl: a CA, server certificates for localhost and 127.0.0.1 signed by
it, a client certificate (``make_certificates``; the ``certs`` fixture of ``tests/conftest.py``)."""

from __future__ import annotations

import subprocess
from pathlib import Path


def _openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True, timeout=60)


def _signed(cwd: Path, name: str, ca: str, subject: str, server: bool) -> None:
    _openssl(
        "req",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        f"{name}.key",
        "-out",
        f"{name}.csr",
        "-subj",
        f"/CN={subject}",
        cwd=cwd,
    )
    extensions = cwd / f"{name}.ext"
    extensions.write_text("subjectAltName=DNS:localhost,IP:127.0.0.1\n" if server else "extendedKeyUsage=clientAuth\n")
    _openssl(
        "x509",
        "-req",
        "-in",
        f"{name}.csr",
        "-CA",
        f"{ca}.pem",
        "-CAkey",
        f"{ca}.key",
        "-CAcreateserial",
        "-days",
        "2",
        "-out",
        f"{name}.pem",
        "-extfile",
        extensions.name,
        cwd=cwd,
    )


def make_certificates(cwd: Path) -> Path:
    """A CA, a server certificate for localhost/127.0.0.1 signed by it (and a second one), a client one, in
    ``cwd``."""
    _openssl(
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "ca.key",
        "-out",
        "ca.pem",
        "-days",
        "2",
        "-subj",
        "/CN=test-ca",
        cwd=cwd,
    )
    _signed(cwd, "server", "ca", "hudi-metastore", server=True)
    _signed(cwd, "server2", "ca", "hudi-metastore-renewed", server=True)
    _signed(cwd, "client", "ca", "alice", server=False)
    return cwd
