"""Determinizations: complete game states consistent with one seat's view.

The view (``player_view``) hides face-down restaurant
identities, the bag, the customer decks and, with hidden money, the other
seats' coins. A sample fills them in: face-down squares from the restaurants
not yet seen, the bag and each deck shuffled from the tiles not visible, and
coins from what the caller reconstructed (every payment follows from public
information, so a seat can always work out every seat's coins). A search on
samples never sees the true state.

A view alone does not tell hidden coins (the history does): :func:`determinize`,
which has only the view, takes each hidden count to be the viewer's own.
"""

from __future__ import annotations

import functools
import random
from collections import Counter
from collections.abc import Callable
from typing import Any, Final

from . import position
from .components import (
    BOARD_RESTAURANTS,
    GOODS,
    RESTAURANTS,
    SET_ASIDE_RESTAURANT,
    SET_ASIDE_USED_WITH_PLAYERS,
    STAND_TILES_PER_GOOD,
    STARTING_COINS,
)
from .geometry import CUSTOMER_DECKS, GOOD_INDEX, RESTAURANT_INDEX, SQUARE_INDEX, customer_kind
from .state import GameState

View = dict[str, Any]


def _remaining(pool: Counter[Any], seen: list[Any]) -> list[Any]:
    """The pool less what was seen (never below zero), as a sorted list."""
    left = pool.copy()
    left.subtract(seen)
    return sorted(left.elements())


def _fill(pool: list[int], size: int, rng: random.Random, random_tile: Callable[[], int]) -> list[int]:
    """``size`` tiles drawn from ``pool``; a fixture that does not account for every tile gets random ones."""
    tiles = pool[:]
    rng.shuffle(tiles)
    while len(tiles) < size:
        tiles.append(random_tile())
    return tiles[:size]


class Determinizer:
    """Samples complete states consistent with one view; build once per decision, sample per iteration."""

    def __init__(self, view: View, coins: list[int]) -> None:
        players = view["options"]["players"]

        restaurants = Counter(BOARD_RESTAURANTS)
        if players == SET_ASIDE_USED_WITH_PLAYERS:
            restaurants[SET_ASIDE_RESTAURANT] += 1
        seen_restaurants = [c["restaurant"] for c in view["market"].values() if "restaurant" in c]
        seen_restaurants += [k for hand in view["restaurant_hands"] for k in hand]
        self.restaurant_pool = [RESTAURANT_INDEX[k] for k in _remaining(restaurants, seen_restaurants)]

        goods = Counter({good: STAND_TILES_PER_GOOD for good in GOODS})
        seen_goods = list(view["offer"]) + [g for hand in view["stand_hands"] for g in hand]
        seen_goods += [c["stand"] for c in view["market"].values() if "stand" in c]
        self.bag_pool = [GOOD_INDEX[g] for g in _remaining(goods, seen_goods)]

        self.deck_pools: list[list[int]] = []
        for level in range(1, 5):
            tiles = Counter(CUSTOMER_DECKS[level - 1])
            seen = [self._kind(level, goods) for goods in view["display"][str(level)]]
            seen += [
                self._kind(c["level"], c["goods"]) for c in view["entrances"].values() if c["level"] == level
            ]
            self.deck_pools.append(_remaining(tiles, seen))

        # The visible part, loaded once; samples only clone it.
        self.base = visible_state(view, coins)
        self.bag_size = view["bag_count"]
        self.deck_sizes = [view["deck_counts"][str(level)] for level in range(1, 5)]
        self.squares = [SQUARE_INDEX[sq] for sq, content in view["market"].items() if "face_down" in content]

    @staticmethod
    def _kind(level: int, goods: list[str]) -> int:
        return customer_kind(level, (GOOD_INDEX[goods[0]], GOOD_INDEX[goods[1]]))

    def sample(self, rng: random.Random) -> GameState:
        """One complete state consistent with the view."""
        state = self.base.clone()
        identities = _fill(
            self.restaurant_pool, len(self.squares), rng, lambda: rng.randrange(len(RESTAURANTS))
        )
        for square, kind in zip(self.squares, identities, strict=True):
            state.face_down[square] = kind
        state.bag = _fill(self.bag_pool, self.bag_size, rng, functools.partial(rng.randrange, len(GOODS)))
        state.decks = [
            _fill(pool, size, rng, functools.partial(_random_customer, level, rng))
            for level, (pool, size) in enumerate(zip(self.deck_pools, self.deck_sizes, strict=True), start=1)
        ]
        state.rng = rng.getrandbits(64)
        return state


def view_coins(view: View) -> list[int]:
    """Every seat's coins as far as ``view`` tells: a count it hides is taken to be the viewer's own
    (a spectator of hidden money: the starting coins)."""
    coins: list[int | None] = view["coins"]
    seat = view["seat"]
    own = None if seat is None else coins[seat]
    guess = STARTING_COINS if own is None else own
    return [guess if c is None else c for c in coins]


def determinize(view: View, rng: random.Random) -> GameState:
    """A complete state consistent with ``view`` alone, hidden coins filled in by :func:`view_coins`."""
    return Determinizer(view, view_coins(view)).sample(rng)


def visible_state(view: View, coins: list[int]) -> GameState:
    """The view as a state whose hidden parts are left out: no face-down squares, no decks, and a bag
    of the right size (legality depends on it: redraws and refreshes need 3 tiles) but placeholder
    contents. It has the view's legal actions; it is not a state to play on."""
    visible = {key: value for key, value in view.items() if key in _POSITION_KEYS}
    visible["coins"] = coins
    visible["market"] = {sq: c for sq, c in view["market"].items() if "face_down" not in c}
    visible.update(bag=[GOODS[0]] * view["bag_count"], decks={}, rng=0)
    return position.from_json(visible)


def _random_customer(level: int, rng: random.Random) -> int:
    """A random customer tile of ``level``."""
    a, b = rng.sample(range(len(GOODS)), 2)
    return customer_kind(level, (a, b))


# The view's fields that a position has too (the view has its own format).
_POSITION_KEYS: Final = position.FIELDS - {"format", "coins", "bag", "decks", "rng"}
