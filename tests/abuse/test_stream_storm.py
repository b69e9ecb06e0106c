"""A storm of streams opened and reset leaves the server's resident memory where it was: what the
C allocator holds free between the bytes grpcio keeps of each reset stream goes back to the system."""

from __future__ import annotations

import pytest
from server_process import Start

from server.bench.storm import resident_mib, settled_mib, storm

STREAMS = 50_000


@pytest.mark.slow
async def test_a_storm_of_reset_streams_leaves_memory_within_a_tenth_of_where_it_started(
    start: Start,
) -> None:
    server = start("--rate-limit-exempt", "127.0.0.0/8", web_port=-1)
    assert server.process is not None
    pid = server.process.pid
    at_start = resident_mib(pid)
    stormed = await storm(server.target, STREAMS)
    after = resident_mib(pid)
    settled = await settled_mib(pid, 1.1 * at_start)
    assert settled <= 1.1 * at_start, (
        f"{STREAMS} streams reset ({stormed}): {at_start} MiB at start, {after} right after, {settled} since"
    )
