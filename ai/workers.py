"""Worker processes for the searches: spawned, and gone with the process that started them."""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
from concurrent.futures import ProcessPoolExecutor
from multiprocessing.connection import wait
from multiprocessing.context import SpawnContext, SpawnProcess


def search_pool(workers: int) -> ProcessPoolExecutor:
    """A pool of ``workers`` processes. They are spawned, not forked (forking a process that runs
    gRPC threads is unsafe), leave Ctrl-C to their parent (which shuts the pool down) and exit when
    it does, even when it is killed."""
    return ProcessPoolExecutor(max_workers=workers, mp_context=_DeafContext(), initializer=_exit_with_parent)


class _DeafProcess(SpawnProcess):
    """A process that Ctrl-C never reaches, not even while it starts (the terminal sends SIGINT to
    every process of its group): SIGINT is ignored while it is spawned, and an ignored signal stays
    ignored in the program it runs. A Ctrl-C in those few microseconds is lost; another one works."""

    def start(self) -> None:
        if threading.current_thread() is not threading.main_thread():
            super().start()  # only the main thread may set handlers; it is the one that starts them
            return
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            super().start()
        finally:
            signal.signal(signal.SIGINT, previous)


class _DeafContext(SpawnContext):
    Process = _DeafProcess


def _exit_with_parent() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    parent = multiprocessing.parent_process()
    if parent is None:
        return

    def watch() -> None:
        wait([parent.sentinel])
        os._exit(0)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()
