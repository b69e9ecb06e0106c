"""``mercado bench actions``: the server's own work per accepted action, without the transport.

Matches are played in-process through the match service on a SQLite file, with seeded random legal
actions, many in play at once as in a server: each round submits one action to each of a batch of
matches together (so their commits are grouped, as the server's are) and then renders each action as
the server renders it, every seat's stream message and the mover's answer. A finished match is
replaced by a new one. The figures are the process's CPU time per action (the SQLite writer
thread's included), for the submissions and for the rendering, and the event loop's thread's alone:
a server's throughput is bound by that thread, and beside the no-game floor server
(``mercado bench server --floor``) it is what the game adds to each action's cost. The actions are
chosen before the clocks start. With no gRPC and no load-generating processes on the same cores,
the figures move far less from run to run than ``bench server``'s, which makes them the steadier way
to compare two builds of the server's own code. Any game may be measured (``--game``); Mercado de
Lisboa by default.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import random
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from server.games.registry import game_named
from server.match import PLAYING, Match, MatchService, Policy, Update
from server.rpc import render
from server.rpc.server import collect_garbage_for_serving, run_event_loop
from server.store.sqlite import SqliteStore


async def _open(service: MatchService, game: str, players: int, seed: int) -> tuple[Match, list[str]]:
    options = game_named(game).options({"players": players})
    match = await service.create_match(options, [None] * players, seed=seed, game=game)
    tokens = [(await service.join(match.match_id, f"p{seat}")).token for seat in range(players)]
    return match, tokens


def _move(match: Match, tokens: list[str], rng: random.Random) -> tuple[str, Any]:
    """A random legal action of a seat to move (of one of them, in a simultaneous step), and its token."""
    rules, state = match.rules, match.state
    movers = sorted(rules.to_move(state))
    seat = movers[0] if len(movers) == 1 else rng.choice(movers)
    return tokens[seat], rng.choice(rules.legal_actions(state, seat))


async def _submit(service: MatchService, match: Match, token: str, action: Any) -> Update:
    version = match.version
    _, _, update = await service.submit(match.match_id, token, version, str(version), action)
    return update


@contextlib.contextmanager
def _collector_as_served() -> Iterator[None]:
    """The garbage collector as a server sets it once it is up, as it was again afterwards."""
    thresholds = gc.get_threshold()
    collect_garbage_for_serving()
    try:
        yield
    finally:
        gc.unfreeze()
        gc.set_threshold(*thresholds)


async def _measure(
    game: str, players: int, matches: int, actions: int, seed: int, db: Path
) -> dict[str, Any]:
    store = SqliteStore(db)
    service = MatchService(store, policy=Policy(allow_chosen_seeds=True, default_clock=None))
    rng = random.Random(seed)
    try:
        live = [await _open(service, game, players, seed + i) for i in range(matches)]
        opened = matches
        submitting = rendering = on_the_loop = 0.0
        done = 0
        with _collector_as_served():
            while done < actions:
                chosen = rng.sample(range(matches), min(matches, actions - done, max(1, matches // 4)))
                for i in chosen:
                    if live[i][0].status != PLAYING:
                        live[i] = await _open(service, game, players, seed + opened)
                        opened += 1
                batch = [live[i] for i in chosen]
                # Chosen before the clock starts: a client's choice is not the server's work.
                moves = [_move(match, tokens, rng) for match, tokens in batch]
                started, loop_started = time.process_time(), time.thread_time()
                submits = [
                    _submit(service, match, token, action)
                    for (match, _), (token, action) in zip(batch, moves, strict=True)
                ]
                updates = await asyncio.gather(*submits)
                submitted = time.process_time()
                for (match, _), update in zip(batch, updates, strict=True):
                    for viewer in range(players):
                        render.update_bytes(match, update, viewer)
                    assert update.record is not None
                    render.submit_response(match, update, update.record.seat)
                rendering += time.process_time() - submitted
                submitting += submitted - started
                on_the_loop += time.thread_time() - loop_started
                done += len(batch)
    finally:
        store.close()
    return {
        "game": game,
        "players": players,
        "matches": matches,
        "actions": done,
        "cpu_us_per_action": round((submitting + rendering) / done * 1e6, 1),
        "submit_cpu_us_per_action": round(submitting / done * 1e6, 1),
        "render_cpu_us_per_action": round(rendering / done * 1e6, 1),
        "event_loop_cpu_us_per_action": round(on_the_loop / done * 1e6, 1),
    }


def run(matches: int = 200, actions: int = 20_000, seed: int = 1, game: str = "mercado") -> dict[str, Any]:
    """CPU per accepted action of ``game``, submitted and rendered, for 2 and 4 players."""
    results = []
    for players in (2, 4):
        with tempfile.TemporaryDirectory(prefix="mercado-bench-") as tmp:
            db = Path(tmp) / "bench.db"
            results.append(run_event_loop(_measure(game, players, matches, actions, seed, db)))
    return {"results": results}
