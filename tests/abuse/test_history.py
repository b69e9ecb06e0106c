"""A long history costs nothing at start and little per call: matches are read from the store when
asked for, through indexes, and memory holds only those in use or recently used."""

from __future__ import annotations

import asyncio
import shutil
import urllib.request
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from mercado.v1 import match_pb2 as api
from mercado_client import MercadoClient
from server_process import AGENT_KEY, ServerProcess, Start

from server.bench.filled import Filled, fill
from server.bench.process import cpu_seconds, memory_mib
from server.match.cache import RESIDENT_SECONDS

LONG, SHORT = 20_000, 500
LIST_CALLS = 150
CLAIMS = 40  # of the short history's 50 bot seats


@pytest.fixture(scope="module")
def histories(tmp_path_factory: pytest.TempPathFactory) -> dict[int, tuple[Path, Filled]]:
    """Databases of a long and a short history, filled once for the module."""
    directory = tmp_path_factory.mktemp("history")
    return {size: (directory / f"{size}.db", fill(directory / f"{size}.db", size)) for size in (LONG, SHORT)}


def _copy(source: Path, target: Path) -> Path:
    shutil.copyfile(source, target)
    return target


def _gauge(server: ServerProcess, name: str) -> float:
    with urllib.request.urlopen(f"http://127.0.0.1:{server.web_port}/metrics", timeout=10) as page:
        for line in page.read().decode().splitlines():
            if line.startswith(f"{name} "):
                return float(line.split()[1])
    raise AssertionError(f"no {name} in /metrics")


async def _server_cpu_per_call(
    server: ServerProcess, calls: int, call: Callable[[], Awaitable[object]]
) -> float:
    """The server's CPU time per call, over ``calls`` calls made one after another."""
    assert server.process is not None
    before = cpu_seconds(server.process.pid)
    for _ in range(calls):
        await call()
    after = cpu_seconds(server.process.pid)
    assert before is not None and after is not None
    return (after - before) / calls


async def _costs(server: ServerProcess, filled: Filled) -> dict[str, float]:
    """What listing waiting matches and claiming bot seats cost, after checking their answers."""
    async with MercadoClient(server.target) as client:
        stub = client.stub
        waiting = api.ListMatchesRequest(status=api.MATCH_STATUS_WAITING, page_size=20)
        listed = await stub.ListMatches(waiting)
        # Newest first: every filled match is a millisecond newer than the one before.
        assert {m.match_id for m in listed.matches} <= {
            *filled.ids["waiting"],
            *filled.ids["waiting-for-a-bot"],
        }
        times = [m.created_unix_ms for m in listed.matches]
        assert times == sorted(times, reverse=True) and len(times) == 20
        agent = (("authorization", f"Bearer {AGENT_KEY}"),)
        claim = api.ClaimBotSeatRequest(agent_name="agent")
        first = await stub.ClaimBotSeat(claim, metadata=agent)
        assert first.match_id == filled.ids["waiting-for-a-bot"][0]  # the oldest
        return {
            "list": await _server_cpu_per_call(server, LIST_CALLS, lambda: stub.ListMatches(waiting)),
            "claim": await _server_cpu_per_call(
                server, CLAIMS, lambda: stub.ClaimBotSeat(claim, metadata=agent)
            ),
        }


async def test_listing_and_claiming_cost_the_same_over_a_long_history(
    start: Start, tmp_path: Path, histories: dict[int, tuple[Path, Filled]]
) -> None:
    costs: dict[int, dict[str, float]] = {}
    for size, (source, filled) in histories.items():
        server = start("--rate-limit-exempt", "127.0.0.0/8", db=_copy(source, tmp_path / f"{size}.db"))
        costs[size] = await _costs(server, filled)
        server.stop()
    # Forty times the matches, about the same cost per call (a full scan would be forty times more).
    for what in ("list", "claim"):
        assert costs[LONG][what] < 3 * costs[SHORT][what], costs


async def test_memory_holds_only_what_is_in_use_or_recent(
    start: Start, tmp_path: Path, histories: dict[int, tuple[Path, Filled]]
) -> None:
    memory: dict[int, float] = {}
    for size, (source, filled) in histories.items():
        db = _copy(source, tmp_path / f"{size}.db")
        server = start(
            "--web-port", "0", "--max-cached-matches", "50", "--rate-limit-exempt", "127.0.0.0/8", db=db
        )
        assert server.process is not None
        assert _gauge(server, "mercado_matches_in_memory") == 0  # nothing is loaded at start
        rss = memory_mib(server.process.pid)
        assert rss is not None
        memory[size] = rss
        async with MercadoClient(server.target) as client:
            for match_id in filled.ids["finished"][:300]:
                state = await client.view(match_id)
                assert state.match.status == api.MATCH_STATUS_FINISHED
            # A match stays at least a second after its last use; then the next one loaded makes room.
            await asyncio.sleep(RESIDENT_SECONDS + 0.5)
            await client.view(filled.ids["finished"][300])
        assert _gauge(server, "mercado_matches_in_memory") <= 50 + 1
        server.stop()
    assert memory[LONG] - memory[SHORT] < 10, memory  # MiB, for 19,500 more stored matches
