"""``mercado bench memory``: what a match holds in the server's memory, in play and finished.

Matches are played in-process through the match service, on a SQLite file, with seeded random
legal actions. After each action every seat's stream message and the mover's answer are rendered
as the server renders them, so a match holds what a streamed one does: its actions with their
events, its current state, and its last update with each seat's rendered bytes. The figures are
the growth of the process's resident memory (protobuf's own allocations included) divided by the
matches; the database is a file, whose page cache SQLite bounds.
"""

from __future__ import annotations

import asyncio
import gc
import multiprocessing
import os
import random
import tempfile
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from server.games.mercado import Options, legal_actions
from server.match import PLAYING, Match, MatchService, Policy
from server.rpc import render
from server.store.sqlite import SqliteStore

from .process import memory_mib

LIVE_ACTIONS = 30  # about halfway through a 2-player game


def _resident_kib() -> float:
    gc.collect()
    resident = memory_mib(os.getpid())
    if resident is None:
        raise RuntimeError("the resident memory of a process is read from /proc (Linux)")
    return resident * 1024


async def _play(
    service: MatchService, match: Match, tokens: list[str], rng: random.Random, until: int
) -> None:
    """Random legal actions, each rendered for every seat, until ``until`` actions or the end."""
    while match.version < until and match.status == PLAYING:
        seat = match.state.current_player
        action = rng.choice(legal_actions(match.state))
        version = match.version
        _, _, update = await service.submit(match.match_id, tokens[seat], version, str(version), action)
        for viewer in range(len(tokens)):
            render.update_bytes(match, update, viewer)
        render.submit_response(match, update, seat)


async def _measure(matches: int, players: int, seed: int, db: Path) -> dict[str, Any]:
    store = SqliteStore(db)
    service = MatchService(store, policy=Policy(allow_chosen_seeds=True, default_clock=None))
    rng = random.Random(seed)
    try:
        empty = _resident_kib()
        played: list[tuple[Match, list[str]]] = []
        for i in range(matches):
            match = await service.create_match(Options(players=players), [None] * players, seed=seed + i)
            tokens = [(await service.join(match.match_id, f"p{seat}")).token for seat in range(players)]
            await _play(service, match, tokens, rng, LIVE_ACTIONS)
            played.append((match, tokens))
        live = _resident_kib()
        for match, tokens in played:
            await _play(service, match, tokens, rng, 10**6)
        finished = _resident_kib()
        actions = sum(match.version for match, _ in played)
    finally:
        store.close()
    return {
        "players": players,
        "matches": matches,
        "kib_per_live_match": round((live - empty) / matches, 1),
        "live_match_actions": LIVE_ACTIONS,
        "kib_per_finished_match": round((finished - empty) / matches, 1),
        "finished_match_actions_mean": round(actions / matches, 1),
    }


def _measure_alone(matches: int, players: int, seed: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="mercado-bench-") as tmp:
        return asyncio.run(_measure(matches, players, seed, Path(tmp) / "bench.db"))


def run(matches: int = 200, seed: int = 1) -> dict[str, Any]:
    """Memory per match in play and per finished match, for 2 and 4 players, each measured in a
    fresh process (memory a process freed is reused by the next measurement, not returned)."""
    results = []
    for players in (2, 4):
        with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as process:
            results.append(process.submit(_measure_alone, matches, players, seed).result())
    return {"results": results}
