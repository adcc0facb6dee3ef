"""What benchmark modules share that imports none of them: the versions of Apache Hive Metastore that
``peer.py`` runs, and a free local port. (``bench_server`` re-exports the port and the 2.3 version.)"""

from __future__ import annotations

import socket

HIVE_2_3 = "2.3.10"
HIVE_4 = "4.0.1"
PEER_VERSIONS = (HIVE_2_3, HIVE_4)
"""The versions of Apache Hive Metastore that ``peer.py`` runs."""


_HANDED_OUT: set[int] = set()
"""The ports ``free_port`` gave this process: the kernel may pick a just-released port again, and the ports
asked for one server (``--port``, ``--iceberg-rest-port``) must differ."""


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now, and that this process was not given before."""
    while True:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        if port not in _HANDED_OUT:
            _HANDED_OUT.add(port)
            return port
