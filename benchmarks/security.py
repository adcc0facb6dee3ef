"""What security costs: connect + first call, and calls per second on one connection, over plaintext, TLS and
Kerberos with ``auth-conf`` (every frame encrypted), on ours and on Apache Hive Metastore 2.3.10 configured
alike, side by side.

Everything runs on this machine: a private KDC (``benchmarks/kdc.py``: realm HMS.TEST, service principal
``hive/localhost``, user ``alice``), a self-signed certificate for ``localhost`` (PEM for ours, a PKCS#12
keystore of the same key for Hive), ours as ``hudi-metastore serve`` on SQLite, Hive on a MariaDB database
(``benchmarks/peer.py``; Hive 2.3 cannot use SQLite). The client is the same for both: Apache Thrift's
Python library (Hive's generated client from ``hive-metastore-client``) over ``TSocket``, ``TSSLSocket``
(certificate not verified, alike for both) or ``TSaslClientTransport`` with pure-sasl's GSSAPI asking for
``auth-conf``, binary protocol.

1. **Connect + first call**: ``--connects`` times (50), a new connection (TCP, then the TLS handshake or the
   SASL negotiation with a service ticket from the cache) and ``get_database('default')``; p50 and p95 ms.
2. **Calls per second**: one connection, ``get_database('default')`` in a loop for ``--seconds`` (3).

Before the figures each server gets 2 s of unreported calls (the JVM compiles its hot paths). Prints one
markdown table, then the result as JSON.

Usage: python benchmarks/security.py [--ours-only] [--connects 50] [--seconds 3] [--json security.json]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import ssl
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import peer as hive_peer  # noqa: E402
from benchmarks.bench_base import wait_for_listening  # noqa: E402
from benchmarks.kdc import PrivateKdc, ensure_kerberos  # noqa: E402

MODES = ("plaintext", "tls", "kerberos auth-conf")
SERVICE = "hive/localhost"
PASSWORD = "bench-pass"
PEER_DB_URL = "mysql://root@127.0.0.1:3306/securitybench_hms"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def make_certificate(home: Path) -> tuple[Path, Path, Path]:
    """A self-signed certificate for localhost: PEM certificate and key, and a PKCS#12 keystore of both."""
    cert, key, keystore = home / "server.pem", home / "server.key", home / "server.p12"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            str(key),
            "-out",
            str(cert),
            "-days",
            "2",
            "-subj",
            "/CN=localhost",
            "-addext",
            "subjectAltName=DNS:localhost,IP:127.0.0.1",
        ],
        check=True,
        capture_output=True,
    )
    subprocess.run(
        [
            "openssl",
            "pkcs12",
            "-export",
            "-in",
            str(cert),
            "-inkey",
            str(key),
            "-out",
            str(keystore),
            "-passout",
            f"pass:{PASSWORD}",
            "-name",
            "hms",
        ],
        check=True,
        capture_output=True,
    )
    return cert, key, keystore


def client_factory(mode: str, port: int) -> Callable[[], tuple[object, object]]:
    """Opens a client of ``mode`` to ``port``; returns (client, transport)."""
    from hive_metastore import ThriftHiveMetastore
    from thrift.protocol import TBinaryProtocol
    from thrift.transport import TSocket, TSSLSocket, TTransport

    def connect():
        if mode == "tls":
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
            context.check_hostname, context.verify_mode = False, ssl.CERT_NONE
            sock = TSSLSocket.TSSLSocket("localhost", port, ssl_context=context)
        else:
            sock = TSocket.TSocket("localhost", port)
        if mode == "kerberos auth-conf":
            transport = TTransport.TSaslClientTransport(sock, "localhost", "hive", qops=[b"auth-conf"])
        else:
            transport = TTransport.TBufferedTransport(sock)
        transport.open()
        return ThriftHiveMetastore.Client(TBinaryProtocol.TBinaryProtocol(transport)), transport

    return connect


def measure(connect: Callable, connects: int, seconds: float) -> dict[str, float]:
    client, transport = connect()
    deadline = time.monotonic() + 2.0  # warm-up
    while time.monotonic() < deadline:
        client.get_database("default")
    transport.close()
    latencies = []
    for _ in range(connects):
        start = time.perf_counter()
        client, transport = connect()
        client.get_database("default")
        latencies.append((time.perf_counter() - start) * 1000)
        transport.close()
    client, transport = connect()
    calls, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        client.get_database("default")
        calls += 1
    elapsed = time.perf_counter() - start
    transport.close()
    latencies.sort()
    return {
        "connect_p50_ms": statistics.median(latencies),
        "connect_p95_ms": latencies[int(0.95 * (len(latencies) - 1))],
        "calls_per_second": calls / elapsed,
    }


