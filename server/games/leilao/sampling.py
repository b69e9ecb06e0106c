"""Determinization for search: a position consistent with what one seat sees.

Hidden from a seat: the market deck's order, and the other seats' sealed
choices of the current step (their hands are known by deduction). The sample
shuffles the deck and replaces each of those sealed choices by a random legal
one from the same cards. A random bid adds an extra card half the time (when
two cards are held): drawing uniformly among all h + h(h-1) bids would almost
always include an extra, which a player pays for.

:func:`sample` redraws them in a full position; :func:`determinize` builds the
position from a seat's view alone: the deck from the market cards in no view's
place, and another seat's sealed choice as a placeholder that :func:`sample` redraws.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from . import position
from .components import CARD_NAMES
from .state import BID, TIEBREAK, LeilaoState, Sealed

# The view's fields that a position has too, with the same meaning (the hands differ: see below).
_POSITION_KEYS = (
    "options",
    "start_player",
    "round",
    "phase",
    "display",
    "removed",
    "stalls",
    "played",
    "ranking",
    "pick_sequence",
    "picks_made",
)


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


def determinize(view: Mapping[str, Any], rng: random.Random) -> LeilaoState:
    """A position whose view for ``view["seat"]`` is ``view``, its hidden parts drawn from ``rng``."""
    seat = view["seat"]
    hands = [list(hand) for hand in view["hands"]]
    sealed: list[dict[str, Any] | None] = [None] * len(hands)
    sealed[seat] = view["sealed"]
    for other in view["acted"]:
        if other != seat:  # its sealed cards are shown in its hand: any one of them will do
            card = hands[other].pop(0)
            sealed[other] = {"card": card} if view["phase"] == TIEBREAK else {"card": card, "extra": None}
    shown = {*view["display"], *view["removed"], *(card for stalls in view["stalls"] for card in stalls)}
    deck = [name for name in CARD_NAMES if name not in shown]
    rng.shuffle(deck)
    data = {key: view[key] for key in _POSITION_KEYS}
    data.update(deck=deck[: view["deck_count"]], hands=hands, sealed=sealed)
    return sample(position.from_json(data), seat, rng)
