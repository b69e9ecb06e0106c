"""The AI's levels: how long and how widely ``mcts`` searches per move.

Each level has an iteration budget and a time cap; on this project's 2-core
reference machine the iteration budget is what binds, so play at a level is
deterministic for a seed. On a slow machine the time cap keeps moves prompt.
Mercado's search (:mod:`ai.mcts`) has its own tuned levels; every other game's
(:mod:`ai.ismcts`, through the games' interface) has ``GAME_LEVELS``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from server.games.mercado import View, action_by_id
from server.games.mercado.sampling import view_coins
from server.games.registry import game_named

from . import ismcts
from .mcts import SearchConfig, choose_action

LEVELS: dict[str, SearchConfig] = {
    # about 60 ms a move
    "easy": SearchConfig(iterations=80, seconds=0.09),
    # about 0.5 s a move
    "medium": SearchConfig(iterations=800, seconds=0.6),
    # about 2 s a move
    "hard": SearchConfig(iterations=3500, seconds=2.2),
}

GAME_LEVELS: dict[str, ismcts.SearchConfig] = {
    "easy": ismcts.SearchConfig(iterations=40, seconds=0.09),
    "medium": ismcts.SearchConfig(iterations=300, seconds=0.6),
    "hard": ismcts.SearchConfig(iterations=1200, seconds=2.2),
}


def decide(view: View, coins: list[int], level: str, seed: int) -> int:
    """The action id a level's search picks for the seat whose view this is (to run in a worker process)."""
    return choose_action(view, coins, LEVELS[level], seed).id


def decide_json(game: str, view: Mapping[str, Any], level: str, seed: int) -> dict[str, Any]:
    """The action (as JSON) a level's search picks for the seat whose view (the rules' JSON) this is,
    in any game: what a worker process plays for a seat whose time ran out. Mercado's search is
    given the coins the view hides as :func:`view_coins` fills them in."""
    if game == "mercado":
        return action_by_id(decide(dict(view), view_coins(dict(view)), level, seed)).to_json()
    rules = game_named(game)
    return rules.action_to_json(ismcts.choose_action(rules, view, GAME_LEVELS[level], seed))
