"""Final scoring: coins minus unplaced restaurants; ties broken by stands on the market."""

from __future__ import annotations

from typing import TYPE_CHECKING

from server.games.interface import ScorePart, ScoreParts, TieBreak

from .components import RESTAURANT_PENALTY
from .state import Result

if TYPE_CHECKING:
    from .state import GameState


def final_result(state: GameState) -> Result:
    """Scores, stands on the market and shared 1-based ranks."""
    n = state.players
    scores = tuple(state.coins[p] - RESTAURANT_PENALTY * len(state.restaurant_hands[p]) for p in range(n))
    stands = tuple(state.stand_owner.count(p) for p in range(n))
    keys = [(scores[p], stands[p]) for p in range(n)]
    ranks = tuple(1 + sum(1 for other in keys if other > keys[p]) for p in range(n))
    return Result(scores, stands, ranks)


def score_parts(state: GameState, seat: int) -> ScoreParts:
    """``seat``'s score as ``final_result`` counts it, in parts, with its tie-break."""
    restaurants = len(state.restaurant_hands[seat])
    parts = (
        ScorePart("coins", "Coins", state.coins[seat]),
        ScorePart(
            "restaurants_in_hand", "Restaurants left in hand", -RESTAURANT_PENALTY * restaurants, restaurants
        ),
    )
    stands = TieBreak("stands_on_market", "Stands on the market", state.stand_owner.count(seat))
    return ScoreParts(seat, parts, (stands,))
