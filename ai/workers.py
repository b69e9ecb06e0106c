"""Worker processes for the searches: spawned, and gone with the process that started them."""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
from concurrent.futures import ProcessPoolExecutor
from multiprocessing.connection import wait


def search_pool(workers: int) -> ProcessPoolExecutor:
    """A pool of ``workers`` processes. They are spawned, not forked (forking a process that runs
    gRPC threads is unsafe), leave Ctrl-C to their parent (which shuts the pool down) and exit when
    it does, even when it is killed."""
    return ProcessPoolExecutor(
        max_workers=workers, mp_context=multiprocessing.get_context("spawn"), initializer=_exit_with_parent
    )


def _exit_with_parent() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    parent = multiprocessing.parent_process()
    if parent is None:
        return

    def watch() -> None:
        wait([parent.sentinel])
        os._exit(0)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()
