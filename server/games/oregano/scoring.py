"""Final scoring (RULES.md "Final scoring"): score, tie-breaks and shared ranks."""

from __future__ import annotations

from server.games.interface import Outcome

from .components import BONUS_VALUE, SHOP_POINTS
from .state import OreganoState


def level_of(cell: str) -> int:
    """A cell's level: the number of its column."""
    return int(cell[0])


def score(state: OreganoState, seat: int) -> int:
    """Gold + each shop in the area by its level + 5 per bonus card."""
    shops = sum(SHOP_POINTS[level_of(cell)] for cell in state.areas[seat])
    return state.gold[seat] + shops + BONUS_VALUE * len(state.bonuses[seat])


def scores(state: OreganoState) -> tuple[int, ...]:
    """Every seat's score as it stands."""
    return tuple(score(state, seat) for seat in range(state.players))


def tie_breaks(state: OreganoState, seat: int) -> tuple[int, ...]:
    """Decision: ties go to more gold, then more bonus cards."""
    return (state.gold[seat], len(state.bonuses[seat]))


def ranks_of(keys: list[tuple[int, ...]]) -> tuple[int, ...]:
    """1-based ranks, higher keys first; equal keys share a place."""
    return tuple(1 + sum(other > key for other in keys) for key in keys)


def outcome(state: OreganoState) -> Outcome:
    seats = range(state.players)
    values = scores(state)
    breaks = tuple(tie_breaks(state, seat) for seat in seats)
    ranks = ranks_of([(s, *b) for s, b in zip(values, breaks, strict=True)])
    return Outcome(scores=values, ranks=ranks, tie_breaks=breaks)
