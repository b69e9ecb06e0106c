"""RULES.md "Information": views, events per seat, and the sampler for search."""

from __future__ import annotations

import json
import random

from leilao_helpers import bid, game, names, rebid, set_hand

from server.games.leilao import RULES
from server.games.leilao.state import BID, TIEBREAK


# Secret until the step ends: another seat's sealed bid, and whether it holds an extra card.
def test_views_hide_another_seats_sealed_bid_and_show_the_cards_still_in_hand() -> None:
    state = game(3)
    bid(state, 0, 11, 4)
    for seat in (1, 2, None):
        view = RULES.view(state, seat)
        assert view["acted"] == [0]
        assert view["to_move"] == [1, 2]
        assert view["hands"][0] == list(range(1, 21))
        assert view["sealed"] is None
        assert view["played"][0] == [] and view["fees"] == [0, 0, 0]


# A player always sees their own sealed choice.
def test_a_seat_sees_its_own_sealed_bid() -> None:
    state = game(2)
    bid(state, 0, 11, 4)
    view = RULES.view(state, 0)
    assert view["sealed"] == {"card": 11, "extra": 4}
    assert 11 not in view["hands"][0] and 4 not in view["hands"][0]
    assert "legal_actions" not in view  # it has acted
    assert len(RULES.view(state, 1)["legal_actions"]) == 400


def test_a_sealed_rebid_is_hidden_until_the_tiebreak_reveal() -> None:
    state = game(2)
    bid(state, 0, 7)
    bid(state, 1, 7)
    rebid(state, 1, 13)
    view = RULES.view(state, 0)
    assert view["phase"] == TIEBREAK and view["acted"] == [1] and view["sealed"] is None
    assert 13 in view["hands"][1]
    assert view["tie_group"] == [
        {"seat": 0, "role": "main", "card": 7},
        {"seat": 1, "role": "main", "card": 7},
    ]
    assert RULES.view(state, 1)["sealed"] == {"card": 13}


# Events: another seat's submission says only that the seat has acted; the reveal shows everything.
def test_events_for_another_seat_say_only_who_has_acted() -> None:
    state = game(2)
    events = bid(state, 0, 11, 4)
    assert RULES.events_for(state, events, 0) == events
    for seat in (1, None):
        assert RULES.events_for(state, events, seat) == [{"type": "sealed", "step": BID, "seat": 0}]
    events = bid(state, 1, 4)
    shown = RULES.events_for(state, events, 0)
    assert shown[0] == {"type": "sealed", "step": BID, "seat": 1}
    assert shown[1]["type"] == "reveal" and shown[1]["bids"][1] == {"seat": 1, "card": 4, "extra": None}


# Hidden from everyone: the order of the market deck (only its size is shown).
def test_views_show_the_deck_size_never_its_cards() -> None:
    state = game(2)
    for seat in (0, 1, None):
        view = RULES.view(state, seat)
        assert view["deck_count"] == 76
        text = json.dumps(view)
        assert all(name not in text.replace(",", " ").replace('"', " ").split() for name in names(state.deck))


# Public at all times: display, stalls, played piles with roles and void flags, fees, ranking, scores.
def test_public_parts_of_the_view() -> None:
    state = game(2, ("red-17", "blue-12", "yellow-9", "green-5"), start=1)
    bid(state, 0, 11, 4)
    bid(state, 1, 4)
    rebid(state, 0, 1)
    rebid(state, 1, 2)
    view = RULES.view(state, None)
    assert view["format"] == "leilao-view/1" and view["seat"] is None
    assert view["display"] == ["red-17", "blue-12", "yellow-9", "green-5"]
    assert view["played"][0] == [
        {"card": 11, "role": "main", "void": False, "round": 1},
        {"card": 4, "role": "extra", "void": True, "round": 1},
        {"card": 1, "role": "rebid", "void": False, "round": 1},
    ]
    assert view["fees"] == [5, 0]
    assert view["pick_sequence"] == [0, 1, 0, 0]
    assert view["start_player"] == 1 and view["phase"] == "pick" and view["to_move"] == [0]
    assert view["scores"] == [-16 - 5, -6]
    assert "legal_actions" not in view
    assert RULES.view(state, 0)["legal_actions"][0] == {"type": "pick", "stall": "red-17"}


# The sampler: the deck reshuffled, another seat's sealed choice redrawn from its own cards.
def test_sample_redraws_other_sealed_choices_and_keeps_the_seats_own() -> None:
    state = game(3)
    bid(state, 0, 11, 4)
    bid(state, 1, 20)
    rng = random.Random(3)
    samples = [RULES.sample(state, 1, rng) for _ in range(30)]
    assert all(s.sealed[1] == (20, None) and s.sealed[2] is None for s in samples)
    assert len({s.sealed[0] for s in samples}) > 10
    assert len({tuple(s.deck) for s in samples}) == 30
    assert any(s.sealed[0] is not None and s.sealed[0].extra is None for s in samples)
    for s in samples:
        assert RULES.view(s, 1) == RULES.view(state, 1)
        assert sorted(s.deck) == sorted(state.deck)
        RULES.position_from_json(RULES.position_to_json(s))
    assert state.sealed[0] == (11, 4)  # the real state is untouched


def test_sample_in_a_tiebreak_redraws_a_rebid_from_the_hand() -> None:
    state = game(2)
    set_hand(state, 0, [3, 7, 9])
    bid(state, 0, 7)
    bid(state, 1, 7)
    rebid(state, 0, 9)
    sampled = {RULES.sample(state, 1, random.Random(seed)).sealed[0] for seed in range(20)}
    assert sampled == {(3, None), (9, None)}
