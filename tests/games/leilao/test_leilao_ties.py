"""RULES.md "A round", 4 (break ties): tie groups, re-bids, members without cards."""

from __future__ import annotations

import pytest
from leilao_helpers import bid, game, rebid, set_hand

from server.games.leilao import RULES, Bid, IllegalAction, Rebid
from server.games.leilao.state import MAIN, PICK, REBID, TIEBREAK, LeilaoState, Played


def order(state: LeilaoState) -> list[tuple[int, int]]:
    """(seat, card) of each slot in rank order; tie groups flattened."""
    return [(s.seat, s.card) for group in state.ranking or [] for s in group]


# A round, 4: same numbers form a tie group; Decision: tied cards are void but stay in the piles.
def test_tied_cards_are_void_and_stay_in_the_played_piles() -> None:
    state = game(3)
    bid(state, 0, 7)
    bid(state, 1, 7)
    bid(state, 2, 12)
    assert state.played[0] == [Played(7, MAIN, True, 1)]
    assert state.played[1] == [Played(7, MAIN, True, 1)]
    assert state.played[2] == [Played(12, MAIN, False, 1)]
    view = RULES.view(state, 2)
    assert view["played"][0] == [{"card": 7, "role": "main", "void": True, "round": 1}]


# Decision (A round, 4): ties are broken at once, in the same round.
def test_ties_are_broken_at_once_by_the_tied_players_only() -> None:
    state = game(3)
    bid(state, 0, 7)
    bid(state, 1, 7)
    events = bid(state, 2, 12)
    assert state.phase == TIEBREAK and state.round == 1
    assert RULES.to_move(state) == {0, 1}
    assert events[-1] == {
        "type": "tiebreak",
        "card": 7,
        "slots": [{"seat": 0, "role": "main", "card": 7}, {"seat": 1, "role": "main", "card": 7}],
        "pending": [0, 1],
    }
    # Players outside the group wait.
    assert RULES.legal_actions(state, 2) == []
    assert RULES.why_illegal(state, 2, Rebid(1)) == "seat 2 does not re-bid in this tie-break"


# A round, 4: members are ordered by re-bid, highest first; re-bids go to the played piles.
def test_members_are_ordered_by_rebid_and_rebids_are_played() -> None:
    state = game(2)
    bid(state, 0, 7)
    bid(state, 1, 7)
    rebid(state, 0, 2)
    rebid(state, 1, 5)
    assert state.phase == PICK
    assert order(state) == [(1, 7), (0, 7)]
    assert state.played[0][-1] == Played(2, REBID, False, 1)
    assert state.played[1][-1] == Played(5, REBID, False, 1)


# Decision (A round, 4): a group tied at 12 stays above a lone 8 whatever it re-bids.
def test_a_tie_group_keeps_its_place_in_the_ranking() -> None:
    state = game(3)
    bid(state, 0, 12)
    bid(state, 1, 12)
    bid(state, 2, 8)
    rebid(state, 0, 1)
    rebid(state, 1, 2)
    assert order(state) == [(1, 12), (0, 12), (2, 8)]
    assert state.pick_sequence == [1, 0, 2, 1, 0, 2]


# A round, 4: groups resolved one at a time, highest number first.
def test_the_highest_tie_group_is_resolved_first() -> None:
    state = game(4)
    bid(state, 0, 5, 15)
    bid(state, 1, 15)
    bid(state, 2, 5)
    bid(state, 3, 10)
    assert RULES.to_move(state) == {0, 1}  # the group at 15
    rebid(state, 0, 20)
    rebid(state, 1, 19)
    assert RULES.to_move(state) == {0, 2}  # then the group at 5
    rebid(state, 2, 20)
    rebid(state, 0, 1)
    assert order(state) == [(0, 15), (1, 15), (3, 10), (2, 5), (0, 5)]


# A round, 4: equal re-bids form a new group in the same place, resolved before anything below.
def test_equal_rebids_make_a_new_group_in_the_same_place() -> None:
    state = game(4, start=0)
    bid(state, 0, 9)
    bid(state, 1, 9)
    bid(state, 2, 9)
    bid(state, 3, 4, 9)
    rebid(state, 0, 6)
    rebid(state, 1, 3)
    rebid(state, 2, 6)
    rebid(state, 3, 1)
    # 0 and 2 tied again at the top of the group: only they re-bid; the voids are recorded.
    assert state.phase == TIEBREAK and RULES.to_move(state) == {0, 2}
    assert state.played[0][-1] == Played(6, REBID, True, 1)
    assert state.played[1][-1] == Played(3, REBID, False, 1)
    rebid(state, 0, 2)
    rebid(state, 2, 8)
    assert order(state) == [(2, 9), (0, 9), (1, 9), (3, 9), (3, 4)]


