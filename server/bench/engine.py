"""``mercado bench engine``: seeded random games through the engine's fast path."""

from __future__ import annotations

import random
import resource
import time
from typing import Any

from server.compiled import build_of
from server.games.mercado import GameState, Options, apply_unchecked, legal_actions, new_game, rules


def play_random_game(players: int, seed: int) -> GameState:
    """One complete game of uniformly random legal actions."""
    rng = random.Random(seed)
    state = new_game(Options(players=players), seed)
    while not state.is_terminal:
        actions = legal_actions(state)
        apply_unchecked(state, actions[rng.randrange(len(actions))])
    return state


def games_per_second(players: int, games: int) -> float:
    start = time.perf_counter()
    for seed in range(games):
        play_random_game(players, seed)
    return games / (time.perf_counter() - start)


def call_costs(players: int, games: int) -> dict[str, float]:
    """Mean microseconds per legal-action generation and per apply, and mean actions per game."""
    legal_time = apply_time = 0.0
    calls = legal_count = 0
    clock = time.perf_counter
    for seed in range(games):
        rng = random.Random(seed)
        state = new_game(Options(players=players), seed)
        while not state.is_terminal:
            t0 = clock()
            actions = legal_actions(state)
            t1 = clock()
            action = actions[rng.randrange(len(actions))]
            t2 = clock()
            apply_unchecked(state, action)
            t3 = clock()
            legal_time += t1 - t0
            apply_time += t3 - t2
            calls += 1
            legal_count += len(actions)
    return {
        "legal_actions_us": round(1e6 * legal_time / calls, 2),
        "apply_us": round(1e6 * apply_time / calls, 2),
        "mean_legal_actions": round(legal_count / calls, 1),
        "mean_actions_per_game": round(calls / games, 1),
    }


def run(games: int) -> dict[str, Any]:
    """All figures of the engine benchmark."""
    report: dict[str, Any] = {"games": games, "engine": build_of(rules.__file__)}
    for players in (2, 4):
        report[f"{players}p"] = {
            "games_per_second": round(games_per_second(players, games), 1),
            **call_costs(players, max(1, games // 4)),
        }
    # ru_maxrss is in KiB on Linux.
    report["peak_memory_mib"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    return report
