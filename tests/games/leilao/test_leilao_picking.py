"""RULES.md "A round", 5-6 (pick stalls, end of round) and the option ``leftover_stalls``."""

from __future__ import annotations

import pytest
from leilao_helpers import bid, game, names, pick

from server.games.leilao import RULES, IllegalAction, Pick
from server.games.leilao.state import BID, PICK

TOP4 = ("red-1", "red-2", "red-3", "red-4")
TOP6 = ("blue-1", "blue-2", "blue-3", "blue-4", "blue-5", "blue-6")


# A round, 5 (cycle): without extra bids every player gets exactly 2 stalls a round.
def test_cycle_without_extra_bids_gives_two_stalls_each() -> None:
    state = game(3, TOP6)
    bid(state, 0, 5)
    bid(state, 1, 15)
    bid(state, 2, 10)
    assert state.pick_sequence == [1, 2, 0, 1, 2, 0]
    for seat, stall in zip(state.pick_sequence, TOP6, strict=True):
        pick(state, seat, stall)
    assert [len(s) for s in state.stalls] == [2, 2, 2]
    assert state.removed == []


# A round, 5 (cycle): between N and 2N slots; with 2N slots each slot picks once.
def test_cycle_with_every_player_bidding_extra_each_slot_picks_once() -> None:
    state = game(2, TOP4)
    bid(state, 0, 20, 1)
    bid(state, 1, 12, 11)
    assert state.pick_sequence == [0, 1, 1, 0]


# A round, 5: the pick is a choice of any stall in the display, by the current slot's owner only.
def test_only_the_current_slot_picks_and_only_a_stall_in_the_display() -> None:
    state = game(2, TOP4)
    bid(state, 0, 3)
    bid(state, 1, 8)
    assert RULES.legal_actions(state, 1) == [Pick(c) for c in state.display]
    assert RULES.legal_actions(state, 0) == []
    assert RULES.why_illegal(state, 0, Pick(state.display[0])) == "it is not seat 0's turn to pick"
    assert RULES.why_illegal(state, 1, Pick(79)) == "stall yellow-20 is not in the display"
    assert RULES.why_illegal(state, 1, Pick(80)) == "there is no stall 80"
    before = RULES.position_to_json(state)
    with pytest.raises(IllegalAction):
        pick(state, 1, "yellow-20")
    assert RULES.position_to_json(state) == before
    pick(state, 1, "red-3")
    assert names(state.stalls[1]) == ["red-3"]
    assert names(state.display) == ["red-1", "red-2", "red-4"]


# Actions for a program: a forced last pick is still an action.
def test_the_last_pick_is_an_action_even_when_forced() -> None:
    state = game(2, TOP4)
    bid(state, 0, 3)
    bid(state, 1, 8)
    for stall in ("red-1", "red-2", "red-3"):
        pick(state, next(iter(RULES.to_move(state))), stall)
    assert state.phase == PICK and RULES.legal_actions(state, 0) == [Pick(3)]
    pick(state, 0, "red-4")
    assert state.phase == BID and state.round == 2


# Option leftover_stalls = discard: each slot picks once; stalls left over leave the game face up.
def test_discard_each_slot_picks_once_and_the_rest_leave_the_game() -> None:
    state = game(3, TOP6, leftover_stalls="discard")
    bid(state, 0, 5)
    bid(state, 1, 15, 2)
    bid(state, 2, 10)
    assert state.pick_sequence == [1, 2, 0, 1]
    pick(state, 1, "blue-6")
    pick(state, 2, "blue-5")
    pick(state, 0, "blue-4")
    events = pick(state, 1, "blue-1")
    assert events[1] == {"type": "leftover", "stalls": ["blue-2", "blue-3"]}
    assert names(state.removed) == ["blue-2", "blue-3"]
    assert RULES.view(state, None)["removed"] == ["blue-2", "blue-3"]
    assert state.round == 2 and len(state.display) == 6


def test_discard_with_2n_slots_leaves_nothing_over() -> None:
    state = game(2, TOP4, leftover_stalls="discard")
    bid(state, 0, 20, 1)
    bid(state, 1, 12, 11)
    for seat, stall in zip([0, 1, 1, 0], TOP4, strict=True):
        pick(state, seat, stall)
    assert state.removed == [] and state.round == 2


# A round, 6: otherwise the next round begins with 2N new stalls and a new bid step.
def test_the_next_round_deals_from_the_deck() -> None:
    state = game(2, (*TOP4, "green-7", "green-8", "green-9", "green-10"))
    bid(state, 0, 3)
    bid(state, 1, 8)
    for stall in TOP4:
        events = pick(state, next(iter(RULES.to_move(state))), stall)
    assert events[-1] == {
        "type": "deal",
        "round": 2,
        "display": ["green-7", "green-8", "green-9", "green-10"],
        "deck_count": 72,
    }
    assert RULES.to_move(state) == {0, 1} and state.ranking is None and state.pick_sequence is None
