"""Bots for any game behind the interface, each deciding from one seat's view (JSON) alone:
``random``, ``greedy``, ``mcts:<level>`` (:mod:`ai.ismcts`) and ``mcts-argmax:<level>``. Mercado
keeps its own, tuned bots (:mod:`ai.bots`); :func:`bot_for` gives each game's."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Mapping
from typing import Any, Protocol

from server.games.registry import AnyGame, game_named

from .bots import BOT_NAMES, Bot, make_bot, split_searches
from .ismcts import SearchConfig
from .levels import game_levels
from .parallel import Decision, decide_in_turn


class GameBot(Protocol):
    """Anything that picks an action (the game's own) for a seat to move, from that seat's view."""

    name: str

    def choose(self, view: Mapping[str, Any]) -> Any: ...


class RandomGameBot:
    """A uniformly random legal action."""

    def __init__(self, rules: AnyGame, seed: int = 0) -> None:
        self.name = "random"
        self.rules = rules
        self.rng = random.Random(seed)

    def choose(self, view: Mapping[str, Any]) -> Any:
        actions = view["legal_actions"]
        return self.rules.action_from_json(actions[self.rng.randrange(len(actions))])


class GreedyGameBot:
    """The action that raises the seat's own score (``score_now``) most right away, in a position
    drawn from its view; ties at random."""

    def __init__(self, rules: AnyGame, seed: int = 0) -> None:
        self.name = "greedy"
        self.rules = rules
        self.rng = random.Random(seed)

    def choose(self, view: Mapping[str, Any]) -> Any:
        rules, seat = self.rules, view["seat"]
        state = rules.determinize(view, self.rng)
        actions = rules.legal_actions(state, seat)
        gains = []
        for action in actions:
            after = rules.clone(state)
            rules.apply_unchecked(after, seat, action)
            gains.append(rules.score_now(after)[seat])
        best = max(gains)
        return self.rng.choice([a for a, gain in zip(actions, gains, strict=True) if gain == best])


class IsmctsBot:
    """Information Set MCTS (:mod:`ai.ismcts`) with a level's (or any) configuration, ``searches``
    times over (:mod:`ai.parallel`)."""

    def __init__(
        self, rules: AnyGame, config: SearchConfig, name: str = "mcts", seed: int = 0, searches: int = 1
    ) -> None:
        self.name = name
        self.rules = rules
        self.config = config
        self.rng = random.Random(seed)
        self.searches = searches

    def choose(self, view: Mapping[str, Any]) -> Any:
        decision = Decision(self.rules.name, dict(view), self.config, self.rng.getrandbits(63))
        return self.rules.action_from_json(decide_in_turn(decision, self.searches))


def bot_for(game: str, spec: str, seed: int = 0, timed: bool = True) -> Bot | GameBot:
    """The bot ``spec`` (random, greedy, mcts:LEVEL) of ``game``: Mercado's own for ``mercado``
    (:func:`ai.bots.make_bot`), else :func:`game_bot`'s. ValueError for an unknown game or bot."""
    if game == "mercado":
        return make_bot(spec, seed, timed)
    return game_bot(game_named(game), spec, seed, timed)


# The search at a level, playing its most visited action at simultaneous steps too, not one drawn from
# its statistics (docs/ai.md, "Choices nobody can foresee"): the yardstick of the levels' mixed choices.
ARGMAX = "mcts-argmax"
# The search at a level weighing every legal action, the idle ones too (docs/ai.md, "Oregano's idle
# turns"): the yardstick of the games' search_actions.
EVERY = "mcts-every"
GAME_BOT_NAMES = (*BOT_NAMES, f"{ARGMAX}:LEVEL", f"{EVERY}:LEVEL")


def game_bot(rules: AnyGame, spec: str, seed: int = 0, timed: bool = True) -> GameBot:
    """The bot ``spec`` of this module for a game (mcts: one of its levels, ``game_levels``, with
    ``@N`` for N searches; mcts-argmax: the same never drawing its choice; mcts-every: the same
    weighing every legal action; ``timed=False``: the level's iterations, no time cap)."""
    if spec == "random":
        return RandomGameBot(rules, seed)
    if spec == "greedy":
        return GreedyGameBot(rules, seed)
    name, searches = split_searches(spec)
    kind, _, level = name.partition(":")
    levels = game_levels(rules.name)
    if kind in ("mcts", ARGMAX, EVERY) and level in levels:
        config = levels[level] if timed else dataclasses.replace(levels[level], seconds=None)
        if kind == ARGMAX:
            config = dataclasses.replace(config, temperature=None)
        if kind == EVERY:
            config = dataclasses.replace(config, every_action=True)
        return IsmctsBot(rules, config, spec, seed, searches)
    raise ValueError(f"unknown bot {spec!r}; choose from {', '.join(GAME_BOT_NAMES)}")
