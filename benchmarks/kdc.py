"""A private MIT Kerberos realm for tests: its own KDC process, port, database and files in a folder.

``ensure_kerberos()`` installs what is missing (Debian's ``krb5-kdc``, ``krb5-admin-server``, ``krb5-user``
and ``libkrb5-dev``; PyPI's ``gssapi`` for the server and ``kerberos`` for pure-sasl's GSSAPI client), and
``PrivateKdc`` makes the realm: a ``krb5.conf`` that talks TCP to ``127.0.0.1:PORT`` only, service
principals with keytabs, users with passwords, and ``kinit`` into file caches. Every command gets the
realm's ``KRB5_CONFIG``/``KRB5_KDC_PROFILE``; nothing outside the folder is read or changed.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

from benchmarks.bench_base import NotReady, apt_install, wait_for_listening

REALM = "HMS.TEST"
DEBIAN_PACKAGES = ("krb5-kdc", "krb5-admin-server", "krb5-user", "libkrb5-dev")
PYTHON_PACKAGES = {"gssapi": "gssapi>=1.8", "kerberos": "kerberos>=1.3", "cryptography": "cryptography>=43"}


def ensure_kerberos() -> str | None:
    """Installs the KDC tools and the Python GSSAPI bindings when missing; returns why they cannot be had,
    or None when everything is there."""
    if not all(shutil.which(tool) for tool in ("krb5kdc", "kdb5_util", "kadmin.local", "kinit", "krb5-config")):
        problem = apt_install(list(DEBIAN_PACKAGES))
        if problem:
            return f"the Kerberos packages: {problem}"
    missing = [spec for module, spec in PYTHON_PACKAGES.items() if importlib.util.find_spec(module) is None]
    if missing:
        done = subprocess.run(
            [sys.executable, "-m", "pip", "install", "-q", *missing], capture_output=True, text=True, timeout=900
        )
        if done.returncode:
            return f"cannot install {' '.join(missing)}: {done.stderr[-500:]}"
        importlib.invalidate_caches()
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PrivateKdc:
    """A running KDC for ``REALM`` in ``home``; ``stop()`` ends it."""

    def __init__(self, home: Path, realm: str = REALM) -> None:
        self.home, self.realm, self.port = home, realm, _free_port()
        home.mkdir(parents=True, exist_ok=True)
        self.krb5_conf = home / "krb5.conf"
        self.kdc_conf = home / "kdc.conf"
        self.krb5_conf.write_text(f"""[libdefaults]
    default_realm = {realm}
    dns_lookup_kdc = false
    dns_lookup_realm = false
    rdns = false
    udp_preference_limit = 1
    ticket_lifetime = 10h
    forwardable = false
[realms]
    {realm} = {{
        kdc = 127.0.0.1:{self.port}
        admin_server = 127.0.0.1:{self.port}
    }}
[domain_realm]
    localhost = {realm}
""")
        self.kdc_conf.write_text(f"""[kdcdefaults]
    kdc_ports = {self.port}
    kdc_tcp_ports = {self.port}
[realms]
    {realm} = {{
        database_name = {home}/principal
        key_stash_file = {home}/stash
        acl_file = {home}/kadm5.acl
        max_life = 10h
        max_renewable_life = 1d
        supported_enctypes = aes256-cts-hmac-sha1-96:normal aes128-cts-hmac-sha1-96:normal
    }}
[logging]
    kdc = FILE:{home}/kdc.log
""")
        (home / "kadm5.acl").write_text("")
        self.env = {**os.environ, "KRB5_CONFIG": str(self.krb5_conf), "KRB5_KDC_PROFILE": str(self.kdc_conf)}
        self._run(["kdb5_util", "create", "-s", "-r", realm, "-P", "master-key-of-the-test-realm"])
        self._process = subprocess.Popen(
            ["krb5kdc", "-n"], env=self.env, stdout=subprocess.DEVNULL, stderr=open(home / "krb5kdc.out", "w")
        )
        try:
            wait_for_listening(self.port, self._process, "the KDC")
        except NotReady as error:
            raise RuntimeError(f"{error}: {(home / 'krb5kdc.out').read_text()}") from None

    def _run(self, command: list[str], **kwargs) -> subprocess.CompletedProcess:
        return subprocess.run(command, env=self.env, check=True, capture_output=True, text=True, timeout=60, **kwargs)

    def principal(self, name: str) -> str:
        return f"{name}@{self.realm}"

    def add_service(self, name: str) -> Path:
        """A service principal (``hive/localhost``) with a random key; returns its keytab."""
        keytab = self.home / (name.replace("/", "_") + ".keytab")
        self._run(["kadmin.local", "-q", f"addprinc -randkey {self.principal(name)}"])
        self._run(["kadmin.local", "-q", f"ktadd -k {keytab} {self.principal(name)}"])
        return keytab

    def add_user(self, name: str, password: str) -> None:
        self._run(["kadmin.local", "-q", f"addprinc -pw {password} {self.principal(name)}"])

    def kinit(self, name: str, password: str, lifetime: str | None = None) -> Path:
        """A new ticket cache for the user; returns its file (for ``KRB5CCNAME=FILE:...``)."""
        cache = self.home / f"cc_{name.replace('/', '_')}_{time.monotonic_ns()}"
        command = ["kinit", "-c", f"FILE:{cache}"] + (["-l", lifetime] if lifetime else []) + [self.principal(name)]
        self._run(command, input=password + "\n")
        return cache

    def client_env(self, cache: Path | None) -> dict[str, str]:
        """The environment of a client process using ``cache`` (or no ticket at all when None)."""
        env = dict(self.env)
        env["KRB5CCNAME"] = f"FILE:{cache}" if cache else f"FILE:{self.home}/no-ticket-here"
        return env

    def stop(self) -> None:
        self._process.terminate()
        self._process.wait(timeout=10)
