"""``serve --workers N``: N server processes sharing the ports through ``SO_REUSEPORT``.

One Python process runs Python code on one core at a time, so a metastore busy with many clients serves
them from several processes. The supervisor (the ``serve`` process itself) reserves the ports first: it
binds them with ``SO_REUSEPORT`` but never listens, so a port in use fails at once with one clear error and
port 0 becomes one concrete port that every worker joins. The kernel then spreads new connections over
the workers' listening sockets.

Each worker opens its own catalog (its own connection pool) after the fork. Nothing is shared between
workers but the database, which is what already keeps several server processes correct.

A worker that dies while serving is started again; one that dies before it listens is a configuration
problem (the database is unreachable, say), and the supervisor stops with an error rather than restarting
it in a loop. SIGTERM or SIGINT to the supervisor stops every worker gracefully: the signal handler only
records the request, and the supervising loop stops the workers, so a signal can never interleave with a
restart. A worker is forked with those signals blocked and restores their default action before it unblocks
them, so a stop that arrives while it starts still stops it. On Linux a worker also gets SIGTERM from the
kernel when the supervisor dies (``PR_SET_PDEATHSIG``): a supervisor killed outright leaves no unsupervised
servers behind on the ports.
"""

from __future__ import annotations

import ctypes
import logging
import multiprocessing
import os
import signal
import socket
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.process import BaseProcess
from multiprocessing.synchronize import Event

from .server import ServingLimits

log = logging.getLogger(__name__)

READY_TIMEOUT_SECONDS = 120.0
STOP_MARGIN_SECONDS = 10.0
"""How much longer than a worker's own ``--graceful-timeout`` its supervisor waits before killing it."""
POLL_SECONDS = 0.2
_PR_SET_PDEATHSIG = 1
_STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)


def reserve_port(host: str, port: int) -> socket.socket:
    """Binds (without listening) a ``SO_REUSEPORT`` socket on ``host:port``; raises ``OSError`` if taken.

    A bound socket that does not listen receives no connections, so holding it costs nothing while it
    keeps port 0's choice for the workers to join.
    """
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    return sock


@dataclass
class _Worker:
    index: int
    process: BaseProcess
    ready: Event


class WorkerPool:
    """Runs ``target(index, ready)`` in ``count`` forked processes and keeps them running until stopped.

    ``target`` must call ``ready.set()`` once it listens, then serve until SIGTERM.
    """

    def __init__(
        self,
        target: Callable,
        count: int,
        on_exit: Callable[[int], None] = lambda pid: None,
        graceful_timeout: float = ServingLimits.graceful_timeout,
    ) -> None:
        """``on_exit(pid)`` runs in the supervisor for each worker process that ended (restarted or stopped);
        ``graceful_timeout``: how long each worker waits for its calls under way when stopped."""
        self._context = multiprocessing.get_context("fork")
        self._on_exit = on_exit
        self._target = target
        self._count = count
        self._workers: dict[int, _Worker] = {}
        self._stop_requested = False
        self._stop_timeout = graceful_timeout + STOP_MARGIN_SECONDS

    def start(self) -> bool:
        """Starts every worker and waits until each one listens; False if one failed first.

        A stop requested meanwhile ends the wait early; ``supervise`` then stops the workers.
        """
        for index in range(self._count):
            self._start(index)
        deadline = time.monotonic() + READY_TIMEOUT_SECONDS
        for index in range(self._count):
            while not self._workers[index].ready.wait(POLL_SECONDS):
                if self._stop_requested:
                    return True
                if not self._workers[index].process.is_alive() or time.monotonic() > deadline:
                    log.error("worker %d did not start (exit code %s)", index, self._workers[index].process.exitcode)
                    self.stop()
                    return False
        return True

    def request_stop(self) -> None:
        """Asks ``supervise`` to stop every worker; only sets a flag, so a signal handler may call it."""
        self._stop_requested = True

    def _start(self, index: int) -> None:
        ready = self._context.Event()
        process = self._context.Process(target=self._run, args=(os.getpid(), index, ready), name=f"hms-worker-{index}")
        signal.pthread_sigmask(signal.SIG_BLOCK, _STOP_SIGNALS)  # the child starts with them blocked
        try:
            process.start()
        finally:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOP_SIGNALS)
        self._workers[index] = _Worker(index, process, ready)
        log.info("worker %d started (pid %d)", index, process.pid)

    def _run(self, supervisor: int, index: int, ready: Event) -> None:
        """A worker's life: the default action for the stop signals (not the supervisor's handler), bound to
        its supervisor's life, then ``target``."""
        for signum in _STOP_SIGNALS:
            signal.signal(signum, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOP_SIGNALS)
        _stop_with(supervisor)
        self._target(index, ready)

    def supervise(self) -> int:
        """Restarts workers that die until a stop is requested, then stops them all; returns 0, or 1 if a
        worker failed before it listened."""
        while not self._stop_requested:
            time.sleep(POLL_SECONDS)
            for index, worker in list(self._workers.items()):
                if worker.process.is_alive():
                    continue
                code = worker.process.exitcode
                if not worker.ready.is_set():
                    log.error("worker %d exited with %s before it listened; stopping", index, code)
                    self.stop()
                    return 1
                log.warning("worker %d (pid %d) exited with %s; starting it again", index, worker.process.pid, code)
                if worker.process.pid is not None:  # a started process has its pid
                    self._on_exit(worker.process.pid)
                self._start(index)
        log.info("stopping the workers")
        self.stop()
        return 0

    def stop(self) -> None:
        """Asks every worker to stop (SIGTERM) and waits for them; kills those that do not stop in time."""
        for worker in self._workers.values():
            if worker.process.is_alive():
                worker.process.terminate()
        deadline = time.monotonic() + self._stop_timeout
        for worker in self._workers.values():
            worker.process.join(max(0.0, deadline - time.monotonic()))
            if worker.process.is_alive():
                log.warning("worker %d did not stop in time; killing it", worker.index)
                worker.process.kill()
                worker.process.join()
            if worker.process.pid is not None:
                self._on_exit(worker.process.pid)


def _stop_with(supervisor: int) -> None:
    """Have the kernel send this process SIGTERM when ``supervisor`` (its parent) dies; exit at once if it
    died already (between the fork and this call). Linux only: elsewhere an orphaned worker serves on."""
    if not sys.platform.startswith("linux"):
        return
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0) != 0:
        log.warning("cannot tie the worker to its supervisor: errno %d", ctypes.get_errno())
    if os.getppid() != supervisor:
        os._exit(0)


def install_stop_handlers(pool: WorkerPool) -> None:
    """SIGTERM and SIGINT to the supervisor request a graceful stop of the pool."""

    def _request_stop(signum, _frame) -> None:
        pool.request_stop()

    for signum in _STOP_SIGNALS:
        signal.signal(signum, _request_stop)
