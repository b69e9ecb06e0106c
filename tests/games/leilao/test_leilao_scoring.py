"""RULES.md "Final scoring": stall points + set bonus - card penalty - fees; winners and ties."""

from __future__ import annotations

import pytest
from leilao_helpers import card, game

from server.games.leilao import RULES, LeilaoState
from server.games.leilao.scoring import card_penalty, fees, outcome, scores, set_bonus, stall_points
from server.games.leilao.state import EXTRA, FINISHED, MAIN, REBID, Played


def finished(players: int = 2, **options: str) -> LeilaoState:
    state = game(players, **options)
    state.display = []
    state.deck = []
    state.phase = FINISHED
    return state


def give(state: LeilaoState, seat: int, *stalls: str) -> None:
    state.stalls[seat] = [card(s) for s in stalls]


def play(state: LeilaoState, seat: int, *cards: tuple[int, str]) -> None:
    state.played[seat] = [Played(number, role, False, 1) for number, role in cards]
    state.hands[seat] = [c for c in range(1, 21) if c not in {n for n, _ in cards}]


# Stall points: the sum of the stalls' numbers.
def test_stall_points_are_the_sum_of_the_stall_numbers() -> None:
    state = finished()
    give(state, 0, "red-17", "blue-3", "green-20")
    assert stall_points(state, 0) == 40 and stall_points(state, 1) == 0


# Set bonus (Assumed 10), per_set (default): 10 per complete set = stalls in the scarcest colour.
def test_per_set_bonus_counts_complete_colour_sets() -> None:
    state = finished()
    give(state, 0, "red-1", "red-2", "blue-1", "blue-2", "green-1", "green-2", "yellow-1")
    give(state, 1, "red-1", "blue-1", "green-1")
    assert set_bonus(state, 0) == 10 and set_bonus(state, 1) == 0
    give(state, 0, "red-1", "red-2", "blue-1", "blue-2", "green-1", "green-2", "yellow-1", "yellow-2")
    assert set_bonus(state, 0) == 20


# Set bonus, once: 10 if the player owns at least one stall of each colour.
def test_once_bonus_is_ten_for_owning_all_four_colours() -> None:
    state = finished(set_bonus="once")
    give(state, 0, "red-1", "red-2", "blue-1", "blue-2", "green-1", "green-2", "yellow-1", "yellow-2")
    give(state, 1, "red-1", "blue-1", "green-1")
    assert set_bonus(state, 0) == 10 and set_bonus(state, 1) == 0


# Card penalty, face (default): the sum of the numbers in the played pile, void cards included.
def test_face_penalty_is_the_sum_of_played_numbers_void_or_not() -> None:
    state = finished()
    play(state, 0, (15, MAIN), (4, EXTRA), (2, REBID))
    state.played[0][1] = state.played[0][1]._replace(void=True)
    assert card_penalty(state, 0) == 21


# Card penalty, one: 1 per played card.
def test_one_penalty_is_one_per_played_card() -> None:
    state = finished(card_penalty="one")
    play(state, 0, (15, MAIN), (4, EXTRA), (2, REBID))
    assert card_penalty(state, 0) == 3


# Fees: 5 per extra bid; cards left in hand do not score.
def test_fees_are_five_per_extra_bid_and_cards_in_hand_do_not_count() -> None:
    state = finished()
    play(state, 0, (15, MAIN), (4, EXTRA), (9, MAIN), (8, EXTRA))
    assert fees(state, 0) == 10
    give(state, 0, "red-20")
    assert scores(state) == (20 - 36 - 10, 0)


# Decision (Components): coins are points off the final score; scores may be negative.
def test_the_full_score_and_negative_scores() -> None:
    state = finished()
    give(state, 0, "red-10", "blue-10", "green-10", "yellow-10", "red-5")
    play(state, 0, (11, MAIN), (6, EXTRA))
    play(state, 1, (20, MAIN), (19, MAIN))
    give(state, 1, "red-3")
    assert scores(state) == (45 + 10 - 17 - 5, 3 - 39)


# The highest score wins (ranks 1-based).
def test_the_highest_score_wins() -> None:
    state = finished(3)
    give(state, 0, "red-5")
    give(state, 1, "red-9")
    give(state, 2, "red-7")
    result = outcome(state)
    assert result.scores == (5, 9, 7) and result.ranks == (3, 1, 2)
    assert RULES.outcome(state) == result


# Decision (Final scoring): score ties go to the higher stall points ...
def test_a_score_tie_goes_to_higher_stall_points() -> None:
    state = finished()
    give(state, 0, "red-10")
    give(state, 1, "red-14")
    play(state, 1, (4, MAIN))
    result = outcome(state)
    assert result.scores == (10, 10)
    assert result.ranks == (2, 1)
    assert result.tie_breaks == ((10, 1), (14, 1))


# ... then to more stalls ...
def test_then_to_more_stalls() -> None:
    state = finished()
    give(state, 0, "red-10")
    give(state, 1, "red-6", "blue-4")
    result = outcome(state)
    assert result.scores == (10, 10) and result.ranks == (2, 1)
    assert result.tie_breaks == ((10, 1), (10, 2))


# ... and players still tied share the place (the next place is skipped).
def test_players_still_tied_share_the_place() -> None:
    state = finished(4)
    give(state, 0, "red-10")
    give(state, 1, "blue-10")
    give(state, 2, "green-12")
    give(state, 3, "yellow-2")
    result = outcome(state)
    assert result.ranks == (2, 2, 1, 4)
    assert result.to_json()["tie_breaks"] == [[10, 1], [10, 1], [12, 1], [2, 1]]


def test_everyone_tied_shares_first_place() -> None:
    state = finished(3)
    assert outcome(state).ranks == (1, 1, 1)


@pytest.mark.parametrize("seat", [0, 1])
def test_the_view_shows_the_current_scores(seat: int) -> None:
    state = finished()
    give(state, 0, "red-10")
    play(state, 1, (4, MAIN))
    assert RULES.view(state, seat)["scores"] == [10, -4]
