"""Hive 2.3.10's own Java metastore client (from the pyspark wheel) over Kerberos, each quality of
protection as ``hadoop.rpc.protection`` sets it, then with the delegation token it got and no ticket."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.java.wheel_jars import JARS, compile_source

from .conftest import hadoop_conf_dir

SOURCE = Path(__file__).with_name("KerberosClient.java")


@pytest.fixture(scope="module")
def compiled(tmp_path_factory) -> Path:
    return compile_source(SOURCE, tmp_path_factory.mktemp("java"))


def _run(kdc, compiled: Path, home: Path, protection: str, cache, *args: str) -> dict[str, str]:
    conf = hadoop_conf_dir(home / protection, protection)
    done = subprocess.run(
        [
            "java",
            f"-Djava.security.krb5.conf={kdc.krb5_conf}",
            "-cp",
            f"{compiled}:{conf}:{JARS}/*",
            "KerberosClient",
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=300,
        env=kdc.client_env(cache),
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return dict(line.split(" ", 1) for line in done.stdout.splitlines() if " " in line)


@pytest.mark.parametrize("protection", ["authentication", "integrity", "privacy"])
def test_hive_java_client_over_kerberos_then_with_its_token(
    kdc, kerberized_server, alice_cache, compiled, tmp_path, protection
):
    uri, principal = f"thrift://localhost:{kerberized_server.port}", f"hive/_HOST@{kdc.realm}"
    database = f"java_{protection}"
    out = _run(
        kdc, compiled, tmp_path, protection, alice_cache, "kerberos", uri, principal, f"alice@{kdc.realm}", database
    )
    assert database in out["DATABASES"]
    token = out["TOKEN"]
    audit = kerberized_server.audit.read_text()
    assert f"principal=alice@{kdc.realm}\t" in audit and f"object={database}" in audit

    out = _run(kdc, compiled, tmp_path, protection, None, "token", uri, principal, token)
    assert database in out["DATABASES"]
    lines = kerberized_server.audit.read_text().splitlines()
    assert any(line.split("\t")[1] == "principal=alice" and "method=get_all_databases" in line for line in lines)
