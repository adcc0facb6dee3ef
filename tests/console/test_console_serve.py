"""``hudi-metastore serve --console-port`` as an operator runs it: the console on the port it printed (0 picks
one), over TLS with the Thrift ports' certificate (sessions then only in Secure cookies), beside the Thrift
port on one catalog database."""

from __future__ import annotations

import http.client
import re
import ssl
import subprocess
from urllib.parse import urlencode

import pytest

from tests.support.authorization import _password
from tests.support.servers import free_port, serve_command, stop_servers, wait_until, write_passwords


def test_serve_prints_the_console_it_serves_over_tls(certs, tmp_path):
    write_passwords(tmp_path / "passwords", {"alice": _password("alice")})
    log = tmp_path / "serve.log"
    with log.open("w") as out:
        process = subprocess.Popen(
            serve_command(
                free_port(),
                db_url=f"sqlite:///{tmp_path / 'c.db'}",
                warehouse=tmp_path / "wh",
                extra=[
                    "--console-port",
                    "0",
                    "--tls-cert",
                    str(certs / "server.pem"),
                    "--tls-key",
                    str(certs / "server.key"),
                    "--auth",
                    "password",
                    "--password-file",
                    str(tmp_path / "passwords"),
                ],
            ),
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        printed = re.compile(r"serving the web console on https://127\.0\.0\.1:(\d+)")
        wait_until(lambda: printed.search(log.read_text()), "the console's line", process, log=log)
        port = int(printed.search(log.read_text())[1])
        context = ssl.create_default_context(cafile=str(certs / "ca.pem"))
        connection = http.client.HTTPSConnection("127.0.0.1", port, context=context, timeout=60)
        form = urlencode({"user": "alice", "password": _password("alice"), "next": "/health"})
        connection.request("POST", "/login", form, {"Content-Type": "application/x-www-form-urlencoded"})
        answer = connection.getresponse()
        answer.read()
        cookie = answer.getheader("set-cookie")
        assert answer.status == 303 and "Secure" in cookie and "HttpOnly" in cookie
        connection.request("GET", "/health", headers={"Cookie": cookie.split(";", 1)[0]})
        health = connection.getresponse()
        assert health.status == 200 and 'id="readiness" class="ready"' in health.read().decode()
        connection.close()
        plain = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        plain.request("GET", "/")
        with pytest.raises((http.client.RemoteDisconnected, http.client.BadStatusLine, ConnectionResetError)):
            plain.getresponse()  # TLS only: a plain request gets no page
    finally:
        stop_servers([process], [log])
