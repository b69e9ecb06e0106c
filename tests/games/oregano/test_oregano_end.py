"""RULES.md "End of the game" and "Final scoring"."""

from __future__ import annotations

from typing import Any

import pytest
from test_oregano_support import SKIP, of_type, play, position

from server.games.oregano import RULES, IllegalAction, OreganoState
from server.games.oregano import actions as A
from server.games.oregano.scoring import ranks_of

TWO_OUT = {"cafe": 0, "general_store": 0}


def _last_action(round: int, current: int = 0, **facts: Any) -> OreganoState:
    return position(
        phase="action", declared=["sell", "attract"], step=1, round=round, current=current, **facts
    )


def _end_turn(state: OreganoState) -> list[dict[str, Any]]:
    (seat,) = RULES.to_move(state)
    return play(state, seat, SKIP)


# Trigger: two kinds out of stock at the end of a turn, from round 12; the round is finished.
def test_stock_trigger_finishes_the_round() -> None:
    state = _last_action(12, stock=TWO_OUT)
    events = _end_turn(state)
    assert of_type(events, "end_triggered") == [{"type": "end_triggered", "seat": 0, "round": 12}]
    assert state.status == "final_round" and state.end_triggered and RULES.to_move(state) == {1}
    play(state, 1, A.declare("sell", "attract"))
    play(state, 1, SKIP)
    events = play(state, 1, SKIP)
    assert RULES.is_over(state) and state.status == "finished" and state.round == 12
    assert of_type(events, "game_over")[0]["result"] == RULES.outcome(state).to_json()  # type: ignore[union-attr]


# Decision: the guard: no stock check before round stock_end_from_round.
def test_no_stock_trigger_before_round_twelve() -> None:
    state = _last_action(11, stock=TWO_OUT)
    assert not of_type(_end_turn(state), "end_triggered")
    assert state.status == "playing"


def test_literal_stock_rule_from_round_one() -> None:
    state = _last_action(1, stock=TWO_OUT, options={"stock_end_from_round": 1})
    assert of_type(_end_turn(state), "end_triggered")


def test_one_kind_out_is_not_enough() -> None:
    state = _last_action(15, stock={"cafe": 0})
    assert not of_type(_end_turn(state), "end_triggered")


# end_timing = turn: the game ends right after the triggering turn.
def test_end_timing_turn() -> None:
    state = _last_action(12, stock=TWO_OUT, options={"end_timing": "turn"})
    _end_turn(state)
    assert RULES.is_over(state) and state.current == 0


# With end_timing = round, a trigger on the round's last turn ends the game at once.
def test_trigger_on_the_last_turn_of_the_round() -> None:
    state = _last_action(13, current=1, stock=TWO_OUT)
    _end_turn(state)
    assert RULES.is_over(state)


# Decision: the game ends at the end of round round_limit.
def test_round_limit() -> None:
    state = _last_action(20, current=1)
    _end_turn(state)
    assert RULES.is_over(state) and state.round == 20
    state = _last_action(3, current=1, options={"round_limit": 3})
    _end_turn(state)
    assert RULES.is_over(state)
    state = _last_action(3, current=0, options={"round_limit": 3})
    _end_turn(state)
    assert not RULES.is_over(state) and state.current == 1


def test_round_advances_after_the_last_seat() -> None:
    state = _last_action(5, current=1, first=1)
    _end_turn(state)
    assert state.round == 5 and state.current == 0
    state = _last_action(5, current=0, first=1)
    _end_turn(state)
    assert state.round == 6 and state.current == 1


def test_nothing_to_do_once_over() -> None:
    state = _last_action(20, current=1)
    assert RULES.outcome(state) is None
    _end_turn(state)
    assert RULES.to_move(state) == frozenset()
    assert RULES.legal_actions(state, 0) == []
    with pytest.raises(IllegalAction, match="over"):
        play(state, 0, A.declare("sell", "attract"))


# Final scoring: gold + 2/5/8/10 per shop by level (specials level 1) + 5 per bonus card;
# resource and strategy cards are worth nothing.
def test_final_score() -> None:
    state = _last_action(
        20,
        current=1,
        gold=[3, 0],
        areas=[{"1a": "casino", "2a": "cafe", "3a": "cafe", "4a": "restaurant"}, {}],
        resources=[{"wood": 5}, {"metal": 2}],
        bonuses=[["first_level4", "first_row"], []],
    )
    _end_turn(state)
    outcome = RULES.outcome(state)
    assert outcome is not None
    assert outcome.scores == (3 + 2 + 5 + 8 + 10 + 10, 0)
    assert outcome.ranks == (1, 2)


# Decision: ties go to more gold, then more bonus cards; still tied share the rank.
def test_ties_broken_by_gold_then_bonus_cards() -> None:
    state = _last_action(
        20,
        current=2,
        players=3,
        gold=[10, 5, 0],
        areas=[{}, {"2a": "cafe"}, {"2a": "cafe"}],
        bonuses=[[], [], ["first_row"]],
    )
    _end_turn(state)
    outcome = RULES.outcome(state)
    assert outcome is not None
    assert outcome.scores == (10, 10, 10)
    assert outcome.tie_breaks == ((10, 0), (5, 0), (0, 1))
    assert outcome.ranks == (1, 2, 3)


def test_shared_ranks() -> None:
    assert ranks_of([(10, 5, 0), (10, 5, 0), (12, 0, 0), (3, 3, 3)]) == (2, 2, 1, 4)
    state = _last_action(20, current=1, gold=[4, 4])
    _end_turn(state)
    assert RULES.outcome(state).ranks == (1, 1)  # type: ignore[union-attr]