@contextmanager
def ours(mode: str, home: Path, kdc: PrivateKdc, cert: Path, key: Path) -> Iterator[int]:
    port = _free_port()
    command = [
        sys.executable,
        "-m",
        "hms_adapter.cli",
        "serve",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--no-metaserver",
        "--db-url",
        f"sqlite:///{home / f'ours-{port}.db'}",
        "--warehouse",
        str(home / "wh"),
    ]
    if mode == "tls":
        command += ["--tls-cert", str(cert), "--tls-key", str(key)]
    if mode.startswith("kerberos"):
        command += [
            "--auth",
            "kerberos",
            "--kerberos-principal",
            f"hive/_HOST@{kdc.realm}",
            "--kerberos-keytab",
            str(kdc.keytab),
        ]
    process = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env={**os.environ, **kdc.env}
    )
    try:
        wait_for_listening(port, process, f"hudi-metastore serve ({mode})")
        yield port
    finally:
        process.terminate()
        process.wait(30)


@contextmanager
def hive(mode: str, home: Path, kdc: PrivateKdc, keystore: Path) -> Iterator[int]:
    settings, core_site, jvm = {}, None, ()
    if mode == "tls":
        settings = {
            "hive.metastore.use.SSL": "true",
            "hive.metastore.keystore.path": str(keystore),
            "hive.metastore.keystore.password": PASSWORD,
        }
    if mode.startswith("kerberos"):
        settings = {
            "hive.metastore.sasl.enabled": "true",
            "hive.metastore.kerberos.principal": kdc.principal(SERVICE),
            "hive.metastore.kerberos.keytab.file": str(kdc.keytab),
        }
        core_site = {"hadoop.security.authentication": "kerberos", "hadoop.rpc.protection": "privacy"}
        jvm = (f"-Djava.security.krb5.conf={kdc.krb5_conf}",)
    with hive_peer.running_peer(
        db_url=PEER_DB_URL,
        settings=settings,
        core_site=core_site,
        jvm_options=jvm,
        env={**os.environ, **kdc.env},
        work_dir=str(home / f"peer-{_free_port()}"),
    ) as running:
        yield running.port


def _table(results: dict[str, dict[str, dict[str, float]]]) -> str:
    servers = list(results)
    lines = [
        "| mode | figure | " + " | ".join(servers) + (" | ours / HMS |" if len(servers) == 2 else " |"),
        "|---|---|" + "---|" * (len(servers) + (len(servers) == 2)),
    ]
    for mode in MODES:
        for figure in ("connect_p50_ms", "connect_p95_ms", "calls_per_second"):
            values = [results[s].get(mode, {}).get(figure) for s in servers]
            cells = [f"{v:,.1f}" if v is not None else "-" for v in values]
            if len(servers) == 2 and None not in values:
                cells.append(f"{values[0] / values[1]:.2f}")
            lines.append(f"| {mode} | {figure} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ours-only", action="store_true", help="skip Hive Metastore 2.3.10")
    parser.add_argument("--connects", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--json", help="write the result here instead of printing it")
    args = parser.parse_args()
    problem = ensure_kerberos()
    if problem:
        raise SystemExit(problem)
    if shutil.which("openssl") is None:
        raise SystemExit("openssl is needed for the certificate")
    home = Path(tempfile.mkdtemp(prefix="security-bench-"))
    kdc = PrivateKdc(home / "kdc")
    try:
        kdc.keytab = kdc.add_service(SERVICE)
        kdc.add_user("alice", PASSWORD)
        os.environ.update(
            {k: v for k, v in kdc.client_env(kdc.kinit("alice", PASSWORD)).items() if k.startswith("KRB5")}
        )
        cert, key, keystore = make_certificate(home)
        results: dict[str, dict[str, dict[str, float]]] = {"ours": {}}
        if not args.ours_only:
            results["hms"] = {}
        for mode in MODES:
            with ours(mode, home, kdc, cert, key) as port:
                results["ours"][mode] = measure(client_factory(mode, port), args.connects, args.seconds)
            if not args.ours_only:
                with hive(mode, home, kdc, keystore) as port:
                    results["hms"][mode] = measure(client_factory(mode, port), args.connects, args.seconds)
            print(f"{mode}: {json.dumps({s: results[s].get(mode) for s in results})}", file=sys.stderr)
    finally:
        kdc.stop()
        shutil.rmtree(home, ignore_errors=True)
    print(_table(results))
    output = json.dumps({"connects": args.connects, "seconds": args.seconds, "results": results}, indent=2)
    if args.json:
        Path(args.json).write_text(output)
    else:
        print(output)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
