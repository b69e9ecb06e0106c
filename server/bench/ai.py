"""``mercado bench ai``: search speed at the start, middle and end of a game, time per move per level,
a move's iterations and time with its searches spread over 1, 2, ... worker processes, and where a
search's time goes (cProfile)."""

from __future__ import annotations

import cProfile
import dataclasses
import os
import pstats
import random
import statistics
import sysconfig
import time
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from ai import ismcts
from ai.levels import LEVELS, game_levels
from ai.mcts import Search, SearchConfig
from ai.parallel import Decision, tallies_in_pool
from ai.workers import search_pool
from server.compiled import build_of
from server.games.mercado import GameState, Options, apply, legal_actions, new_game, player_view, rules
from server.games.registry import AnyGame, game_named

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


def by_workers(decisions: list[Decision], workers: Iterable[int]) -> dict[str, dict[str, float]]:
    """For each count k of workers: each decision searched k times over in a pool of k processes
    (root-parallel, :mod:`ai.parallel`; the pool's start not counted), the mean time and iterations
    a move took, and the iterations per second over all of them."""
    report = {}
    for k in workers:
        with search_pool(k) as pool:
            warm_up = dataclasses.replace(decisions[0].config, iterations=1, seconds=None)
            tallies_in_pool(pool, dataclasses.replace(decisions[0], config=warm_up), k)
            times, iterations = [], []
            for decision in decisions:
                start = time.perf_counter()
                tallies = tallies_in_pool(pool, decision, k)
                times.append(time.perf_counter() - start)
                iterations.append(
                    sum(t.visits for t in tallies.values())
                )  # each iteration visits one root action
        report[str(k)] = {
            "seconds_per_move": round(statistics.fmean(times), 3),
            "iterations_per_move": round(statistics.fmean(iterations)),
            "iterations_per_second": round(sum(iterations) / sum(times)),
        }
    return report


# How many of the functions that took most of a profiled search's own time the report lists.
TOP_FUNCTIONS = 12


def where_the_time_goes(search: Callable[[], object], path: Path) -> dict[str, Any]:
    """Run ``search`` under cProfile, write its statistics to ``path`` (for ``python -m pstats`` or
    snakeviz) and report the shares of its time spent in each source file's own code and in the
    functions that took most (cProfile's own cost per call weighs on small functions: the shares are a
    guide, not a measure)."""
    profiler = cProfile.Profile()
    profiler.runcall(search)
    profiler.dump_stats(path)
    # pstats keys each function (file, line, name) to (primitive calls, calls, own time, total, callers).
    rows = pstats.Stats(profiler).stats  # type: ignore[attr-defined]
    total = sum(row[2] for row in rows.values()) or 1.0
    by_file: Counter[str] = Counter()
    for (file, _, _), row in rows.items():
        by_file[_source(file)] += row[2]
    busiest = sorted(rows.items(), key=lambda item: item[1][2], reverse=True)[:TOP_FUNCTIONS]
    return {
        "seconds": round(total, 3),
        "by_file": {file: round(seconds / total, 3) for file, seconds in by_file.most_common()},
        "functions": [
            {
                "function": f"{_source(file)}:{line}({name})",
                "share": round(row[2] / total, 3),
                "calls": row[1],
            }
            for (file, line, name), row in busiest
        ],
    }


def _source(file: str) -> str:
    """A profiled function's file as the report names it: relative to the working directory or to
    Python's standard library (``stdlib/random.py``), or as cProfile names it (``~`` for built-ins)."""
    for root, prefix in ((os.getcwd(), ""), (sysconfig.get_path("stdlib"), "stdlib/")):
        if file.startswith(root + os.sep):
            return prefix + os.path.relpath(file, root)
    return file


def machine() -> dict[str, Any]:
    """The cores, the load (1-minute average) the figures were measured under (others' processes
    take cores from the workers), and whether the rules engine was compiled (``make compile``)."""
    return {
        "cores": os.cpu_count(),
        "load_average": round(os.getloadavg()[0], 2),
        "engine": build_of(rules.__file__),
    }


