"""What a legal action would cost at the end, or gain, in points: the preview a client shows beside
each action, so that none computes a score itself. Every part is final once played: a bid's cards
and fee count whatever it wins."""

from __future__ import annotations

from dataclasses import dataclass

from .actions import Bid, LeilaoAction, Pick, Rebid
from .components import CARD_NUMBER, EXTRA_BID_FEE, SET_BONUS
from .scoring import card_cost, set_bonuses
from .state import LeilaoState, Options


@dataclass(frozen=True, slots=True)
class Preview:
    card_penalty: int = 0  # points the cards played take off the final score
    fee: int = 0  # the extra-bid fee
    stall_points: int = 0  # a pick: the stall's number
    set_bonus: int = 0  # a pick: the set bonus it adds

    @property
    def score_change(self) -> int:
        return self.stall_points + self.set_bonus - self.card_penalty - self.fee


def preview(state: LeilaoState, seat: int, action: LeilaoAction) -> Preview:
    """What legal ``action`` of ``seat`` changes in its score."""
    if isinstance(action, Pick):
        stalls = state.stalls[seat]
        sets = set_bonuses(state.options, [*stalls, action.stall]) - set_bonuses(state.options, stalls)
        return Preview(stall_points=CARD_NUMBER[action.stall], set_bonus=SET_BONUS * sets)
    return sealed_preview(state.options, action)


def sealed_preview(options: Options, action: Bid | Rebid) -> Preview:
    """What a bid or re-bid will cost at the end: its cards, and an extra card's fee."""
    if isinstance(action, Bid) and action.extra is not None:
        return Preview(card_cost(options, action.card) + card_cost(options, action.extra), EXTRA_BID_FEE)
    return Preview(card_cost(options, action.card))
