"""The AI's levels: how long and how widely ``mcts`` searches per move.

Each level has an iteration budget and a time cap; on this project's 2-core
reference machine the iteration budget is what binds, so play at a level is
deterministic for a seed. On a slow machine the time cap keeps moves prompt.
"""

from __future__ import annotations

import random
from typing import Any

from server.games.mercado import ALL_ACTIONS, View

from .mcts import SearchConfig, choose_action

LEVELS: dict[str, SearchConfig] = {
    # about 60 ms a move
    "easy": SearchConfig(iterations=80, seconds=0.09),
    # about 0.5 s a move
    "medium": SearchConfig(iterations=800, seconds=0.6),
    # about 2 s a move
    "hard": SearchConfig(iterations=3500, seconds=2.2),
}


def decide(view: View, coins: list[int], level: str, seed: int) -> int:
    """The action id a level's search picks for the seat whose view this is (to run in a worker process)."""
    return choose_action(view, coins, LEVELS[level], seed).id


def decide_json(game: str, view: dict[str, Any], level: str, seed: int) -> dict[str, Any]:
    """The action (as JSON) a level picks for the seat whose JSON view this is, in any game."""
    if game == "mercado":
        coins = [coin or 0 for coin in view["coins"]]  # a hidden count is not known to the seat
        return ALL_ACTIONS[decide(view, coins, level, seed)].to_json()
    legal: list[dict[str, Any]] = view["legal_actions"]
    return random.Random(seed).choice(legal)
