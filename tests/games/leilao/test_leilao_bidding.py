"""RULES.md "A round", 2-3 (bid, reveal and rank) and "Simultaneous moves for a program"."""

from __future__ import annotations

import pytest
from leilao_helpers import bid, game, pick, set_hand

from server.games.leilao import RULES, Bid, IllegalAction, Pick, Rebid
from server.games.leilao.state import EXTRA, MAIN, PICK, Played


# Simultaneous moves: in bid every player is pending, in any order.
@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_player_must_bid_in_the_bid_step(players: int) -> None:
    state = game(players)
    assert RULES.to_move(state) == frozenset(range(players))
    for seat in range(players):
        assert len(RULES.legal_actions(state, seat)) == 400


# Actions for a program: a hand of h cards gives h + h(h-1) bids; bidding is compulsory (no pass).
def test_legal_bids_are_every_main_card_with_or_without_another_extra_card() -> None:
    state = game(2)
    set_hand(state, 0, [2, 5, 9])
    actions = RULES.legal_actions(state, 0)
    assert len(actions) == 3 + 3 * 2
    assert all(isinstance(a, Bid) for a in actions)
    assert Bid(5, None) in actions and Bid(5, 9) in actions and Bid(9, 2) in actions
    assert len(set(actions)) == len(actions)


# A round, 2: the extra bid needs two cards in hand.
def test_with_one_card_in_hand_there_is_no_extra_bid() -> None:
    state = game(2)
    set_hand(state, 1, [7])
    assert RULES.legal_actions(state, 1) == [Bid(7, None)]
    assert RULES.why_illegal(state, 1, Bid(7, 3)) is not None


# A round, 2 / Actions: card in hand, extra another card in hand.
@pytest.mark.parametrize(
    ("action", "reason"),
    [
        (Bid(21, None), "not in seat 0's hand"),
        (Bid(3, None), "not in seat 0's hand"),
        (Bid(5, 3), "extra card 3 is not in seat 0's hand"),
        (Bid(5, 5), "must differ"),
        (Rebid(5), "no re-bids in the bid step"),
        (Pick(0), "no picks in the bid step"),
    ],
)
def test_a_bid_must_use_cards_in_hand(action: Bid | Rebid | Pick, reason: str) -> None:
    state = game(2, top=["red-1", "red-2", "red-3", "red-4"])
    set_hand(state, 0, [5, 9, 12])
    before = RULES.position_to_json(state)
    assert reason in (RULES.why_illegal(state, 0, action) or "")
    with pytest.raises(IllegalAction):
        RULES.apply(state, 0, action)
    assert RULES.position_to_json(state) == before


# Decision (Simultaneous moves): a submission cannot be changed or withdrawn.
def test_a_seat_bids_once_per_step() -> None:
    state = game(3)
    bid(state, 1, 10)
    assert RULES.to_move(state) == {0, 2}
    assert RULES.legal_actions(state, 1) == []
    assert RULES.why_illegal(state, 1, Bid(9, None)) == "seat 1 has already submitted in this step"
    with pytest.raises(IllegalAction):
        bid(state, 1, 9)


# Decision (A round, 2): main and extra form one sealed choice, stored sealed, cards out of the hand.
def test_a_bid_is_stored_sealed_until_everyone_has_bid() -> None:
    state = game(2)
    events = bid(state, 0, 11, 4)
    assert events == [{"type": "sealed", "step": "bid", "seat": 0, "card": 11, "extra": 4}]
    assert state.sealed[0] == (11, 4)
    assert 11 not in state.hands[0] and 4 not in state.hands[0]
    assert state.played[0] == []


# A round, 3: all bids revealed at once onto the played piles, with their roles.
def test_the_last_bid_reveals_all_bids_onto_the_played_piles() -> None:
    state = game(3)
    bid(state, 0, 15, 2)
    bid(state, 2, 9)
    events = bid(state, 1, 13)
    assert events[0] == {"type": "sealed", "step": "bid", "seat": 1, "card": 13, "extra": None}
    assert events[1]["type"] == "reveal"
    assert state.sealed == [None, None, None]
    assert state.played[0] == [Played(15, MAIN, False, 1), Played(2, EXTRA, False, 1)]
    assert state.played[1] == [Played(13, MAIN, False, 1)]
    assert state.played[2] == [Played(9, MAIN, False, 1)]


# A round, 3: slots ranked by number, highest first; Decision: the extra card is simply a second slot.
def test_slots_are_ranked_highest_first_and_an_extra_bid_is_its_own_slot() -> None:
    state = game(3)
    bid(state, 0, 15, 2)
    bid(state, 1, 13)
    bid(state, 2, 9, 14)
    assert state.phase == PICK
    ranking = [(g[0].seat, g[0].role, g[0].card) for g in state.ranking or []]
    assert ranking == [(0, MAIN, 15), (2, EXTRA, 14), (1, MAIN, 13), (2, MAIN, 9), (0, EXTRA, 2)]
    assert state.pick_sequence == [0, 2, 1, 2, 0, 0]


# Decision (A round, 3): the extra card never stands in for a tied main card.
def test_an_extra_card_does_not_replace_a_tied_main_card() -> None:
    state = game(2)
    bid(state, 0, 10, 18)
    bid(state, 1, 10)
    # A's 18 is a slot of its own at the top; A's 10 still ties B's 10.
    assert state.ranking is not None
    assert [(s.seat, s.card) for s in state.ranking[0]] == [(0, 18)]
    assert [(s.seat, s.card) for s in state.ranking[1]] == [(0, 10), (1, 10)]
    assert RULES.to_move(state) == {0, 1}


# Simultaneous moves: after the last submission the engine goes on by itself to picking.
def test_without_ties_picking_starts_at_once_with_the_top_slot() -> None:
    state = game(2, top=["red-1", "red-2", "red-3", "red-4"])
    bid(state, 0, 3)
    bid(state, 1, 8)
    assert state.phase == PICK
    assert RULES.to_move(state) == {1}
    assert state.pick_sequence == [1, 0, 1, 0]
    pick(state, 1, "red-4")
    assert RULES.to_move(state) == {0}


# Not decided by the source: the fee is due whatever the extra bid wins, tie or no tie.
def test_the_fee_is_recorded_at_the_reveal_even_for_a_tied_extra() -> None:
    state = game(2)
    bid(state, 0, 12, 6)
    assert RULES.view(state, 0)["fees"] == [0, 0]
    bid(state, 1, 6)
    assert RULES.view(state, 1)["fees"] == [5, 0]
    assert state.played[0][1] == Played(6, EXTRA, True, 1)


def test_the_state_is_the_same_whatever_the_order_of_submissions() -> None:
    first, second = game(4, start=1), game(4, start=1)
    bids = {0: (9, 3), 1: (9, None), 2: (14, 3), 3: (1, None)}
    for seat in (0, 1, 2, 3):
        bid(first, seat, *bids[seat])
    for seat in (3, 1, 2, 0):
        bid(second, seat, *bids[seat])
    assert RULES.position_to_json(first) == RULES.position_to_json(second)


# Not decided by the source, decided here: bidding is compulsory; nobody can pass.
def test_nobody_can_pass_a_bid() -> None:
    state = game(2)
    set_hand(state, 1, [4])
    assert all(isinstance(a, Bid) for seat in (0, 1) for a in RULES.legal_actions(state, seat))
    assert RULES.legal_actions(state, 1) == [Bid(4, None)]
    with pytest.raises(ValueError):
        RULES.action_from_json({"type": "pass"})
