"""The open-files limit (``RLIMIT_NOFILE``) and ``--max-connections``: every connection is a descriptor, so a
server whose connections may outnumber its descriptors fails to accept with ``EMFILE`` instead of refusing
the surplus cleanly. At start the soft limit is raised towards what the connections need (up to the hard
limit), and ``--max-connections`` is lowered to what the limit leaves after ``OWN_FILES`` (logged)."""

from __future__ import annotations

import logging
import resource

log = logging.getLogger(__name__)

OWN_FILES = 256
"""Descriptors a server process keeps for itself besides its connections: the catalog database's pool, log
and audit files, the listening sockets, the selectors, TLS files being reloaded."""


def fit_max_connections(max_connections: int, ports: int) -> int:
    """The connections per port (of ``ports``) this process can hold, at most ``max_connections``: the soft
    limit is raised first, up to the hard limit, to ``max_connections * ports + OWN_FILES``."""
    wanted = max_connections * ports + OWN_FILES
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        soft = target
    if soft == resource.RLIM_INFINITY or soft >= wanted:
        return max_connections
    fitted = max(1, (soft - OWN_FILES) // ports)
    log.warning(
        "the open files limit (%d) leaves room for %d connections per port after %d descriptors of the "
        "server's own: --max-connections lowered from %d to %d",
        soft,
        fitted,
        OWN_FILES,
        max_connections,
        fitted,
    )
    return fitted
