"""Component data of Mercado de Lisboa: names, tile counts and board layout.

Everything the rules engine knows about the physical game lives here, so a
corrected component list changes no logic. Items marked *assumed* in RULES.md
are assumptions about the retail edition.
"""

from __future__ import annotations

from itertools import combinations

# Goods, in the canonical order used for sorting and for legal-action order.
GOODS: tuple[str, ...] = ("fish", "flowers", "tomatoes", "meat", "grapes")

# Restaurant kinds and the good each improves (None: the pub improves every good).
RESTAURANTS: tuple[str, ...] = (
    "sushi_bar",
    "tea_house",
    "pizzeria",
    "burger_bar",
    "wine_bar",
    "pub",
)
RESTAURANT_IMPROVES: tuple[str | None, ...] = (
    "fish",
    "flowers",
    "tomatoes",
    "meat",
    "grapes",
    None,
)

STAND_TILES_PER_GOOD = 7
WOODEN_STANDS_PER_PLAYER = 8
STARTING_COINS = 1
HAND_SIZE = 3
OFFER_SIZE = 3
DISPLAY_PER_LEVEL = 3
MIN_PLAYERS, MAX_PLAYERS = 2, 4

# Tiles placed face down on the board at set-up (both of each kind, one pub).
BOARD_RESTAURANTS: tuple[str, ...] = (
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
SET_ASIDE_RESTAURANT = "pub"
SET_ASIDE_USED_WITH_PLAYERS = 4

# Assumed layout of the face-down restaurant squares.
RESTAURANT_SQUARES: tuple[str, ...] = (
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
_ALL_PAIRS = tuple(combinations(GOODS, 2))
CUSTOMER_TILES: tuple[tuple[int, tuple[str, str]], ...] = (
    *((1, pair) for pair in _ALL_PAIRS),
    *((2, pair) for pair in _ALL_PAIRS),
    *((3, pair) for pair in _ALL_PAIRS),
    (4, ("fish", "flowers")),
    (4, ("flowers", "tomatoes")),
    (4, ("tomatoes", "meat")),
    (4, ("meat", "grapes")),
    (4, ("fish", "grapes")),
)
CUSTOMER_LEVELS: tuple[int, ...] = (1, 2, 3, 4)

# The market: columns a..e (left to right), rows 1..5 (top to bottom).
COLUMNS = "abcde"
ROWS = "12345"
SIZE = 5
