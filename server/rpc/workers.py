"""``mercado serve --workers N``: N server processes on one machine, sharing the ports.

Python runs one core per process; each worker is a whole server (its own
event loop, caches and streams) and the kernel spreads new connections over
them (SO_REUSEPORT). They share one PostgreSQL database, which orders every
match's actions, and hear of each other's changes through it, as servers on
different machines do. The parent only starts the workers, starts again one
that dies, and passes SIGTERM and SIGINT on: each worker then stops gracefully.
"""

from __future__ import annotations

import logging
import multiprocessing
import signal
import sys
import time
from multiprocessing.process import BaseProcess
from types import FrameType

from .server import ServerConfig

RESTART_PAUSE_SECONDS = 1.0  # before a worker that died is started again
log = logging.getLogger("mercado.server")


def _run_worker(config: ServerConfig, log_level: str) -> None:
    from server.cli.serve import configure_logging
    from server.store import StoreError

    from .server import run_event_loop, serve
    from .web import WebPortUnavailable

    configure_logging(log_level)
    try:
        run_event_loop(serve(config))
    except (StoreError, WebPortUnavailable) as error:
        print(f"mercado serve: {error}", file=sys.stderr)
        sys.exit(2)


def run_workers(config: ServerConfig, workers: int, log_level: str) -> int:
    """Run ``workers`` servers on ``config``'s ports until SIGTERM or SIGINT, then stop them all; the
    exit status: 0, or 2 when a worker could not start (the database cannot be used)."""
    context = multiprocessing.get_context("spawn")
    stopping = False

    def start(index: int) -> BaseProcess:
        process = context.Process(
            target=_run_worker, args=(config, log_level), name=f"mercado-worker-{index}"
        )
        process.start()
        log.info("worker started", extra={"worker": index, "pid": process.pid})
        return process

    def stop(signum: int, _frame: FrameType | None) -> None:
        nonlocal stopping
        stopping = True
        for process in running:
            if process.is_alive() and process.pid is not None:
                process.terminate()  # SIGTERM: a graceful stop

    running = [start(index) for index in range(workers)]
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    status = 0
    while not stopping:
        time.sleep(0.2)
        for index, process in enumerate(running):
            if process.exitcode == 2:  # it said why on stderr; starting it again would say it again
                status = 2
                stop(signal.SIGTERM, None)
            if not process.is_alive() and not stopping:
                log.error(
                    "worker stopped; starting it again", extra={"worker": index, "code": process.exitcode}
                )
                time.sleep(RESTART_PAUSE_SECONDS)
                running[index] = start(index)
    for process in running:
        process.join()
    log.info("stopped")
    return status
