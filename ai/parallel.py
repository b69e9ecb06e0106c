"""Root-parallel search: one decision searched k times over, independently, and the root visits summed.

Search ``i`` of a decision is seeded ``seed + i`` and has the level's whole
budget (iterations and time cap), so k searches in k processes take about the
time of one and weigh k times the iterations. The move played is the action
with the most visits over all k; ties go to the first in the order of the
legal actions, as in one search. With iteration budgets the result depends
only on the decision and k, whether the searches run in a pool or one after
another (:func:`decide_in_turn`); with k = 1 it is the single search's choice.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Iterable, Mapping
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any

from server.games.mercado import action_by_id, view_coins
from server.games.registry import game_named

from . import ismcts, mcts

# An action as the searches report it: Mercado's by id, any other game's by its canonical JSON.
ActionKey = int | str
Visits = dict[ActionKey, int]


@dataclass(frozen=True)
class Decision:
    """What one seat has to decide: its game and view, the search's configuration and seed, and in
    Mercado every seat's coins (None: the coins the view hides as :func:`view_coins` fills them in)."""

    game: str
    view: dict[str, Any]
    config: mcts.SearchConfig | ismcts.SearchConfig
    seed: int
    coins: list[int] | None = None


def root_visits(decision: Decision, index: int) -> Visits:
    """Search number ``index`` of ``decision`` (to run in a worker process): the root's visits of
    each legal action of the seat, in the order of the legal actions."""
    rng = random.Random(decision.seed + index)
    config = decision.config
    if decision.game == "mercado":
        assert isinstance(config, mcts.SearchConfig)
        coins = view_coins(decision.view) if decision.coins is None else decision.coins
        search = mcts.Search(decision.view, coins, config, rng)
        search.run()
        return {key: n for key, n in search.root_visits().items()}  # keyed by id, widened to ActionKey
    assert isinstance(config, ismcts.SearchConfig)
    rules = game_named(decision.game)
    game_search = ismcts.Search(rules, decision.view, config, rng)
    game_search.run()
    return {canonical(rules.action_to_json(a)): n for a, n in game_search.root_visits().items()}


def canonical(action: Mapping[str, Any]) -> str:
    """An action's JSON as one string, the same for equal actions."""
    return json.dumps(action, sort_keys=True, separators=(",", ":"))


def merged(results: Iterable[Visits]) -> Visits:
    """The searches' visits summed per action, in the order of the legal actions."""
    total: Visits = {}
    for visits in results:
        for key, count in visits.items():
            total[key] = total.get(key, 0) + count
    return total


def most_visited(visits: Visits) -> ActionKey:
    """The action with the most visits; of equals, the first in the order of the legal actions."""
    return max(visits, key=lambda key: visits[key])


def action_json(decision: Decision, key: ActionKey) -> dict[str, Any]:
    """The action (as JSON) that ``key`` stands for in ``decision``'s game."""
    if isinstance(key, int):
        return action_by_id(key).to_json()
    result: dict[str, Any] = json.loads(key)
    return result


def visits_in_turn(decision: Decision, searches: int) -> Visits:
    """The visits of ``searches`` searches of the decision run one after another here, summed."""
    return merged(root_visits(decision, i) for i in range(searches))


def decide_in_turn(decision: Decision, searches: int) -> dict[str, Any]:
    """The decision's action (as JSON) from ``searches`` searches run one after another here."""
    return action_json(decision, most_visited(visits_in_turn(decision, searches)))


def visits_in_pool(executor: Executor, decision: Decision, searches: int) -> Visits:
    """The visits of ``searches`` searches of the decision run in ``executor``'s workers, summed."""
    return merged(executor.map(root_visits, [decision] * searches, range(searches)))


async def decide_in_pool(executor: Executor, decision: Decision, searches: int) -> dict[str, Any]:
    """:func:`decide_in_turn`, its searches run in ``executor``'s workers without blocking the event loop."""
    loop = asyncio.get_running_loop()
    results = await asyncio.gather(
        *(loop.run_in_executor(executor, root_visits, decision, i) for i in range(searches))
    )
    return action_json(decision, most_visited(merged(results)))
