"""Bots: the baselines ``random`` and ``greedy`` (the yardsticks) and ``mcts`` at its levels.

Every bot decides from one seat's view and every seat's coins (known, or
reconstructed from the public history by :class:`ai.observation.CoinTracker`);
none ever sees the true state. ``mcts:LEVEL@N`` searches each move N times over,
one search after another, and plays the most visited action of all
(:mod:`ai.parallel`: the same move as N searches in N processes).
"""

from __future__ import annotations

import dataclasses
import random
from typing import Protocol

from server.games.mercado import Action, View, action_from_json, legal_actions, visible_state

from .heuristics import immediate_gain
from .levels import LEVELS
from .mcts import SearchConfig
from .parallel import Decision, decide_in_turn

# Greedy's preference among actions of equal immediate gain: grow the market first.
_KIND_PREFERENCE = {
    "bring_customer": 5,
    "open_stand": 4,
    "open_restaurant": 3,
    "take_offer": 2,
    "take_coin": 1,
}


class Bot(Protocol):
    """Anything that picks an action for the seat to move from that seat's view."""

    name: str

    def choose(self, view: View, coins: list[int]) -> Action: ...


class RandomBot:
    """A uniformly random legal action."""

    def __init__(self, seed: int = 0) -> None:
        self.name = "random"
        self.rng = random.Random(seed)

    def choose(self, view: View, coins: list[int]) -> Action:
        actions = legal_actions(visible_state(view, coins))
        return actions[self.rng.randrange(len(actions))]


class GreedyBot:
    """The best immediate coin gain; ties go to the action that grows the market, then at random."""

    def __init__(self, seed: int = 0) -> None:
        self.name = "greedy"
        self.rng = random.Random(seed)

    def choose(self, view: View, coins: list[int]) -> Action:
        state = visible_state(view, coins)
        actions = legal_actions(state)
        keys = [(immediate_gain(state, a), _KIND_PREFERENCE.get(a.type, 0)) for a in actions]
        best = max(keys)
        return self.rng.choice([a for a, key in zip(actions, keys, strict=True) if key == best])


class MctsBot:
    """Information Set MCTS with a level's (or any) search configuration, ``searches`` times over."""

    def __init__(self, config: SearchConfig, name: str = "mcts", seed: int = 0, searches: int = 1) -> None:
        self.name = name
        self.config = config
        self.rng = random.Random(seed)
        self.searches = searches

    def choose(self, view: View, coins: list[int]) -> Action:
        decision = Decision("mercado", view, self.config, self.rng.getrandbits(63), coins)
        return action_from_json(decide_in_turn(decision, self.searches))


BOT_NAMES = ("random", "greedy", *(f"mcts:{level}" for level in LEVELS))
# OpenSpiel's search bots (ai/openspiel/bots.py), with N simulations a move; OpenSpiel is optional.
OPENSPIEL_BOTS = ("openspiel-ismcts:N", "openspiel-mcts:N")


def split_searches(spec: str) -> tuple[str, int]:
    """A bot spec without its ``@N`` suffix, and N (1 without one). ValueError for a bad N."""
    name, at, count = spec.partition("@")
    if not at:
        return spec, 1
    if not count.isdigit() or int(count) < 1:
        raise ValueError(f"bad search count in {spec!r}: mcts:LEVEL@N takes a whole number N >= 1")
    return name, int(count)


def make_bot(name: str, seed: int = 0, timed: bool = True) -> Bot:
    """A bot by name: random, greedy, mcts:LEVEL[@N] (``timed=False``: the level's iterations, no
    time cap; without ``@N`` every level searches once, ``hard`` too), or one of OpenSpiel's
    (OPENSPIEL_BOTS)."""
    if name == "random":
        return RandomBot(seed)
    if name == "greedy":
        return GreedyBot(seed)
    spec, searches = split_searches(name)
    kind, _, level = spec.partition(":")
    if kind == "mcts" and level in LEVELS:
        config = LEVELS[level] if timed else dataclasses.replace(LEVELS[level], seconds=None)
        return MctsBot(config, name, seed, searches)
    if kind.startswith("openspiel-"):
        return _openspiel_bot(name, seed)
    raise ValueError(f"unknown bot {name!r}; choose from {', '.join(BOT_NAMES + OPENSPIEL_BOTS)}")


def _openspiel_bot(name: str, seed: int) -> Bot:
    try:
        from .openspiel.bots import openspiel_bot
    except ImportError:
        raise ValueError(f"{name} needs OpenSpiel: pip install 'mercado[openspiel]'") from None
    return openspiel_bot(name, seed)
