"""What a node holds at most unless told otherwise, from the machine it runs on, and a watch on the
connections it holds against the cap that gRPC enforces without a word.

A player is a connection (an open file) holding an event stream, with its share of a match: about
60 KiB of the server's memory in all (``mercado bench players``, docs/performance.md). So by default

- the event streams are capped at what half the machine's memory (or its cgroup's limit) holds at
  ``PLAYER_BYTES`` each, twice a player's measured cost, for room (shared by ``--workers``);
- the gRPC port's connections at the same, and at the open files left beside the web port's
  connections and ``FILES_KEPT`` of the server's own.

gRPC closes a connection beyond its cap as soon as it is accepted and logs nothing: the caller sees
UNAVAILABLE ("error reading server preface"). ``ConnectionWatch`` counts the process's open files every
few seconds and says in the log when they near that cap or the open-file limit.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from pathlib import Path

log = logging.getLogger("mercado.server")
PLAYER_BYTES = 128 << 10
MEMORY_SHARE = 0.5  # of the machine's memory, the most that players' connections and streams may take
FILES_KEPT = 256  # open files beside the connections: the database, its journal, the event loop's own
FEWEST = 100  # connections and streams a node allows at least, whatever the machine
UNKNOWN_MEMORY_PLAYERS = 10_000  # the caps where the machine's memory cannot be read
CGROUP_MEMORY = Path("/sys/fs/cgroup/memory.max")
WATCH_SECONDS = 5.0  # between two counts of the open files
NEAR = 0.9  # of a cap: what the log warns about
REPEAT_SECONDS = 60.0  # between two warnings while it lasts


def memory_bytes() -> int | None:
    """The memory this process may use: the machine's, or its cgroup's limit when lower (Linux)."""
    try:
        machine = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return None
    try:
        limit = CGROUP_MEMORY.read_text().strip()
    except OSError:
        return machine
    return min(machine, int(limit)) if limit.isdigit() else machine


def players_in_memory(workers: int = 1) -> int:
    """The players (a connection and a stream each) that the memory share holds, for each of
    ``workers`` server processes on the machine."""
    memory = memory_bytes()
    if memory is None:
        return UNKNOWN_MEMORY_PLAYERS // workers
    return max(FEWEST, int(memory * MEMORY_SHARE) // PLAYER_BYTES // workers)


def default_streams(workers: int = 1) -> int:
    """``--max-streams`` unless given: the open event streams of the players the memory share holds."""
    return players_in_memory(workers)


def default_connections(open_files: int, web_connections: int, workers: int = 1) -> int:
    """``--grpc-max-connections`` unless given: the players the memory share holds, and no more than
    the open files left beside the web port's cap and the server's own files."""
    return max(FEWEST, min(players_in_memory(workers), open_files - web_connections - FILES_KEPT))


def files_open() -> int | None:
    """The process's open files (Linux), or None where they cannot be counted."""
    try:
        return len(os.listdir("/proc/self/fd"))
    except OSError:
        return None


class ConnectionWatch:
    """Counts the connections the process holds (its open files, less those it held on listening: the
    ports, the database's, the event loop's own), and warns while they near the gRPC port's cap or the
    open-file limit."""

    def __init__(self, grpc_cap: int, open_files: int) -> None:
        self.grpc_cap = grpc_cap
        self.open_files = open_files
        self.held_at_start = 0
        self.connections = 0  # the last count, for the metrics
        self.warned = -REPEAT_SECONDS

    async def run(self) -> None:
        """Count every few seconds, from a server that listens and holds no connection yet."""
        self.held_at_start = files_open() or 0
        while True:
            await asyncio.sleep(WATCH_SECONDS)
            files = await asyncio.to_thread(files_open)
            if files is None:
                return  # not Linux: nothing to count
            self.seen(files)

    def seen(self, files: int) -> None:
        self.connections = max(0, files - self.held_at_start)
        now = time.monotonic()
        if now - self.warned < REPEAT_SECONDS:
            return
        if self.connections >= NEAR * self.grpc_cap:
            self.warned = now
            log.warning(
                "gRPC connections near their cap (--grpc-max-connections): beyond it, new ones are closed"
                " at once and their callers see UNAVAILABLE",
                extra={"connections": self.connections, "cap": self.grpc_cap},
            )
        elif files >= NEAR * self.open_files:
            self.warned = now
            log.warning(
                "open files near the limit: beyond it, new connections fail (raise the limit: ulimit -n)",
                extra={"files": files, "open_files": self.open_files},
            )
