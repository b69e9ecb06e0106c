"""Baseline bots, the yardsticks for stronger play: ``random`` and ``greedy``."""

from __future__ import annotations

import random
from typing import Protocol

from server.engine import Action, GameState, customer_income, legal_actions, stand_cost, stand_income

# Greedy's preference among actions of equal immediate gain: grow the market first.
_KIND_PREFERENCE = {
    "bring_customer": 5,
    "open_stand": 4,
    "open_restaurant": 3,
    "take_offer": 2,
    "take_coin": 1,
}


class Bot(Protocol):
    """Anything that picks an action for the player to move."""

    def choose(self, state: GameState) -> Action: ...


class RandomBot:
    """A uniformly random legal action."""

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def choose(self, state: GameState) -> Action:
        actions = legal_actions(state)
        return actions[self.rng.randrange(len(actions))]


def immediate_gain(state: GameState, action: Action) -> int:
    """Coins the action earns the player to move right now (negative when it costs)."""
    kind = action.type
    if kind == "open_stand":
        return stand_income(state, action.good, action.square) - stand_cost(state, action.square)
    if kind == "bring_customer":
        return customer_income(state, action.customer, action.entrance)[state.current_player]
    if kind in ("take_coin", "open_restaurant"):
        # A placed restaurant also avoids the final -1 for holding it.
        return 2 if kind == "open_restaurant" else 1
    return 0


class GreedyBot:
    """The best immediate coin gain; ties go to the action that grows the market, then at random."""

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def choose(self, state: GameState) -> Action:
        actions = legal_actions(state)
        keys = [(immediate_gain(state, a), _KIND_PREFERENCE.get(a.type, 0)) for a in actions]
        best = max(keys)
        return self.rng.choice([a for a, key in zip(actions, keys, strict=True) if key == best])


BOTS: dict[str, type[RandomBot] | type[GreedyBot]] = {"random": RandomBot, "greedy": GreedyBot}


def make_bot(name: str, seed: int = 0) -> Bot:
    """A baseline bot by name."""
    if name not in BOTS:
        raise ValueError(f"unknown bot {name!r}; choose from {', '.join(BOTS)}")
    return BOTS[name](seed)
