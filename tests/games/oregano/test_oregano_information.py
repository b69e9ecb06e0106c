"""RULES.md "Information": views, events per seat, and sampling what a seat cannot see."""

from __future__ import annotations

import random
from collections import Counter

from test_oregano_support import acting, of_type, play, position, through_setup

from server.games.oregano import RULES
from server.games.oregano import actions as A


def _achieving(**options: object) -> tuple[object, list[dict[str, object]]]:
    state = acting(
        "sell",
        strategies=["strategic_retreat", "aggressive_merger"],
        records=[{"sold": 1}, {}],
        areas=[{"1a": "cafe"}, {}],
        options=dict(options) or None,
    )
    return state, play(state, 0, A.sell("1a"))


def test_view_shape_and_public_parts() -> None:
    state = position(
        areas=[{"1a": "cafe"}, {"1b": "stone_merchant"}],
        gold=[3, 9],
        resources=[{"wood": 2}, {}],
        boulevard=[("restaurant", 2, 1)],
        bonuses=[["first_row"], []],
    )
    view = RULES.view(state, 1)
    assert view["format"] == "oregano-view/1" and view["seat"] == 1
    assert view["options"] == RULES.options({"players": 2})
    assert (view["phase"], view["to_move"], view["round"]) == ("declare", [0], 1)
    # Decision: gold and resource cards are public.
    assert view["gold"] == [3, 9] and view["resources"][0] == {"wood": 2, "stone": 0, "metal": 0}
    assert view["areas"][0] == {"1a": {"shop": "cafe", "id": 0}}
    assert view["boulevard"] == [{"shop": "restaurant", "level": 2, "seller": 1, "id": 2}]
    assert view["stock"] == state.stock and view["supply"] == state.supply
    assert view["bonuses"] == [["first_row"], []] and "first_row" not in view["bonus_available"]
    assert view["strategy_deck_count"] == 8
    assert "strategy_deck" not in view and "rng" not in view
    assert "legal_actions" not in view and view["result"] is None
    assert len(RULES.view(state, 0)["legal_actions"]) == 12


# Decision (strategy_cards = hidden): your card and its progress are yours alone.
def test_strategy_cards_hidden_from_others() -> None:
    state = position(strategies=["strategic_retreat", "chain_store"], records=[{"sold": 1}, {}])
    assert RULES.view(state, 0)["strategies"] == [
        {"card": "strategic_retreat", "progress": 1, "goal": 2},
        {"count": 1},
    ]
    assert RULES.view(state, None)["strategies"] == [{"count": 1}, {"count": 1}]


# Option strategy_cards = open: held cards and progress are public.
def test_strategy_cards_open() -> None:
    state = position(
        strategies=["strategic_retreat", "chain_store"],
        records=[{"sold": 1}, {}],
        options={"strategy_cards": "open"},
    )
    assert RULES.view(state, 1)["strategies"][0] == {"card": "strategic_retreat", "progress": 1, "goal": 2}


# The achieved card's kind is public; the drawn and put-back cards are private, even when open.
def test_events_hide_drawn_and_put_back_cards() -> None:
    for visibility in ("hidden", "open"):
        state, events = _achieving(strategy_cards=visibility)
        assert (
            of_type(RULES.events_for(state, events, 1), "strategy_achieved")[0]["card"] == "strategic_retreat"
        )
        assert of_type(RULES.events_for(state, events, 1), "strategy_drawn") == [
            {"type": "strategy_drawn", "seat": 0, "count": 2}
        ]
        assert of_type(RULES.events_for(state, events, 0), "strategy_drawn") == of_type(
            events, "strategy_drawn"
        )
        view = RULES.view(state, 1)
        assert view["drawn"] == [{"count": 2}, {"cards": []}]
        assert RULES.view(state, 0)["drawn"][0] == {"cards": state.drawn[0]}
        kept, *returned = state.drawn[0]
        events = play(state, 0, A.keep_strategy(kept))
        shown = of_type(RULES.events_for(state, events, 1), "strategy_kept")[0]
        assert shown["returned_count"] == 1 and "returned" not in shown
        assert ("card" in shown) == (visibility == "open")
        assert of_type(RULES.events_for(state, events, 0), "strategy_kept")[0]["returned"] == returned


def test_events_are_copies_and_public_events_unchanged() -> None:
    state = acting("resource", areas=[{}, {"1a": "stone_merchant"}])
    events = play(state, 0, A.take_resources(1, "1a"))
    assert RULES.events_for(state, events, 1) == events
    assert RULES.events_for(state, events, None) == events


# Hidden from all: the deck order and the rng (future shuffles and die rolls).
def test_no_view_shows_the_deck_order_or_rng() -> None:
    state = through_setup(3, 2)
    for seat in (None, 0, 1, 2):
        text = str(RULES.view(state, seat))
        assert "rng" not in text and "strategy_deck'" not in text


# Sampling: the seat's view of the sample equals its view of the real state.
def test_sample_keeps_the_view_and_redeals_the_hidden() -> None:
    state = through_setup(4, 9)
    rng = random.Random(5)
    decks = set()
    for _ in range(20):
        sample = RULES.sample(state, 1, rng)
        assert RULES.view(sample, 1) == RULES.view(state, 1)
        assert sample.strategies[1] == state.strategies[1]
        assert Counter(sample.strategy_deck + [c for c in sample.strategies if c]) == Counter(
            state.strategy_deck + [c for c in state.strategies if c]
        )
        decks.add((tuple(sample.strategy_deck), tuple(sample.strategies)))
    assert len(decks) > 5


# Sampling: another seat cannot hold a card whose goal its public record already meets.
def test_sample_respects_what_the_record_rules_out() -> None:
    state = position(strategies=["chain_store", "aggressive_merger"], records=[{}, {"sold": 2}])
    rng = random.Random(1)
    cards = {RULES.sample(state, 0, rng).strategies[1] for _ in range(100)}
    assert "strategic_retreat" not in cards and len(cards) == 4


def test_sample_with_open_cards_only_shuffles_the_deck() -> None:
    state = position(strategies=["chain_store", "aggressive_merger"], options={"strategy_cards": "open"})
    sample = RULES.sample(state, 0, random.Random(3))
    assert sample.strategies == state.strategies
    assert sorted(sample.strategy_deck) == sorted(state.strategy_deck)


def test_sample_redraws_another_seats_drawn_cards() -> None:
    state, _ = _achieving()
    sample = RULES.sample(state, 1, random.Random(2))
    assert RULES.view(sample, 1) == RULES.view(state, 1)
    assert len(sample.drawn[0]) == 2
    (seat,) = RULES.to_move(sample)
    play(sample, seat, RULES.legal_actions(sample, seat)[0])
