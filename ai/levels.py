"""The AI's levels: how long and how widely ``mcts`` searches per move.

Each level has an iteration budget and a time cap. The arena plays the budgets
alone, so that a level's play is deterministic for a seed whatever the machine;
elsewhere the cap keeps moves prompt on a slow or busy machine (on the 2-core
reference machine the budgets end Mercado's moves with the engine compiled, and the
cap most moves of hard and expert with it interpreted: docs/ai.md, "Levels").
Mercado's search (:mod:`ai.mcts`) has its own tuned levels; every other game's
(:mod:`ai.ismcts`, through the games' interface) has its ``GAME_LEVELS``, the
same times with the iterations that fit in them, and the play-out length that
played best in ``mercado arena``; their ``expert`` is their ``hard`` search given
the time cap it leaves unused. ``hard`` and ``expert`` search on every core
(root-parallel, :mod:`ai.parallel`): each core runs the whole budget, so a move
takes the same time and weighs as many more iterations as there are cores.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from . import ismcts
from .mcts import SearchConfig
from .parallel import Decision, decide_in_turn

LEVELS: dict[str, SearchConfig] = {
    # about 30 ms a move (the engine compiled; the times below too)
    "easy": SearchConfig(iterations=80, seconds=0.09),
    # about 65 ms a move: hard has 17.5 times its iterations, for a clear step (docs/ai.md, "Levels")
    "medium": SearchConfig(iterations=200, seconds=0.25),
    # about 1.2 s a move
    "hard": SearchConfig(iterations=3500, seconds=2.2),
    # as long as hard: fewer, greedier play-outs (the best of eight actions a move, not three) and a
    # search that explores less (docs/ai.md, "The expert level")
    "expert": SearchConfig(iterations=3100, seconds=2.2, exploration=0.4, rollout_candidates=8),
}

GAME_LEVELS: dict[str, dict[str, ismcts.SearchConfig]] = {
    # a long turn (declare, two actions): play-outs of about five turns
    "oregano": {
        "easy": ismcts.SearchConfig(iterations=30, seconds=0.09, playout_steps=20),
        "medium": ismcts.SearchConfig(iterations=150, seconds=0.6, playout_steps=20),
        "hard": ismcts.SearchConfig(iterations=600, seconds=2.2, playout_steps=20),
        "expert": ismcts.SearchConfig(iterations=1800, seconds=2.2, playout_steps=20),
    },
    # random bids are poor judges: easy and medium play out about one round; hard and expert play
    # nothing out and judge the position by what the rounds left should bring (docs/ai.md)
    "leilao": {
        "easy": ismcts.SearchConfig(iterations=60, seconds=0.09, playout_steps=6),
        "medium": ismcts.SearchConfig(iterations=300, seconds=0.6, playout_steps=6),
        "hard": ismcts.SearchConfig(iterations=2400, seconds=2.2, playout_steps=0, estimate=True),
        "expert": ismcts.SearchConfig(iterations=4800, seconds=2.2, playout_steps=0, estimate=True),
    },
}
# A game without levels of its own (a new one) is searched with these until it is tuned.
DEFAULT_GAME_LEVELS: dict[str, ismcts.SearchConfig] = {
    "easy": ismcts.SearchConfig(iterations=40, seconds=0.09),
    "medium": ismcts.SearchConfig(iterations=200, seconds=0.6),
    "hard": ismcts.SearchConfig(iterations=800, seconds=2.2),
    "expert": ismcts.SearchConfig(iterations=2400, seconds=2.2),
}


# How many root-parallel searches (ai/parallel.py) each level plays a move with; None: one per core.
SEARCHES: dict[str, int | None] = {"easy": 1, "medium": 1, "hard": None, "expert": None}


def level_searches(level: str) -> int:
    """How many searches ``level`` plays a move with on this machine."""
    return SEARCHES[level] or os.cpu_count() or 1


def level_config(game: str, level: str) -> SearchConfig | ismcts.SearchConfig:
    """The search configuration of ``level`` in ``game``: Mercado's own, or the game's."""
    return LEVELS[level] if game == "mercado" else game_levels(game)[level]


def game_levels(game: str) -> dict[str, ismcts.SearchConfig]:
    """The levels of ``game``'s search (any game but Mercado)."""
    return GAME_LEVELS.get(game, DEFAULT_GAME_LEVELS)


def decide_json(
    game: str, view: Mapping[str, Any], level: str, seed: int, coins: list[int] | None = None
) -> dict[str, Any]:
    """The action (as JSON) one search at ``level`` picks for the seat whose view (the rules' JSON)
    this is, in any game (to run in a worker process). Mercado's search is given every seat's
    ``coins``, or when they are not known, the coins the view hides as ``view_coins`` fills them in."""
    return decide_in_turn(Decision(game, dict(view), level_config(game, level), seed, coins), 1)
