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
import time
from multiprocessing.process import BaseProcess
from types import FrameType

from .server import ServerConfig

RESTART_PAUSE_SECONDS = 1.0  # before a worker that died is started again
log = logging.getLogger("mercado.server")


def _run_worker(config: ServerConfig, log_level: str) -> None:
    from server.cli.serve import configure_logging

    from .server import run_event_loop, serve

    configure_logging(log_level)
    run_event_loop(serve(config))


def run_workers(config: ServerConfig, workers: int, log_level: str) -> None:
    """Run ``workers`` servers on ``config``'s ports until SIGTERM or SIGINT, then stop them all."""
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
    while not stopping:
        time.sleep(0.2)
        for index, process in enumerate(running):
            if not process.is_alive() and not stopping:
                log.error(
                    "worker stopped; starting it again", extra={"worker": index, "code": process.exitcode}
                )
                time.sleep(RESTART_PAUSE_SECONDS)
                running[index] = start(index)
    for process in running:
        process.join()
    log.info("stopped")
