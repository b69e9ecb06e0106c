"""Ctrl-C that reaches the game whichever thread the kernel hands it to.

``asyncio.run`` turns the first SIGINT into a cancellation of its task from a Python signal
handler, and Python runs signal handlers in the main thread only, the next time that thread runs.
The kernel may deliver a process's SIGINT to any thread that does not block it (gRPC runs several),
while an idle terminal's main thread sleeps in the event loop until something happens: the Ctrl-C
would wait, unseen, for the next move. A wakeup fd wakes the loop for every signal, whichever
thread took it, and the handler runs then.
"""

from __future__ import annotations

import asyncio
import signal
import socket
import threading
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager, suppress


@contextmanager
def signals_wake(loop: asyncio.AbstractEventLoop) -> Iterator[None]:
    """While inside, every signal wakes ``loop`` (run in the main thread), if nothing else does."""
    if threading.current_thread() is not threading.main_thread():
        yield  # only the main thread may set the wakeup fd
        return
    ours, theirs = socket.socketpair()
    with ours, theirs, ExitStack() as undo:
        ours.setblocking(False)
        theirs.setblocking(False)
        previous = signal.set_wakeup_fd(theirs.fileno(), warn_on_full_buffer=False)
        undo.callback(signal.set_wakeup_fd, previous)
        if previous != -1:  # the loop's own signal handlers wake it already, and need their fd
            signal.set_wakeup_fd(previous)
        else:
            with suppress(NotImplementedError):  # a loop that watches no sockets (Windows' proactor)
                loop.add_reader(ours.fileno(), _drain, ours)
                undo.callback(loop.remove_reader, ours.fileno())
        yield


def _drain(ours: socket.socket) -> None:
    """Read the signal numbers written: the wakeup is all they are for."""
    with suppress(BlockingIOError):
        ours.recv(4096)
