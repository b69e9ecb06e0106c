"""Sampling: a position consistent with one seat's view, its hidden parts drawn at random.

Hidden from ``seat``: the deck's order, ``rng`` (future shuffles and die rolls),
the cards another seat has drawn and not yet chosen from, and with hidden
strategy cards, the other seats' cards. These are dealt again from the pool of
unseen cards. A held card whose goal the holder's public record already meets
is impossible (it would have been achieved), so no seat is dealt one.

:func:`sample` redeals them in a full position; :func:`determinize` builds the
position from the view alone (everything else in it is public or the seat's own).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping
from typing import Any

from . import position
from .components import SHOP_IDS, STRATEGIES, STRATEGY_COPIES, stock_of
from .rules import goal_met
from .state import OreganoState

Dealt = tuple[dict[int, str], dict[int, list[str]], list[str]]


def sample(state: OreganoState, seat: int, rng: random.Random) -> OreganoState:
    out = state.clone()
    n = state.players
    hidden_holders = [
        other
        for other in range(n)
        if other != seat and not state.options.strategies_open and state.strategies[other] is not None
    ]
    drawn = {other: len(out.drawn[other]) for other in range(n) if other != seat}
    pool = out.strategy_deck[:]
    for other in drawn:
        pool += out.drawn[other]
    pool += [card for other in hidden_holders if (card := out.strategies[other]) is not None]
    strategies, out_drawn, out.strategy_deck = _deal_hidden(
        out.records, hidden_holders, drawn, len(out.strategy_deck), pool, rng
    )
    for other, card in strategies.items():
        out.strategies[other] = card
    for other, cards in out_drawn.items():
        out.drawn[other] = cards
    out.rng = rng.getrandbits(64)
    return out


def determinize(view: Mapping[str, Any], rng: random.Random) -> OreganoState:
    """A position whose view for ``view["seat"]`` is ``view``: the unseen strategy cards dealt at
    random to the deck, the other seats' hidden cards and their drawn cards; a random ``rng``."""
    seat = view["seat"]
    n = view["options"]["players"]
    strategies: list[str | None] = [held.get("card") for held in view["strategies"]]
    hidden_holders = [other for other in range(n) if view["strategies"][other].get("count") == 1]
    drawn: list[list[str]] = [held.get("cards", [])[:] for held in view["drawn"]]
    counts = {other: view["drawn"][other]["count"] for other in range(n) if other != seat}
    unseen = Counter(card for card in STRATEGIES for _ in range(STRATEGY_COPIES))
    unseen.subtract([card for card in strategies if card is not None] + drawn[seat])
    records = view["records"]
    dealt, dealt_drawn, deck = _deal_hidden(
        records, hidden_holders, counts, view["strategy_deck_count"], sorted(unseen.elements()), rng
    )
    for other, card in dealt.items():
        strategies[other] = card
    for other, cards in dealt_drawn.items():
        drawn[other] = cards
    ids = [shop["id"] for area in view["areas"] for shop in area.values()]
    ids += [entry["id"] for entry in view["boulevard"]]
    taken = sum(stock_of(kind, n) for kind in SHOP_IDS) - sum(view["stock"].values())
    data = {key: view[key] for key in position.KEYS if key in view}
    data.update(
        format=position.POSITION_FORMAT,
        strategy_deck=deck,
        strategies=strategies,
        drawn=drawn,
        next_shop_id=max([taken, *(i + 1 for i in ids)]),
        rng=rng.getrandbits(64),
    )
    return position.from_json(data)


def _deal_hidden(
    records: list[dict[str, Any]],
    holders: list[int],
    drawn: dict[int, int],
    deck_size: int,
    pool: list[str],
    rng: random.Random,
) -> Dealt:
    """``pool`` shuffled and dealt: a card to each of ``holders`` (one its record allows), then
    ``drawn[seat]`` cards to each seat, then at most ``deck_size`` to the deck."""
    pool = pool[:]
    rng.shuffle(pool)
    dealt = _deal(records, holders, pool, rng)
    assert dealt is not None  # the real deal is one solution
    for card in dealt:
        pool.remove(card)
    hands = {}
    for other, count in drawn.items():
        hands[other], pool = pool[:count], pool[count:]
    return dict(zip(holders, dealt, strict=True)), hands, pool[:deck_size]


def _deal(
    records: list[dict[str, Any]], holders: list[int], pool: list[str], rng: random.Random
) -> list[str] | None:
    """A random card for each holder whose goal its record does not meet yet (backtracking)."""
    if not holders:
        return []
    first, rest = holders[0], holders[1:]
    order = pool[:]
    rng.shuffle(order)  # a kind comes first with a chance in proportion to its copies
    for card in dict.fromkeys(order):
        if goal_met(card, records[first]):
            continue
        remaining = pool[:]
        remaining.remove(card)
        tail = _deal(records, rest, remaining, rng)
        if tail is not None:
            return [card, *tail]
    return None
