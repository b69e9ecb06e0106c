"""Final scoring: coins minus unplaced restaurants; ties broken by stands on the market."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .state import Result

if TYPE_CHECKING:
    from .state import GameState


def final_result(state: GameState) -> Result:
    """Scores, stands on the market and shared 1-based ranks."""
    n = state.players
    scores = tuple(state.coins[p] - len(state.restaurant_hands[p]) for p in range(n))
    stands = tuple(state.stand_owner.count(p) for p in range(n))
    keys = [(scores[p], stands[p]) for p in range(n)]
    ranks = tuple(1 + sum(1 for other in keys if other > keys[p]) for p in range(n))
    return Result(scores, stands, ranks)
