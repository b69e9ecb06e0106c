"""What the AI's search takes a Leilão position's final scores to be (``estimated_scores``)."""

from __future__ import annotations

import random

from leilao_helpers import bid, game, random_move, rebid, set_hand

from server.games.leilao import RULES
from server.games.leilao.state import PICK, TIEBREAK


def test_at_the_start_every_seat_expects_the_same() -> None:
    for players in (2, 3, 4):
        estimates = RULES.estimated_scores(game(players))
        assert len(estimates) == players
        assert len(set(estimates)) == 1 and estimates[0] > 0


def test_of_two_hands_that_cost_the_same_the_one_that_wins_more_draws_expects_more() -> None:
    state = game(2)
    set_hand(state, 0, [8, 9, 13])  # beats 4 of the 9 draws against the other hand
    set_hand(state, 1, [1, 10, 19])
    assert RULES.score_now(state)[0] == RULES.score_now(state)[1]
    low, high = RULES.estimated_scores(state)
    assert high > low


def test_in_the_last_round_the_stalls_left_go_down_the_pick_sequence_best_first() -> None:
    state = game(2, top=["red-3", "blue-17", "green-9", "yellow-12"])
    set_hand(state, 0, [3])
    set_hand(state, 1, [2, 7])
    bid(state, 0, 3)
    bid(state, 1, 2)  # seat 0 first; its hand is empty, so this is the last round
    assert state.phase == PICK and state.pick_sequence == [0, 1, 0, 1]
    now = RULES.score_now(state)
    assert RULES.estimated_scores(state) == [now[0] + 17 + 9, now[1] + 12 + 3]
    RULES.apply_unchecked(state, 0, RULES.legal_actions(state, 0)[0])  # a poor first pick: the 3
    now = RULES.score_now(state)
    assert RULES.estimated_scores(state) == [now[0] + 12, now[1] + 17 + 9]


def test_while_a_tie_is_broken_its_seats_share_the_places_it_holds() -> None:
    state = game(3, top=["red-3", "blue-17", "green-9", "yellow-12", "red-20", "blue-1"])
    state.deck = []  # the last round
    bid(state, 2, 10)
    bid(state, 0, 5)
    bid(state, 1, 5)  # seat 2 first; seats 0 and 1 tied for the second and third places
    assert state.phase == TIEBREAK
    # the stalls best first down the slots, twice round: first 20 + 9, second 17 + 3, third 12 + 1
    now = RULES.score_now(state)
    assert RULES.estimated_scores(state) == [now[0] + 16.5, now[1] + 16.5, now[2] + 29]
    rebid(state, 0, 7)
    rebid(state, 1, 2)
    assert state.phase == PICK
    now = RULES.score_now(state)
    assert RULES.estimated_scores(state) == [now[0] + 20, now[1] + 13, now[2] + 29]


def test_once_the_game_is_over_the_estimate_is_the_score() -> None:
    rng = random.Random(3)
    state = game(3)
    while not RULES.is_over(state):
        RULES.apply(state, *random_move(state, rng))
    assert RULES.estimated_scores(state) == list(RULES.score_now(state))
