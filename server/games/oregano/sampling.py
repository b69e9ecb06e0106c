"""Sampling: a position consistent with one seat's view, its hidden parts drawn at random.

Hidden from ``seat``: the deck's order, ``rng`` (future shuffles and die rolls),
the cards another seat has drawn and not yet chosen from, and with hidden
strategy cards, the other seats' cards. These are dealt again from the pool of
unseen cards. A held card whose goal the holder's public record already meets
is impossible (it would have been achieved), so no seat is dealt one.
"""

from __future__ import annotations

import random

from .rules import goal_met
from .state import OreganoState


def sample(state: OreganoState, seat: int, rng: random.Random) -> OreganoState:
    out = state.clone()
    n = state.players
    hidden_holders = [
        other
        for other in range(n)
        if other != seat and not state.options.strategies_open and state.strategies[other] is not None
    ]
    pool = out.strategy_deck[:]
    for other in range(n):
        if other != seat:
            pool += out.drawn[other]
    pool += [card for other in hidden_holders if (card := out.strategies[other]) is not None]
    rng.shuffle(pool)
    dealt = _deal(out, hidden_holders, pool, rng)
    assert dealt is not None  # the real deal is one solution
    for other, card in zip(hidden_holders, dealt, strict=True):
        out.strategies[other] = card
        pool.remove(card)
    for other in range(n):
        if other != seat:
            count = len(out.drawn[other])
            out.drawn[other], pool = pool[:count], pool[count:]
    out.strategy_deck = pool
    out.rng = rng.getrandbits(64)
    return out


def _deal(state: OreganoState, holders: list[int], pool: list[str], rng: random.Random) -> list[str] | None:
    """A random card for each holder whose goal its record does not meet yet (backtracking)."""
    if not holders:
        return []
    first, rest = holders[0], holders[1:]
    order = pool[:]
    rng.shuffle(order)  # a kind comes first with a chance in proportion to its copies
    for card in dict.fromkeys(order):
        if goal_met(card, state.records[first]):
            continue
        remaining = pool[:]
        remaining.remove(card)
        tail = _deal(state, rest, remaining, rng)
        if tail is not None:
            return [card, *tail]
    return None