def run(
    seconds: float,
    seed: int,
    levels: Iterable[str] = LEVELS,
    workers: Iterable[int] = (1, 2),
    profile: Path | None = None,
) -> dict[str, Any]:
    """Mercado's report; with ``profile``, also where the time of a search of the middle position goes."""
    positions = {phase: position_after(n, seed) for phase, n in PHASES.items()}
    views = [(player_view(state, state.current_player), list(state.coins)) for state in positions.values()]
    report: dict[str, Any] = {
        "machine": machine(),
        "iterations_per_second": {
            phase: round(iterations_per_second(state, seconds, seed)) for phase, state in positions.items()
        },
        "seconds_per_move": {
            level: seconds_per_move(level, list(positions.values()), seed) for level in levels
        },
        "by_workers": {
            level: by_workers(
                [Decision("mercado", view, LEVELS[level], seed, coins) for view, coins in views], workers
            )
            for level in levels
        },
        "levels": {
            level: {"iterations": c.iterations, "time_cap_seconds": c.seconds} for level, c in LEVELS.items()
        },
    }
    if profile is not None:
        middle = positions["middle"]
        report["profile"] = where_the_time_goes(lambda: iterations_per_second(middle, seconds, seed), profile)
    return report


# --- any other game, through the interface ------------------------------------------------------

# Where in a seeded random 2-player game each phase is sampled, as a fraction of its moves.
GAME_PHASES = {"start": 0.0, "middle": 0.5, "end": 0.9}


def game_positions(rules: AnyGame, seed: int) -> dict[str, tuple[Any, int]]:
    """Each phase's position of one random 2-player game and a seat to move there with a choice."""
    rng = random.Random(seed)
    state = rules.new_game(rules.options({"players": 2}), seed)
    history = []
    while not rules.is_over(state):
        seat = min(rules.to_move(state))
        actions = rules.legal_actions(state, seat)
        if len(actions) > 1:
            history.append((rules.clone(state), seat))
        rules.apply(state, seat, actions[rng.randrange(len(actions))])
    return {phase: history[int(at * (len(history) - 1))] for phase, at in GAME_PHASES.items()}


def _search(
    rules: AnyGame, position: tuple[Any, int], config: ismcts.SearchConfig, seed: int
) -> tuple[float, int]:
    """One search of the seat's decision: the seconds it took and its iterations."""
    state, seat = position
    search = ismcts.Search(rules, rules.view(state, seat), config, random.Random(seed))
    start = time.perf_counter()
    search.run()
    return time.perf_counter() - start, search.iterations


def run_game(
    name: str,
    seconds: float,
    seed: int,
    levels: Iterable[str] = LEVELS,
    workers: Iterable[int] = (1, 2),
    profile: Path | None = None,
) -> dict[str, Any]:
    """``run`` for any game but Mercado: its ISMCTS (:mod:`ai.ismcts`) at its levels (``game_levels``)."""
    rules = game_named(name)
    positions = game_positions(rules, seed)
    unbounded = ismcts.SearchConfig(iterations=10**9, seconds=seconds)
    speed = {}
    for phase, position in positions.items():
        elapsed, iterations = _search(rules, position, unbounded, seed)
        speed[phase] = round(iterations / elapsed)
    per_move = {}
    for level in levels:
        times = [
            _search(rules, position, game_levels(name)[level], seed)[0] for position in positions.values()
        ]
        per_move[level] = {"mean": round(sum(times) / len(times), 3), "max": round(max(times), 3)}
    views = [rules.view(state, seat) for state, seat in positions.values()]
    report: dict[str, Any] = {
        "game": name,
        "machine": machine(),
        "iterations_per_second": speed,
        "seconds_per_move": per_move,
        "by_workers": {
            level: by_workers(
                [Decision(name, view, game_levels(name)[level], seed) for view in views], workers
            )
            for level in levels
        },
        "levels": {
            level: {"iterations": c.iterations, "time_cap_seconds": c.seconds}
            for level, c in game_levels(name).items()
        },
    }
    if profile is not None:
        middle = positions["middle"]
        report["profile"] = where_the_time_goes(lambda: _search(rules, middle, unbounded, seed), profile)
    return report
