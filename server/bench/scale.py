"""``mercado bench scale``: a server over a database with a long history (server.bench.filled).

For each size asked, a database of that many stored matches is filled, then a real server
process is started on it, and this reports:

- its start-up time (spawn to 'listening') and resident memory after start;
- the latency of ListMatches filtered by status, ListMatches unfiltered and ClaimBotSeat, and
  the server CPU time per call of each, which should not grow with the stored matches;
- GetView of matches not in memory (each loaded from the store) and of one that is;
- the matches in memory and the resident memory once ``touch`` matches have been viewed.

The client is exempt from the rate limits (``--rate-limit-exempt``); it talks to the server only
through the public API.
"""

from __future__ import annotations

import asyncio
import tempfile
import time
import urllib.request
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from .filled import fill
from .process import AGENT_KEY, ServerProcess, cpu_seconds, latency_ms, memory_mib

CALL_SECONDS = 30.0


async def _measure(
    server: ServerProcess, calls: int, call: Callable[[int], Awaitable[object]]
) -> dict[str, Any]:
    """``calls`` sequential calls: latencies and the server's CPU time per call."""
    samples = []
    cpu_before = cpu_seconds(server.pid)
    for n in range(calls):
        started = time.perf_counter()
        await call(n)
        samples.append(time.perf_counter() - started)
    cpu_after = cpu_seconds(server.pid)
    cpu_ms = (
        None if cpu_before is None or cpu_after is None else round(1000 * (cpu_after - cpu_before) / calls, 3)
    )
    return {"latency_ms": latency_ms(samples), "server_cpu_ms_per_call": cpu_ms}


def _matches_in_memory(server: ServerProcess) -> float | None:
    with urllib.request.urlopen(f"http://127.0.0.1:{server.web_port}/metrics", timeout=CALL_SECONDS) as page:
        for line in page.read().decode().splitlines():
            if line.startswith("mercado_matches_in_memory "):
                return float(line.split()[1])
    return None


async def _probe(server: ServerProcess, ids: dict[str, list[str]], calls: int, touch: int) -> dict[str, Any]:
    from mercado.v1 import match_pb2 as api
    from mercado_client import MercadoClient

    async with MercadoClient(server.target, reconnect_seconds=CALL_SECONDS) as client:
        stub = client.stub
        waiting = api.ListMatchesRequest(status=api.MATCH_STATUS_WAITING, page_size=20)
        everything = api.ListMatchesRequest(page_size=20)
        claim = api.ClaimBotSeatRequest(agent_name="bench")
        agent = (("authorization", f"Bearer {AGENT_KEY}"),)
        finished = ids["finished"]
        figures = {
            "list_waiting": await _measure(server, calls, lambda _: stub.ListMatches(waiting)),
            "list_all": await _measure(server, calls, lambda _: stub.ListMatches(everything)),
            "claim_bot_seat": await _measure(
                server,
                min(calls, len(ids["waiting-for-a-bot"])),
                lambda _: stub.ClaimBotSeat(claim, metadata=agent),
            ),
            "view_not_in_memory": await _measure(
                server,
                min(calls, len(finished)),
                lambda n: stub.GetView(api.GetViewRequest(match_id=finished[-1 - n])),
            ),
            "view_in_memory": await _measure(
                server, calls, lambda _: stub.GetView(api.GetViewRequest(match_id=finished[-1]))
            ),
        }
        for match_id in finished[:touch]:
            await stub.GetView(api.GetViewRequest(match_id=match_id))
    return figures


def measure(matches: int, calls: int, touch: int, directory: Path) -> dict[str, Any]:
    """Fill a database of ``matches``, start a server on it, probe it."""
    db = directory / f"scale-{matches}.db"
    started = time.perf_counter()
    filled = fill(db, matches)
    fill_seconds = time.perf_counter() - started
    args = [
        "-m",
        "server",
        "serve",
        "--allow-anonymous",
        "--host",
        "127.0.0.1",
        "--port",
        "0",
        "--web-port",
        "0",
        "--db",
        str(db),
    ]
    args += ["--agent-key", AGENT_KEY, "--rate-limit-exempt", "127.0.0.0/8"]
    server = ServerProcess(args, directory / f"scale-{matches}.log").start()
    try:
        memory_at_start = memory_mib(server.pid)
        figures = asyncio.run(_probe(server, filled.ids, calls, touch))
        in_memory = _matches_in_memory(server)
        memory_after = memory_mib(server.pid)
    finally:
        status = server.stop()
    if status != 0:
        raise RuntimeError(f"the server exited with status {status}:\n{server.log_tail()}")
    return {
        "stored_matches": matches,
        "database_mib": round(db.stat().st_size / (1 << 20), 1),
        "fill_seconds": round(fill_seconds, 1),
        "startup_seconds": round(server.startup_seconds, 2),
        "memory_at_start_mib": memory_at_start,
        **figures,
        "matches_viewed": touch,
        "matches_in_memory_after": in_memory,
        "memory_after_mib": memory_after,
    }


def run(sizes: list[int], calls: int = 200, touch: int = 5000) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="mercado-scale-") as tmp:
        return {"runs": [measure(size, calls, touch, Path(tmp)) for size in sizes]}
