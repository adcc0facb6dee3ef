"""What benchmark modules share that imports none of them: the versions of Apache Hive Metastore that
``peer.py`` runs, and a free local port. (``bench_server`` re-exports the port and the 2.3 version.)"""

from __future__ import annotations

import socket

HIVE_2_3 = "2.3.10"
HIVE_4 = "4.0.1"
PEER_VERSIONS = (HIVE_2_3, HIVE_4)
"""The versions of Apache Hive Metastore that ``peer.py`` runs."""


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
