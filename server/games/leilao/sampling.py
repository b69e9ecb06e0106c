"""Determinization for search: a position consistent with what one seat sees.

Hidden from a seat: the market deck's order, and the other seats' sealed
choices of the current step (their hands are known by deduction). The sample
shuffles the deck and replaces each of those sealed choices by a random legal
one from the same cards. A random bid adds an extra card half the time (when
two cards are held): drawing uniformly among all h + h(h-1) bids would almost
always include an extra, which a player pays for.
"""

from __future__ import annotations

import random

from .state import BID, TIEBREAK, LeilaoState, Sealed


def sample(state: LeilaoState, seat: int, rng: random.Random) -> LeilaoState:
    """A copy of ``state`` with its hidden parts, as ``seat`` sees them, drawn from ``rng``."""
    copy = state.clone()
    rng.shuffle(copy.deck)
    if copy.phase not in (BID, TIEBREAK):
        return copy
    for p in range(copy.players):
        sealed = copy.sealed[p]
        if p == seat or sealed is None:
            continue
        hand = copy.hands[p]
        hand.append(sealed.card)
        if sealed.extra is not None:
            hand.append(sealed.extra)
        hand.sort()
        card = rng.choice(hand)
        extra: int | None = None
        if copy.phase == BID and len(hand) > 1 and rng.random() < 0.5:
            extra = rng.choice([c for c in hand if c != card])
        hand.remove(card)
        if extra is not None:
            hand.remove(extra)
        copy.sealed[p] = Sealed(card, extra)
    return copy
