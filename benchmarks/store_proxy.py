"""An HTTP proxy on loopback between the server and a real object store that delays every request, answers
some with the store's own errors, or stops listening: the latency of a store across a network and the faults
a real store shows (throttling, an outage), at the wire, with the file-system layer above it untouched. The
tests of faults (``tests/object_stores/test_s3_faults.py``) and the latency benchmark
(``object_store_latency.py``) put it in front of moto's S3 server.

``StoreProxy(upstream, latency_ms)`` forwards every request to ``upstream`` (``http://host:port``), each
answer ``latency_ms`` after its request arrived at the earliest (a store's round trip), until told otherwise:

- ``throttle(times, method=..., path=...)``: the next ``times`` matching requests get S3's ``503 SlowDown``;
- ``down()`` / ``up()``: the port refuses connections, then listens again (the same port).

Requests and answers pass whole (bodies of any size; chunked request bodies are joined); every request the
proxy saw is counted in ``requests`` by method.
"""

from __future__ import annotations

import contextlib
import http.client
import socket
import threading
import time
from collections import Counter
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlparse

from bench_base import free_port

SLOW_DOWN = (
    b'<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>SlowDown</Code>'
    b"<Message>Please reduce your request rate.</Message></Error>"
)
HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "proxy-connection", "te", "upgrade"}


@dataclass
class _Throttle:
    times: int
    method: str | None
    path: str | None

    def matches(self, method: str, path: str) -> bool:
        return (self.method is None or method == self.method) and (self.path is None or self.path in path)


class StoreProxy:
    """A proxy on a free loopback port in front of ``upstream``; a context manager stopping it on exit."""

    def __init__(self, upstream: str, latency_ms: float = 0, port: int | None = None) -> None:
        parsed = urlparse(upstream)
        self.latency = latency_ms / 1000
        self.upstream = (parsed.hostname or "127.0.0.1", parsed.port or 80)
        self.port = port or free_port()
        self.requests: Counter[str] = Counter()
        self.throttled = 0
        self._throttles: list[_Throttle] = []
        self._open: set[socket.socket] = set()
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self.up()

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def throttle(self, times: int, method: str | None = None, path: str | None = None) -> None:
        """Answer the next ``times`` requests of ``method`` whose path holds ``path`` with ``503 SlowDown``."""
        with self._lock:
            self._throttles.append(_Throttle(times, method, path))

    def clear(self) -> None:
        with self._lock:
            self._throttles.clear()

    def up(self) -> None:
        if self._server is None:
            self._server = ThreadingHTTPServer(("127.0.0.1", self.port), _handler(self))
            self._server.daemon_threads = True
            threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def down(self) -> None:
        """Stop listening: new connections are refused, open ones closed."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        with self._lock:
            for connection in self._open:
                with contextlib.suppress(OSError):
                    connection.shutdown(socket.SHUT_RDWR)
            self._open.clear()

    def _fails(self, method: str, path: str) -> bool:
        with self._lock:
            self.requests[method] += 1
            for throttle in self._throttles:
                if throttle.times > 0 and throttle.matches(method, path):
                    throttle.times -= 1
                    self.throttled += 1
                    return True
        return False

    def __enter__(self) -> StoreProxy:
        return self

    def __exit__(self, *_exc) -> None:
        self.down()


def _handler(proxy: StoreProxy) -> type[BaseHTTPRequestHandler]:
    class Forward(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # an answer's headers and body go out at once, not 40 ms apart

        def log_message(self, *_args) -> None:  # the tests read the counts, not a log
            pass

        def setup(self) -> None:
            super().setup()
            with proxy._lock:
                proxy._open.add(self.connection)

        def finish(self) -> None:
            with proxy._lock:
                proxy._open.discard(self.connection)
            with contextlib.suppress(OSError):
                super().finish()

        def _body(self) -> bytes:
            if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
                parts = []
                while size := int(self.rfile.readline().split(b";")[0].strip() or b"0", 16):
                    parts.append(self.rfile.read(size))
                    self.rfile.readline()
                while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                    pass  # trailers
                return b"".join(parts)
            length = int(self.headers.get("Content-Length") or 0)
            return self.rfile.read(length) if length else b""

        def _forward(self) -> None:
            arrived = time.monotonic()
            body = self._body()
            if proxy._fails(self.command, self.path):
                self.send_response(503, "Slow Down")
                self.send_header("Content-Type", "application/xml")
                self.send_header("Content-Length", str(len(SLOW_DOWN)))
                self.end_headers()
                self.wfile.write(SLOW_DOWN)
                return
            upstream = http.client.HTTPConnection(*proxy.upstream, timeout=120)
            try:
                headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP}
                upstream.request(self.command, self.path, body=body, headers=headers)
                answer = upstream.getresponse()
                data = answer.read()
            finally:
                upstream.close()
            time.sleep(max(0.0, arrived + proxy.latency - time.monotonic()))
            self.send_response(answer.status, answer.reason)
            for key, value in answer.getheaders():
                if key.lower() not in HOP_BY_HOP and (key.lower() != "content-length" or self.command == "HEAD"):
                    self.send_header(key, value)
            if self.command != "HEAD":
                self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(data)

        do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = _forward

    return Forward


def main() -> int:
    """Run a proxy on its own (the latency benchmark does, so that it shares no interpreter with what it
    measures) until interrupted."""
    import argparse
    import signal

    parser = argparse.ArgumentParser(description="an HTTP proxy in front of an object store")
    parser.add_argument("upstream", help="http://host:port of the store")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--latency-ms", type=float, default=0)
    args = parser.parse_args()
    proxy = StoreProxy(args.upstream, args.latency_ms, port=args.port)
    stopped = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopped.set())
    try:
        stopped.wait()
    except KeyboardInterrupt:
        pass
    proxy.down()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
