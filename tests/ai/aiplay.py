"""Helpers of the AI tests: seeded games played by a cheap random policy, and positions taken from them."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass

from server.games.mercado import Action, GameState, Options, apply, legal_actions, new_game
from server.games.mercado.state import FINAL_ROUND, TAKE_OFFER_PHASE


def pick(state: GameState, rng: random.Random, coin_rate: float = 0.1) -> Action:
    """A random legal action that takes a coin only now and then, so games fill the market."""
    actions = legal_actions(state)
    others = [a for a in actions if a.type != "take_coin"]
    if others and rng.random() >= coin_rate:
        return rng.choice(others)
    return rng.choice(actions)


@dataclass
class Step:
    """The state after ``version`` actions, with the action that led to it (None at set-up)."""

    version: int
    state: GameState
    actor: int | None
    action: Action | None


def random_game(players: int, seed: int, money: str = "hidden", coin_rate: float = 0.1) -> Iterator[Step]:
    """Every state of one complete seeded game, set-up first (each a snapshot nobody else holds)."""
    state = new_game(Options(players=players, money="public" if money == "public" else "hidden"), seed)
    rng = random.Random(seed * 7919 + players)
    yield Step(0, state.clone(), None, None)
    version = 0
    while not state.is_terminal:
        actor = state.current_player
        action = pick(state, rng, coin_rate)
        apply(state, action)
        version += 1
        yield Step(version, state.clone(), actor, action)


def interesting_positions(players: int, seed: int, money: str = "hidden") -> list[GameState]:
    """Unfinished states of one game: the set-up, a few points along it, and special phases when they occur.

    Special: the take_offer phase, the final round, a hand that may be redrawn, and a restaurant in the
    hand of the player to move.
    """
    steps = [s for s in random_game(players, seed, money) if not s.state.is_terminal]
    chosen: dict[int, GameState] = {}
    for fraction in (0.0, 0.25, 0.5, 0.75):
        step = steps[int(fraction * (len(steps) - 1))]
        chosen[step.version] = step.state
    special = [
        lambda s: s.phase == TAKE_OFFER_PHASE,
        lambda s: s.status == FINAL_ROUND,
        lambda s: any(a.type == "redraw_hand" for a in legal_actions(s)),
        lambda s: bool(s.restaurant_hands[s.current_player]),
    ]
    for test in special:
        found = next((s for s in steps if test(s.state)), None)
        if found is not None:
            chosen[found.version] = found.state
    return [chosen[v] for v in sorted(chosen)]


def mid_game(players: int, seed: int, money: str = "hidden") -> GameState:
    """A main-phase state about half way through a seeded game, with several legal actions."""
    steps = [s.state for s in random_game(players, seed, money) if not s.state.is_terminal]
    for state in steps[len(steps) // 2 :]:
        if state.phase != TAKE_OFFER_PHASE and len(legal_actions(state)) > 3:
            return state
    raise AssertionError("no main-phase position in the second half of the game")
