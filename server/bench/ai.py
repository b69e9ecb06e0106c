"""``mercado bench ai``: search speed at the start, middle and end of a game, and time per move per level."""

from __future__ import annotations

import random
import time
from typing import Any

from ai.levels import LEVELS
from ai.mcts import Search, SearchConfig
from server.games.mercado import GameState, Options, apply, legal_actions, new_game, player_view

# How many actions into a seeded greedy-ish game each phase is sampled.
PHASES = {"start": 0, "middle": 20, "end": 38}


def position_after(actions: int, seed: int) -> GameState:
    """A 2-player game after ``actions`` random legal actions (at the start of a turn)."""
    rng = random.Random(seed)
    state = new_game(Options(players=2), seed)
    while actions > 0 or state.phase != 0:
        moves = legal_actions(state)
        apply(state, moves[rng.randrange(len(moves))])
        actions -= 1
    return state


def iterations_per_second(state: GameState, seconds: float, seed: int) -> float:
    view = player_view(state, state.current_player)
    search = Search(
        view, list(state.coins), SearchConfig(iterations=10**9, seconds=seconds), random.Random(seed)
    )
    start = time.perf_counter()
    search.run()
    return search.iterations / (time.perf_counter() - start)


def seconds_per_move(level: str, positions: list[GameState], seed: int) -> dict[str, float]:
    times = []
    for state in positions:
        view = player_view(state, state.current_player)
        search = Search(view, list(state.coins), LEVELS[level], random.Random(seed))
        start = time.perf_counter()
        search.run()
        times.append(time.perf_counter() - start)
    return {"mean": round(sum(times) / len(times), 3), "max": round(max(times), 3)}


def run(seconds: float, seed: int) -> dict[str, Any]:
    positions = {phase: position_after(n, seed) for phase, n in PHASES.items()}
    report: dict[str, Any] = {
        "iterations_per_second": {
            phase: round(iterations_per_second(state, seconds, seed)) for phase, state in positions.items()
        },
        "seconds_per_move": {
            level: seconds_per_move(level, list(positions.values()), seed) for level in LEVELS
        },
        "levels": {
            level: {"iterations": c.iterations, "time_cap_seconds": c.seconds} for level, c in LEVELS.items()
        },
    }
    return report
