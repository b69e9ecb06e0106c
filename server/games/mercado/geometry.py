"""Integer indices for squares, lines, entrances and customer tiles.

The engine works on small integers; this module derives every index table
from the component names once, at import time.
"""

from __future__ import annotations

from itertools import combinations
from typing import Final

from .components import (
    COLUMNS,
    CUSTOMER_LEVELS,
    CUSTOMER_TILES,
    GOODS,
    RESTAURANT_IMPROVES,
    RESTAURANTS,
    ROWS,
    SIZE,
)

N_GOODS: Final = len(GOODS)
ALL_GOODS_MASK: Final = (1 << N_GOODS) - 1
GOOD_INDEX: Final = {name: i for i, name in enumerate(GOODS)}

# Squares: s = row * 5 + column; "a1" is 0, "e5" is 24.
N_SQUARES: Final = SIZE * SIZE
SQUARE_NAMES: Final[tuple[str, ...]] = tuple(COLUMNS[s % SIZE] + ROWS[s // SIZE] for s in range(N_SQUARES))
SQUARE_INDEX: Final = {name: s for s, name in enumerate(SQUARE_NAMES)}

# Lines: 0..4 are rows 1..5, 5..9 are columns a..e.
N_LINES: Final = 2 * SIZE
SQUARE_ROW: Final[tuple[int, ...]] = tuple(s // SIZE for s in range(N_SQUARES))
SQUARE_COLUMN: Final[tuple[int, ...]] = tuple(SIZE + s % SIZE for s in range(N_SQUARES))
LINE_SQUARES: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(s for s in range(N_SQUARES) if line in (SQUARE_ROW[s], SQUARE_COLUMN[s])) for line in range(N_LINES)
)

# Entrances: top-a..e, bottom-a..e, left-1..5, right-1..5 (RULES.md order).
ENTRANCE_NAMES: Final[tuple[str, ...]] = (
    *(f"top-{c}" for c in COLUMNS),
    *(f"bottom-{c}" for c in COLUMNS),
    *(f"left-{r}" for r in ROWS),
    *(f"right-{r}" for r in ROWS),
)
ENTRANCE_INDEX: Final = {name: e for e, name in enumerate(ENTRANCE_NAMES)}
N_ENTRANCES: Final = len(ENTRANCE_NAMES)
ENTRANCE_LINE: Final[tuple[int, ...]] = tuple(
    SIZE + e % SIZE if e < 2 * SIZE else e % SIZE for e in range(N_ENTRANCES)
)
LINE_ENTRANCES: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(e for e in range(N_ENTRANCES) if ENTRANCE_LINE[e] == line) for line in range(N_LINES)
)
# The four entrances whose customers a stand on square s can serve.
SQUARE_ENTRANCES: Final[tuple[tuple[int, ...], ...]] = tuple(
    LINE_ENTRANCES[SQUARE_ROW[s]] + LINE_ENTRANCES[SQUARE_COLUMN[s]] for s in range(N_SQUARES)
)


def _neighbours(s: int) -> tuple[int, ...]:
    row, col = divmod(s, SIZE)
    steps = ((row - 1, col), (row + 1, col), (row, col - 1), (row, col + 1))
    return tuple(r * SIZE + c for r, c in steps if 0 <= r < SIZE and 0 <= c < SIZE)


# Orthogonal neighbours only: diagonals never improve a stand.
NEIGHBOURS: Final[tuple[tuple[int, ...], ...]] = tuple(_neighbours(s) for s in range(N_SQUARES))

# Restaurants: the bitmask of goods each kind improves.
RESTAURANT_INDEX: Final = {name: k for k, name in enumerate(RESTAURANTS)}
RESTAURANT_MASK: Final[tuple[int, ...]] = tuple(
    ALL_GOODS_MASK if good is None else 1 << GOOD_INDEX[good] for good in RESTAURANT_IMPROVES
)
N_RESTAURANTS: Final = len(RESTAURANT_MASK)

# Customer tile kinds: one per (level, pair of different goods); k = (level-1)*10 + pair.
GOOD_PAIRS: Final[tuple[tuple[int, int], ...]] = tuple(combinations(range(N_GOODS), 2))
N_LEVELS: Final = len(CUSTOMER_LEVELS)
N_CUSTOMER_KINDS: Final = N_LEVELS * len(GOOD_PAIRS)
CUSTOMER_LEVEL: Final[tuple[int, ...]] = tuple(1 + k // len(GOOD_PAIRS) for k in range(N_CUSTOMER_KINDS))
CUSTOMER_GOODS: Final[tuple[tuple[int, int], ...]] = tuple(
    GOOD_PAIRS[k % len(GOOD_PAIRS)] for k in range(N_CUSTOMER_KINDS)
)
CUSTOMER_MASK: Final[tuple[int, ...]] = tuple((1 << a) | (1 << b) for a, b in CUSTOMER_GOODS)


def customer_kind(level: int, goods: tuple[int, int]) -> int:
    """The kind index of a customer tile; goods may come in either order."""
    pair = (min(goods), max(goods))
    return (level - 1) * len(GOOD_PAIRS) + GOOD_PAIRS.index(pair)


# Each level's deck (level 1 first): the kinds of its tiles, in the order of the component list.
CUSTOMER_DECKS: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(
        customer_kind(level, (GOOD_INDEX[a], GOOD_INDEX[b]))
        for tile_level, (a, b) in CUSTOMER_TILES
        if tile_level == level
    )
    for level in CUSTOMER_LEVELS
)
