"""Root-parallel search: one decision searched k times over, independently, and the root visits summed.

Search ``i`` of a decision is seeded ``seed + i`` and has the level's whole
budget (iterations and time cap), so k searches in k processes take about the
time of one and weigh k times the iterations. The move played is the action
with the most visits over all k, ties going to the first in the order of the
legal actions, as in one search; at a simultaneous step of a game other than
Mercado it is drawn from the summed statistics instead (:func:`ai.ismcts.played`).
With iteration budgets the result depends only on the decision and k, whether
the searches run in a pool or one after another (:func:`decide_in_turn`); with
k = 1 it is the single search's choice.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import random
import time
from collections.abc import Iterable, Mapping
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any

from server.games.mercado import action_by_id, view_coins
from server.games.registry import game_named

from . import ismcts, mcts

# An action as the searches report it: Mercado's by id, any other game's by its canonical JSON.
ActionKey = int | str
Tallies = dict[ActionKey, mcts.Tally]


@dataclass(frozen=True)
class Decision:
    """What one seat has to decide: its game and view, the search's configuration and seed, and in
    Mercado every seat's coins (None: the coins the view hides as :func:`view_coins` fills them in).
    ``deadline`` (a ``time.monotonic()``, the same in every process of the machine): when the seat's
    answer is due, the turn's start plus the level's time cap; a search that starts late, after waiting
    for a worker, has only what is left of it."""

    game: str
    view: dict[str, Any]
    config: mcts.SearchConfig | ismcts.SearchConfig
    seed: int
    coins: list[int] | None = None
    deadline: float | None = None

    def budget(self) -> mcts.SearchConfig | ismcts.SearchConfig:
        """The search's configuration, its time cap cut to what is left before the deadline (none left:
        the search stops at its first look at the clock)."""
        if self.deadline is None:
            return self.config
        left = max(0.0, self.deadline - time.monotonic())
        capped = left if self.config.seconds is None else min(self.config.seconds, left)
        return dataclasses.replace(self.config, seconds=capped)


def root_tallies(decision: Decision, index: int) -> Tallies:
    """Search number ``index`` of ``decision`` (to run in a worker process): the root's tally (visits and
    total reward) of each legal action of the seat, in the order of the legal actions."""
    rng = random.Random(decision.seed + index)
    config = decision.budget()
    if decision.game == "mercado":
        assert isinstance(config, mcts.SearchConfig)
        coins = view_coins(decision.view) if decision.coins is None else decision.coins
        search = mcts.Search(decision.view, coins, config, rng)
        search.run()
        return {key: tally for key, tally in search.root_tallies().items()}  # by id, widened to ActionKey
    assert isinstance(config, ismcts.SearchConfig)
    rules = game_named(decision.game)
    game_search = ismcts.Search(rules, decision.view, config, rng)
    game_search.run()
    return {canonical(rules.action_to_json(a)): tally for a, tally in game_search.root_tallies().items()}


def canonical(action: Mapping[str, Any]) -> str:
    """An action's JSON as one string, the same for equal actions."""
    return json.dumps(action, sort_keys=True, separators=(",", ":"))


def merged(results: Iterable[Tallies]) -> Tallies:
    """The searches' tallies summed per action, in the order of the legal actions."""
    total: Tallies = {}
    for tallies in results:
        for key, (visits, reward) in tallies.items():
            before = total.get(key, mcts.UNTRIED)
            total[key] = mcts.Tally(before.visits + visits, before.total + reward)
    return total


def played(decision: Decision, tallies: Tallies) -> ActionKey:
    """The action ``decision`` plays from its searches' summed ``tallies``: Mercado's most visited (its
    turns are its own), any other game's as :func:`ai.ismcts.played` says, for the step of the view."""
    if isinstance(decision.config, mcts.SearchConfig):
        return ismcts.most_visited(tallies)
    rules = game_named(decision.game)
    step = rules.determinize(decision.view, random.Random(0))  # any position of the view: the same step
    return ismcts.played(rules, step, tallies, decision.config, decision.seed)


def action_json(decision: Decision, key: ActionKey) -> dict[str, Any]:
    """The action (as JSON) that ``key`` stands for in ``decision``'s game."""
    if isinstance(key, int):
        return action_by_id(key).to_json()
    result: dict[str, Any] = json.loads(key)
    return result


def tallies_in_turn(decision: Decision, searches: int) -> Tallies:
    """The tallies of ``searches`` searches of the decision run one after another here, summed."""
    return merged(root_tallies(decision, i) for i in range(searches))


def decide_in_turn(decision: Decision, searches: int) -> dict[str, Any]:
    """The decision's action (as JSON) from ``searches`` searches run one after another here."""
    return action_json(decision, played(decision, tallies_in_turn(decision, searches)))


def tallies_in_pool(executor: Executor, decision: Decision, searches: int) -> Tallies:
    """The tallies of ``searches`` searches of the decision run in ``executor``'s workers, summed."""
    return merged(executor.map(root_tallies, [decision] * searches, range(searches)))


async def decide_in_pool(executor: Executor, decision: Decision, searches: int) -> dict[str, Any]:
    """:func:`decide_in_turn`, its searches run in ``executor``'s workers without blocking the event loop."""
    loop = asyncio.get_running_loop()
    results = await asyncio.gather(
        *(loop.run_in_executor(executor, root_tallies, decision, i) for i in range(searches))
    )
    return action_json(decision, played(decision, merged(results)))
