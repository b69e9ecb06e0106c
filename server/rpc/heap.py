"""Giving back to the system the memory the C allocator holds free, now and then.

Every stream a client resets leaves about a hundred bytes behind in grpcio (the operations of a
batch that failed or whose awaiter was cancelled: grpc/grpc#43360, in every version up to 1.85).
Scattered through the heap, these pin the free pages between them, which glibc then neither gives
back nor reuses well: resident memory rose about a megabyte with every storm of reset streams while
what the server holds did not. ``malloc_trim`` gives back every free page of the heap, wherever it
is; every TRIM_SECONDS it costs well under a millisecond.
"""

from __future__ import annotations

import asyncio
import ctypes
from collections.abc import Callable

TRIM_SECONDS = 10.0


def malloc_trim() -> Callable[[], object] | None:
    """glibc's ``malloc_trim(0)``; None with another C library (macOS, musl), which has none."""
    try:
        trim = ctypes.CDLL(None).malloc_trim  # the C library the process runs on
    except (OSError, AttributeError):
        return None
    trim.argtypes, trim.restype = [ctypes.c_size_t], ctypes.c_int
    return lambda: trim(0)


async def give_back_free_memory(every: float = TRIM_SECONDS) -> None:
    """Until cancelled: give the heap's free pages back to the system every ``every`` seconds."""
    trim = malloc_trim()
    if trim is None:
        return
    while True:
        await asyncio.sleep(every)
        trim()