# A round, 4 (repeated ties): a group can tie again and again until the re-bids differ.
def test_repeated_ties_go_on_until_the_rebids_differ() -> None:
    state = game(2, start=1)
    bid(state, 0, 10)
    bid(state, 1, 10)
    for number in (9, 8, 7):
        rebid(state, 1, number)
        rebid(state, 0, number)
        assert state.phase == TIEBREAK
    rebid(state, 0, 1)
    rebid(state, 1, 2)
    assert order(state) == [(1, 10), (0, 10)]
    assert [p.void for p in state.played[0]] == [True, True, True, True, False]


# A round, 4: members whose owners hold no card come after those that re-bid, in priority order.
def test_members_without_cards_come_after_the_rebidders_in_priority_order() -> None:
    state = game(4, start=3)
    set_hand(state, 1, [6])
    set_hand(state, 2, [6])
    for seat in (0, 1, 2, 3):
        bid(state, seat, 6)
    # Seats 1 and 2 have emptied their hands; 0 and 3 re-bid.
    assert RULES.to_move(state) == {0, 3}
    rebid(state, 0, 2)
    rebid(state, 3, 2)
    assert RULES.to_move(state) == {0, 3}
    rebid(state, 0, 1)
    rebid(state, 3, 5)
    # Re-bidders first (3, then 0), then 1 and 2 in priority order from the start player 3.
    assert order(state) == [(3, 6), (0, 6), (1, 6), (2, 6)]


# A round, 4: with fewer than two holders nobody re-bids; the holder first, the rest by priority.
def test_with_one_card_holder_the_group_is_settled_at_once() -> None:
    state = game(3, start=2)
    set_hand(state, 0, [8])
    set_hand(state, 1, [8])
    bid(state, 0, 8)
    bid(state, 1, 8)
    events = bid(state, 2, 8)
    assert state.phase == PICK
    assert order(state) == [(2, 8), (0, 8), (1, 8)]
    settled = next(e for e in events if e["type"] == "tie_settled")
    assert [s["seat"] for s in settled["order"]] == [2, 0, 1]


def test_with_no_card_holder_the_group_follows_priority_order() -> None:
    state = game(3, start=1)
    for seat in range(3):
        set_hand(state, seat, [8])
        bid(state, seat, 8)
    assert state.phase == PICK
    assert order(state) == [(1, 8), (2, 8), (0, 8)]


# A member with an empty hand only after a re-bid: the next group settles without it re-bidding.
def test_a_member_who_spent_the_last_card_in_a_rebid_is_placed_without_rebidding() -> None:
    state = game(2, start=0)
    set_hand(state, 0, [4, 9])
    set_hand(state, 1, [4, 9, 15])
    bid(state, 0, 9)
    bid(state, 1, 9)
    rebid(state, 0, 4)
    rebid(state, 1, 4)
    # Seat 0 has no card left: the new group is settled, seat 1 (holding cards) first.
    assert state.phase == PICK
    assert order(state) == [(1, 9), (0, 9)]


# Not decided by the source: no extra bids in a tie-break; a re-bid is one card from hand.
def test_a_tiebreak_allows_only_a_rebid_of_a_card_in_hand() -> None:
    state = game(2)
    bid(state, 0, 7)
    bid(state, 1, 7)
    assert RULES.legal_actions(state, 0) == [Rebid(c) for c in range(1, 21) if c != 7]
    assert RULES.why_illegal(state, 0, Bid(3, 4)) == "no bids in the tiebreak step"
    assert RULES.why_illegal(state, 0, Rebid(7)) == "card 7 is not in seat 0's hand"
    rebid(state, 0, 3)
    with pytest.raises(IllegalAction, match="already submitted"):
        rebid(state, 0, 4)


# Events: the re-bids are revealed together when the last member has re-bid.
def test_rebids_are_revealed_together() -> None:
    state = game(2)
    bid(state, 0, 7)
    bid(state, 1, 7)
    assert rebid(state, 1, 20) == [{"type": "sealed", "step": "tiebreak", "seat": 1, "card": 20}]
    events = rebid(state, 0, 19)
    assert events[1] == {
        "type": "reveal",
        "step": "tiebreak",
        "round": 1,
        "rebids": [{"seat": 0, "card": 19}, {"seat": 1, "card": 20}],
    }
