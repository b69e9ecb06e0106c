"""``mercado bench matchmaking``: the matchmaker's pure grouping over a simulated queue.

Players of random ratings arrive as a Poisson process (given their number, their
arrival times are uniform over the span), each asking for a match of some size,
some allowing bots. As the server's ``Matchmaker`` does, ``group`` runs when a
player queues into an empty queue and then every TICK_SECONDS while anyone
waits; here the clock is simulated (no sleeping, no server), so the figures are
the algorithm's alone: how long players wait, how close in rating their matches
are, how many get bots, and how long the grouping itself takes.
"""

from __future__ import annotations

import math
import random
import statistics
import time
from collections.abc import Mapping, Sequence
from typing import Any

from server.match import BOT_LEVELS
from server.players.matchmaking import TICK_SECONDS, WINDOW_MAX, Group, Seeker, group, window
from server.store.records import DEFAULT_MU, bot_player_id

RATING_MEAN = 25.0  # OpenSkill's default mu: where the players' ratings centre...
RATING_SD = 8.0  # ...and how widely they spread
SIZES = {"2": (2,), "3": (3,), "4": (4,), "mix": (2, 3, 4)}  # --size: each player's match size, drawn


def bot_means(ratings: Mapping[str, tuple[float, float]] | None) -> dict[str, float]:
    """Each bot level's rating mean, as a server started with these bot ratings (``mercado serve
    --bot-ratings``) first has them: a level the file leaves out at the default."""
    return {level: (ratings or {}).get(bot_player_id(level), (DEFAULT_MU, 0.0))[0] for level in BOT_LEVELS}


def seekers(
    players: int, span: float, sizes: Sequence[int], allow_ai_share: float, seed: int
) -> list[Seeker]:
    """The simulated players, in order of arrival."""
    rng = random.Random(seed)
    arrivals = sorted(rng.uniform(0.0, span) for _ in range(players))
    return [
        Seeker(
            player_id=f"p{number}",
            display_name=f"p{number}",
            rating=rng.gauss(RATING_MEAN, RATING_SD),
            players=rng.choice(sizes),
            allow_ai=rng.random() < allow_ai_share,
            since=arrival,
        )
        for number, arrival in enumerate(arrivals)
    ]


def percentile(samples: Sequence[float], fraction: float) -> float:
    """The nearest-rank percentile."""
    if not samples:
        return 0.0
    ordered = sorted(samples)
    return ordered[max(0, math.ceil(fraction * len(ordered)) - 1)]


def stuck(queue: Sequence[Seeker], now: float, ai_wait: float, bot_ratings: Mapping[str, float]) -> bool:
    """Whether no later tick can match anyone of ``queue`` (none arriving): every window is as wide as
    it gets and everyone who may have bots has had them offered; too few are left for a match."""
    return all(
        window(now - s.since) >= WINDOW_MAX and not (s.allow_ai and bot_ratings and now - s.since < ai_wait)
        for s in queue
    )


def simulate(
    arriving: Sequence[Seeker], ai_wait: float, bot_ratings: Mapping[str, float]
) -> tuple[list[tuple[float, Group]], list[Seeker], dict[str, float]]:
    """Run the grouping over ``arriving`` (by arrival): each match made with when, the players never
    matched, and the grouping's own cost (wall time, ticks, the longest queue)."""
    made: list[tuple[float, Group]] = []
    queue: list[Seeker] = []
    ahead = list(arriving)
    next_arrival = 0
    start = now = 0.0
    ticks = 0
    since_start = 0
    wall = longest_tick = 0.0
    peak = 0
    while next_arrival < len(ahead) or queue:
        if not queue:  # the server's ticker starts when someone queues into an empty queue
            start = now = ahead[next_arrival].since
            since_start = 0
        else:
            since_start += 1
            now = start + since_start * TICK_SECONDS
        while next_arrival < len(ahead) and ahead[next_arrival].since <= now:
            queue.append(ahead[next_arrival])
            next_arrival += 1
        peak = max(peak, len(queue))
        began = time.perf_counter()
        groups = group(queue, now, ai_wait, {"mercado": bot_ratings})  # every simulated player's game
        took = time.perf_counter() - began
        wall += took
        longest_tick = max(longest_tick, took)
        ticks += 1
        matched = {id(s) for found in groups for s in found.seekers}
        queue = [s for s in queue if id(s) not in matched]
        made.extend((now, found) for found in groups)
        if not groups and next_arrival == len(ahead) and stuck(queue, now, ai_wait, bot_ratings):
            break
    cost = {"wall_seconds": wall, "ticks": ticks, "longest_tick_seconds": longest_tick, "peak_queue": peak}
    return made, queue, cost


def run(
    players: int,
    span: float,
    size: str,
    allow_ai_share: float,
    ai_wait: float,
    seed: int,
    bot_ratings: Mapping[str, float],
) -> dict[str, Any]:
    """All figures of the matchmaking benchmark."""
    made, unmatched, cost = simulate(
        seekers(players, span, SIZES[size], allow_ai_share, seed), ai_wait, bot_ratings
    )
    waits = [at - s.since for at, found in made for s in found.seekers]
    matched = len(waits)
    with_people = [found.spread for _, found in made if len(found.seekers) > 1]
    with_bots = sum(len(found.seekers) for _, found in made if found.bots)
    sizes: dict[str, int] = {}
    for _, found in made:
        key = str(len(found.seekers) + len(found.bots))
        sizes[key] = sizes.get(key, 0) + 1
    return {
        "players": players,
        "arrival_span_seconds": span,
        "size": size,
        "allow_ai_share": allow_ai_share,
        "ai_wait_seconds": ai_wait,
        "bot_ratings": {level: round(mu, 2) for level, mu in bot_ratings.items()},
        "rating_mu": {"mean": RATING_MEAN, "sd": RATING_SD},
        "seed": seed,
        "tick_seconds": TICK_SECONDS,
        "players_matched": matched,
        "players_unmatched": len(unmatched),
        "matches": len(made),
        "matches_by_size": dict(sorted(sizes.items())),
        "matches_with_bots": sum(1 for _, found in made if found.bots),
        "seconds_to_match": {
            "median": round(statistics.median(waits), 3) if waits else 0.0,
            "p99": round(percentile(waits, 0.99), 3),
            "max": round(max(waits, default=0.0), 3),
        },
        # Of the matches of two people or more (with one, and bots, there is no spread).
        "rating_spread": {
            "mean": round(statistics.fmean(with_people), 3) if with_people else 0.0,
            "max": round(max(with_people, default=0.0), 3),
            "window_max": WINDOW_MAX,
        },
        "matched_with_bots_share": round(with_bots / matched, 4) if matched else 0.0,
        "grouping": {
            "wall_seconds": round(cost["wall_seconds"], 4),
            "ticks": int(cost["ticks"]),
            "mean_tick_us": round(1e6 * cost["wall_seconds"] / max(1, cost["ticks"]), 1),
            "longest_tick_ms": round(1000 * cost["longest_tick_seconds"], 3),
            "peak_queue": int(cost["peak_queue"]),
        },
    }
