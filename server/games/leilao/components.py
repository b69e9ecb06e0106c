"""The components of Leilão das Bancas (RULES.md, "Components"), as data.

Facts the source does not give are marked **Assumed** in RULES.md; they live here
alone, so they can be corrected without touching the rules.
"""

from __future__ import annotations

# --- market cards (stalls) ---------------------------------------------------------------------

# Assumed: four colours, each with one card of every number 1-20 (80 unique cards).
COLOURS: tuple[str, ...] = ("red", "blue", "green", "yellow")
MARKET_NUMBERS: tuple[int, ...] = tuple(range(1, 21))
N_COLOURS = len(COLOURS)
N_MARKET_CARDS = len(COLOURS) * len(MARKET_NUMBERS)  # 80, the source's figure

# A market card is an index 0..79: colour-major, then number.
CARD_NAMES: tuple[str, ...] = tuple(f"{colour}-{number}" for colour in COLOURS for number in MARKET_NUMBERS)
CARD_INDEX: dict[str, int] = {name: i for i, name in enumerate(CARD_NAMES)}
CARD_COLOUR: tuple[int, ...] = tuple(c for c in range(N_COLOURS) for _ in MARKET_NUMBERS)
CARD_NUMBER: tuple[int, ...] = tuple(n for _ in COLOURS for n in MARKET_NUMBERS)

# --- bid cards ---------------------------------------------------------------------------------

BID_CARDS: tuple[int, ...] = tuple(range(1, 21))  # every hand: one card of each number 1-20
HAND_SIZE = len(BID_CARDS)

# --- players, stalls and points ----------------------------------------------------------------

MIN_PLAYERS = 2
MAX_PLAYERS = 4
STALLS_PER_PLAYER = 2  # the display holds 2 x players stalls each round
EXTRA_BID_FEE = 5  # points off the final score per extra bid (the source's figure)
SET_BONUS = 10  # Assumed: the source gives 10 with a "?"
