"""RULES.md "Research variants": a smaller hand, for solvers; positions and views may hold it, a match not."""

from __future__ import annotations

import random

import pytest

from server.games.leilao import RULES, Bid, InvalidOptions, InvalidPosition, Options, new_game
from server.games.leilao import position as positions


def test_a_match_may_not_have_a_research_option() -> None:
    with pytest.raises(InvalidOptions, match="unknown option 'hand'"):
        RULES.options({"players": 2, "hand": 6})
    with pytest.raises(InvalidOptions, match="hand"):
        Options(players=2, hand=0)
    assert "hand" not in RULES.options({"players": 2})


def test_a_smaller_hand_is_dealt_and_played_by_the_rules() -> None:
    state = new_game(Options(players=2, hand=6), seed=3)
    assert state.hands == [[1, 2, 3, 4, 5, 6]] * 2
    assert len(RULES.legal_actions(state, 0)) == 6 + 6 * 5
    assert RULES.why_illegal(state, 0, Bid(7, None)) == "card 7 is not in seat 0's hand"
    RULES.apply(state, 0, Bid(6, 5))
    RULES.apply(state, 1, Bid(4, None))
    assert state.phase == "pick"


def test_a_research_position_round_trips_and_its_view_determinizes() -> None:
    state = new_game(Options(players=3, hand=4), seed=5)
    data = RULES.position_to_json(state)
    assert data["options"]["hand"] == 4
    assert RULES.position_from_json(data) == state
    view = RULES.view(state, 1)
    assert RULES.view(RULES.determinize(view, random.Random(2)), 1) == view


def test_a_research_position_accounts_for_its_own_cards() -> None:
    data = positions.to_json(new_game(Options(players=2, hand=4), seed=5))
    data["hands"][0] = [1, 2, 3, 4, 5]
    with pytest.raises(InvalidPosition, match=r"hands\[0\]\[4\] must be 1..4"):
        RULES.position_from_json(data)
    data["hands"][0] = [1, 2, 3]
    with pytest.raises(InvalidPosition, match="must hold 1-4 once each"):
        RULES.position_from_json(data)
