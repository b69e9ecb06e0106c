"""Component data of Oregano Market: every number of RULES.md's component tables.

Everything the rules know about the physical game lives here, so a corrected
component list changes no logic. Facts RULES.md marks **Assumed** are marked
*assumed* below.
"""

from __future__ import annotations

from dataclasses import dataclass

GAME = "oregano"
MIN_PLAYERS, MAX_PLAYERS = 2, 4  # assumed: the source gives no player count

# Areas (assumed layout): columns are the levels 1-4, rows a-d; a cell is level then row.
LEVELS: tuple[int, ...] = (1, 2, 3, 4)
ROWS = "abcd"
CELLS: tuple[str, ...] = tuple(f"{level}{row}" for level in LEVELS for row in ROWS)
MAX_LEVEL = 4

# Resources, in their canonical order; the supply holds this many of each.
RESOURCES: tuple[str, ...] = ("wood", "stone", "metal")
SUPPLY_PER_RESOURCE = 18

RESOURCE_GROUP, GENERAL_GROUP, SPECIAL_GROUP = "resource", "general", "special"
PER_PLAYER = -1  # a stock "as many as players" (casino, builder)


@dataclass(frozen=True)
class ShopKind:
    """One row of the shop table of RULES.md."""

    id: str
    group: str
    stock: int  # PER_PLAYER: as many as players
    cost: tuple[tuple[str, int], ...]  # (resource or "gold", amount)
    dividend: int = 0  # base dividend at level 1 (general shops only)
    produces: str | None = None  # the resource of a merchant


SHOP_KINDS: tuple[ShopKind, ...] = (
    ShopKind("lumber_merchant", RESOURCE_GROUP, 4, (("gold", 5),), produces="wood"),
    ShopKind("stone_merchant", RESOURCE_GROUP, 4, (("gold", 5),), produces="stone"),
    ShopKind("metal_merchant", RESOURCE_GROUP, 4, (("gold", 5),), produces="metal"),
    ShopKind("cafe", GENERAL_GROUP, 22, (("wood", 1),), dividend=1),
    ShopKind("general_store", GENERAL_GROUP, 22, (("stone", 1),), dividend=1),
    ShopKind("clothing_store", GENERAL_GROUP, 16, (("wood", 1), ("stone", 1)), dividend=2),
    ShopKind("restaurant", GENERAL_GROUP, 12, (("wood", 1), ("stone", 1), ("metal", 1)), dividend=3),
    ShopKind("fountain", SPECIAL_GROUP, 2, (("stone", 3), ("metal", 3))),
    ShopKind("jeweler", SPECIAL_GROUP, 2, (("stone", 1), ("metal", 5))),
    ShopKind("casino", SPECIAL_GROUP, PER_PLAYER, (("metal", 6),)),
    ShopKind("builder", SPECIAL_GROUP, PER_PLAYER, (("wood", 2), ("stone", 2))),
)
SHOPS: dict[str, ShopKind] = {kind.id: kind for kind in SHOP_KINDS}
SHOP_IDS: tuple[str, ...] = tuple(kind.id for kind in SHOP_KINDS)
MERCHANTS: tuple[str, ...] = tuple(k.id for k in SHOP_KINDS if k.group == RESOURCE_GROUP)
SOURCE_SHOP_TOKENS = 96  # the source's count, with four casinos and four builders

# Level-up: the build cost again plus this much gold, by the level left (1, 2, 3).
LEVEL_UP_GOLD: dict[int, int] = {1: 3, 2: 5, 3: 7}

# Sale prices by level (index 0: level 1). Decision: +3/+5/+8 are added to the level-1 price.
_GENERAL_STEPS = (0, 3, 5, 8)


def _by_level(base: int) -> tuple[int, ...]:
    return tuple(base + step for step in _GENERAL_STEPS)


SALE_PRICE: dict[str, tuple[int, ...]] = {
    "cafe": _by_level(1),
    "general_store": _by_level(1),
    "clothing_store": _by_level(2),
    "restaurant": _by_level(3),
    "lumber_merchant": _by_level(5),
    "stone_merchant": _by_level(5),
    "metal_merchant": _by_level(5),
    "builder": (5,),
    "fountain": (8,),
    "jeweler": (8,),
    "casino": (8,),
}
JEWELER_BONUS = 3  # on each sale while you have a jeweler, not the jeweler's own
ACQUIRE_DISCOUNT = 1  # acquisition costs the table sale price minus this
OTHERS_SHOP_FEE = 2  # gold paid to the owner of another's resource shop
FOUNTAIN_DIVIDEND = 1  # added to each of its owner's general shops' dividends

# Casino (assumed: one fair six-sided die, used only by the casino).
DIE_FACES = 6
CASINO_MIN_GOLD = 5
CASINO_LOSS = 5  # paid to the bank on 1-4
CASINO_WIN_FROM = 5  # a roll of at least this wins
CASINO_TAKE = 7  # taken from each other player on 5-6 (or all they have)

STARTING_GOLD = 5

# Strategy cards: two of each kind (10); goals need 2 events.
STRATEGIES: tuple[str, ...] = (
    "chain_store",
    "strategic_retreat",
    "aggressive_merger",
    "step_by_step",
    "savvy_shopper",
)
STRATEGY_COPIES = 2
STRATEGY_GOAL = 2
STRATEGY_REWARD = 5

# Bonus cards, one each, worth 5 at the end.
BONUSES: tuple[str, ...] = (
    "first_level4",
    "first_strategy",
    "first_diagonal",
    "first_column",
    "first_row",
)
BONUS_VALUE = 5
DIAGONALS: tuple[tuple[str, ...], ...] = (("1a", "2b", "3c", "4d"), ("1d", "2c", "3b", "4a"))
COLUMN_LINES: tuple[tuple[str, ...], ...] = tuple(tuple(f"{level}{row}" for row in ROWS) for level in LEVELS)
ROW_LINES: tuple[tuple[str, ...], ...] = tuple(tuple(f"{level}{row}" for level in LEVELS) for row in ROWS)

# Decision: the source says 71 cards; the itemised 54 + 10 + 5 = 69 are used.
SOURCE_CARD_COUNT = 71
CARD_COUNT = len(RESOURCES) * SUPPLY_PER_RESOURCE + len(STRATEGIES) * STRATEGY_COPIES + len(BONUSES)

# Final scoring: each shop in your area by level (special shops are level 1).
SHOP_POINTS: dict[int, int] = {1: 2, 2: 5, 3: 8, 4: 10}

# Declared action kinds.
ACTION_KINDS: tuple[str, ...] = ("attract", "resource", "sell", "acquire")
ACTIONS_PER_TURN = 2


def stock_of(kind: str, players: int) -> int:
    """The starting stock of ``kind`` in a game of ``players``."""
    stock = SHOPS[kind].stock
    return players if stock == PER_PLAYER else stock


def sale_price(kind: str, level: int) -> int:
    """The table sale price (without the jeweler's bonus)."""
    return SALE_PRICE[kind][level - 1]


def is_special(kind: str) -> bool:
    return SHOPS[kind].group == SPECIAL_GROUP
