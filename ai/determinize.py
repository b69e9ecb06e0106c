"""Determinizations: complete game states consistent with one seat's view.

The view (``server.engine.player_view``) hides face-down restaurant
identities, the bag, the customer decks and, with hidden money, the other
seats' coins. A sample fills them in: face-down squares from the restaurants
not yet seen, the bag and each deck shuffled from the tiles not visible, and
coins from what the caller reconstructed (see :mod:`ai.observation`). The
search never sees the true state.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from server.engine import GameState, customer_kind, position
from server.engine.components import (
    BOARD_RESTAURANTS,
    CUSTOMER_TILES,
    GOODS,
    RESTAURANTS,
    SET_ASIDE_RESTAURANT,
    SET_ASIDE_USED_WITH_PLAYERS,
    STAND_TILES_PER_GOOD,
)

View = dict[str, Any]
_GOOD_INDEX = {name: i for i, name in enumerate(GOODS)}
_RESTAURANT_INDEX = {name: i for i, name in enumerate(RESTAURANTS)}


def _remaining(pool: Counter[Any], seen: list[Any]) -> list[Any]:
    """The pool less what was seen (never below zero), as a sorted list."""
    left = pool.copy()
    left.subtract(seen)
    return sorted(left.elements())


def _fill(pool: list[int], size: int, rng: random.Random, kinds: int) -> list[int]:
    """``size`` tiles drawn from ``pool``; a fixture that does not account for every tile gets random ones."""
    tiles = pool[:]
    rng.shuffle(tiles)
    while len(tiles) < size:
        tiles.append(rng.randrange(kinds))
    return tiles[:size]


class Determinizer:
    """Samples complete states consistent with one view; build once per decision, sample per iteration."""

    def __init__(self, view: View, coins: list[int]) -> None:
        self.view = view
        players = view["options"]["players"]
        self.face_down_squares = [sq for sq, content in view["market"].items() if "face_down" in content]

        restaurants = Counter(BOARD_RESTAURANTS)
        if players == SET_ASIDE_USED_WITH_PLAYERS:
            restaurants[SET_ASIDE_RESTAURANT] += 1
        seen_restaurants = [c["restaurant"] for c in view["market"].values() if "restaurant" in c]
        seen_restaurants += [k for hand in view["restaurant_hands"] for k in hand]
        self.restaurant_pool = [_RESTAURANT_INDEX[k] for k in _remaining(restaurants, seen_restaurants)]

        goods = Counter({good: STAND_TILES_PER_GOOD for good in GOODS})
        seen_goods = list(view["offer"]) + [g for hand in view["stand_hands"] for g in hand]
        seen_goods += [c["stand"] for c in view["market"].values() if "stand" in c]
        self.bag_pool = [_GOOD_INDEX[g] for g in _remaining(goods, seen_goods)]

        self.deck_pools: list[list[int]] = []
        for level in range(1, 5):
            tiles = Counter(
                customer_kind(lvl, (_GOOD_INDEX[a], _GOOD_INDEX[b]))
                for lvl, (a, b) in CUSTOMER_TILES
                if lvl == level
            )
            seen = [self._kind(level, goods) for goods in view["display"][str(level)]]
            seen += [
                self._kind(c["level"], c["goods"]) for c in view["entrances"].values() if c["level"] == level
            ]
            self.deck_pools.append(_remaining(tiles, seen))

        # The visible part, loaded once; samples only clone it.
        self.base = visible_state(view, coins)
        self.bag_size = view["bag_count"]
        self.deck_sizes = [view["deck_counts"][str(level)] for level in range(1, 5)]
        self.squares = [_square_index(sq) for sq in self.face_down_squares]

    @staticmethod
    def _kind(level: int, goods: list[str]) -> int:
        return customer_kind(level, (_GOOD_INDEX[goods[0]], _GOOD_INDEX[goods[1]]))

    def sample(self, rng: random.Random) -> GameState:
        """One complete state consistent with the view."""
        state = self.base.clone()
        identities = _fill(self.restaurant_pool, len(self.squares), rng, len(RESTAURANTS))
        for square, kind in zip(self.squares, identities, strict=True):
            state.face_down[square] = kind
        state.bag = _fill(self.bag_pool, self.bag_size, rng, len(GOODS))
        state.decks = [
            _fill(pool, size, rng, 0) if len(pool) >= size else _fill_level(pool, size, level, rng)
            for level, (pool, size) in enumerate(zip(self.deck_pools, self.deck_sizes, strict=True), start=1)
        ]
        state.rng = rng.getrandbits(64)
        return state


def visible_state(view: View, coins: list[int]) -> GameState:
    """The view as a state whose hidden parts are left out: no face-down squares, no decks, and a bag
    of the right size (legality depends on it: redraws and refreshes need 3 tiles) but placeholder
    contents. It has the view's legal actions; it is not a state to play on."""
    visible = {key: view[key] for key in _POSITION_KEYS}
    visible["coins"] = coins
    visible["market"] = {sq: c for sq, c in view["market"].items() if "face_down" not in c}
    visible.update(bag=[GOODS[0]] * view["bag_count"], decks={}, rng=0)
    return position.from_json(visible)


def _fill_level(pool: list[int], size: int, level: int, rng: random.Random) -> list[int]:
    """A deck larger than the tiles left (a fixture): pad with random tiles of that level."""
    tiles = pool[:]
    rng.shuffle(tiles)
    while len(tiles) < size:
        a, b = rng.sample(range(len(GOODS)), 2)
        tiles.append(customer_kind(level, (a, b)))
    return tiles


def _square_index(name: str) -> int:
    return "abcde".index(name[0]) + 5 * (int(name[1:]) - 1)


_POSITION_KEYS = (
    "options",
    "status",
    "current_player",
    "phase",
    "redrawn_this_turn",
    "wooden_stands",
    "stand_hands",
    "restaurant_hands",
    "market",
    "entrances",
    "offer",
    "display",
    "consecutive_coins",
    "final_turns_left",
    "result",
)
