"""Final scoring (RULES.md "Final scoring"): score, its parts, tie-breaks and shared ranks."""

from __future__ import annotations

from collections.abc import Iterable

from server.games.interface import Outcome, ScorePart, ScoreParts, TieBreak

from .components import BONUS_VALUE, LEVELS, SHOP_POINTS
from .state import OreganoState


def level_of(cell: str) -> int:
    """A cell's level: the number of its column."""
    return int(cell[0])


def score_of(gold: int, cells: Iterable[str], bonuses: int) -> int:
    """Gold + each shop (by the cells it stands in) by its level + 5 per bonus card."""
    return gold + sum(SHOP_POINTS[level_of(cell)] for cell in cells) + BONUS_VALUE * bonuses


def score(state: OreganoState, seat: int) -> int:
    return score_of(state.gold[seat], state.areas[seat], len(state.bonuses[seat]))


def scores(state: OreganoState) -> tuple[int, ...]:
    """Every seat's score as it stands."""
    return tuple(score(state, seat) for seat in range(state.players))


def tie_breaks(state: OreganoState, seat: int) -> tuple[int, ...]:
    """Decision: ties go to more gold, then more bonus cards."""
    return (state.gold[seat], len(state.bonuses[seat]))


TIE_BREAKS = (("gold", "Gold"), ("bonus_cards", "Bonus cards"))  # what tie_breaks gives, named


def score_parts(state: OreganoState, seat: int) -> ScoreParts:
    """``seat``'s score as ``score`` counts it, in parts: gold, its shops level by level, its bonus
    cards; and its tie-breaks."""
    shops = [0] * len(LEVELS)
    for cell in state.areas[seat]:
        shops[level_of(cell) - 1] += 1
    bonuses = len(state.bonuses[seat])
    parts = (
        ScorePart("gold", "Gold", state.gold[seat]),
        *(
            ScorePart(f"shops_level_{level}", f"Shops at level {level}", SHOP_POINTS[level] * count, count)
            for level, count in zip(LEVELS, shops, strict=True)
        ),
        ScorePart("bonus_cards", "Bonus cards", BONUS_VALUE * bonuses, bonuses),
    )
    named = zip(TIE_BREAKS, tie_breaks(state, seat), strict=True)
    return ScoreParts(seat, parts, tuple(TieBreak(name, label, value) for (name, label), value in named))


def ranks_of(keys: list[tuple[int, ...]]) -> tuple[int, ...]:
    """1-based ranks, higher keys first; equal keys share a place."""
    return tuple(1 + sum(other > key for other in keys) for key in keys)


def outcome(state: OreganoState) -> Outcome:
    seats = range(state.players)
    values = scores(state)
    breaks = tuple(tie_breaks(state, seat) for seat in seats)
    ranks = ranks_of([(s, *b) for s, b in zip(values, breaks, strict=True)])
    return Outcome(scores=values, ranks=ranks, tie_breaks=breaks)
