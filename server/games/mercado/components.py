"""Component data of Mercado de Lisboa: names, tile counts and board layout.

Everything the rules engine knows about the physical game lives here, so a
corrected component list changes no logic. Items marked *assumed* in RULES.md
are assumptions about the retail edition.
"""

from __future__ import annotations

from itertools import combinations
from typing import Final

# Goods, in the canonical order used for sorting and for legal-action order.
GOODS: Final[tuple[str, ...]] = ("fish", "flowers", "tomatoes", "meat", "grapes")

# Restaurant kinds and the good each improves (None: the pub improves every good).
RESTAURANTS: Final[tuple[str, ...]] = (
    "sushi_bar",
    "tea_house",
    "pizzeria",
    "burger_bar",
    "wine_bar",
    "pub",
)
RESTAURANT_IMPROVES: Final[tuple[str | None, ...]] = (
    "fish",
    "flowers",
    "tomatoes",
    "meat",
    "grapes",
    None,
)

STAND_TILES_PER_GOOD: Final = 7
WOODEN_STANDS_PER_PLAYER: Final = 8
STARTING_COINS: Final = 1
HAND_SIZE: Final = 3
RESTAURANT_PENALTY: Final = 1  # final scoring: coins each restaurant left in hand costs
OFFER_SIZE: Final = 3
DISPLAY_PER_LEVEL: Final = 3
MIN_PLAYERS: Final = 2
MAX_PLAYERS: Final = 4

# Tiles placed face down on the board at set-up (both of each kind, one pub).
BOARD_RESTAURANTS: Final[tuple[str, ...]] = (
    "sushi_bar",
    "sushi_bar",
    "tea_house",
    "tea_house",
    "pizzeria",
    "pizzeria",
    "burger_bar",
    "burger_bar",
    "wine_bar",
    "wine_bar",
    "pub",
)
# The second pub: in a 4-player game it starts in the fourth player's hand.
SET_ASIDE_RESTAURANT: Final = "pub"
SET_ASIDE_USED_WITH_PLAYERS: Final = 4

# Assumed layout of the face-down restaurant squares.
RESTAURANT_SQUARES: Final[tuple[str, ...]] = (
    "b1",
    "d1",
    "a2",
    "c2",
    "e2",
    "c3",
    "a4",
    "c4",
    "e4",
    "b5",
    "d5",
)

# Customer tiles: (level, (good, good)). Assumed composition.
_ALL_PAIRS: Final = tuple(combinations(GOODS, 2))
CUSTOMER_TILES: Final[tuple[tuple[int, tuple[str, str]], ...]] = (
    *((1, pair) for pair in _ALL_PAIRS),
    *((2, pair) for pair in _ALL_PAIRS),
    *((3, pair) for pair in _ALL_PAIRS),
    (4, ("fish", "flowers")),
    (4, ("flowers", "tomatoes")),
    (4, ("tomatoes", "meat")),
    (4, ("meat", "grapes")),
    (4, ("fish", "grapes")),
)
CUSTOMER_LEVELS: Final[tuple[int, ...]] = (1, 2, 3, 4)

# The market: columns a..e (left to right), rows 1..5 (top to bottom).
COLUMNS: Final = "abcde"
ROWS: Final = "12345"
SIZE: Final = 5
