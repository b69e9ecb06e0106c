"""RULES.md "A round", 6 (end of round): the end of the game for 2, 3 and 4 players."""

from __future__ import annotations

import random

import pytest
from leilao_helpers import bid, game, play_to_end, set_hand

from server.games.leilao import RULES
from server.games.leilao.state import BID, FINISHED, LeilaoState


def play_round_without_ties(state: LeilaoState, round_number: int) -> None:
    """Seat p bids ((round - 1) + 5p) mod 20 + 1: different numbers in a round, a new card each round."""
    for seat in range(state.players):
        bid(state, seat, (round_number - 1 + 5 * seat) % 20 + 1)
    while state.phase != BID and state.phase != FINISHED:
        (seat,) = RULES.to_move(state)
        RULES.apply(state, seat, RULES.legal_actions(state, seat)[0])


# Decision (A round, 6): 2 players without ties or extras play 20 rounds: all 80 cards, all 40 bids.
def test_two_players_play_twenty_rounds_and_use_everything() -> None:
    state = RULES.new_game(RULES.options({"players": 2}), 5)
    rounds = 0
    while not RULES.is_over(state):
        rounds += 1
        play_round_without_ties(state, rounds)
    assert rounds == 20
    assert state.deck == [] and state.hands == [[], []]
    assert sum(len(s) for s in state.stalls) == 80
    assert [len(p) for p in state.played] == [20, 20]


# Decision: 3 players last at most 13 rounds (2 cards never dealt), 4 players 10 rounds.
@pytest.mark.parametrize(("players", "rounds", "left"), [(3, 13, 2), (4, 10, 0)])
def test_the_deck_ends_the_game_after_13_or_10_rounds(players: int, rounds: int, left: int) -> None:
    state = RULES.new_game(RULES.options({"players": players}), 9)
    played = 0
    while not RULES.is_over(state):
        played += 1
        play_round_without_ties(state, played)
    assert played == rounds
    assert len(state.deck) == left
    assert all(state.hands)  # cards are still in hand: the deck ended the game


# A round, 6: any empty hand ends the game at the end of the round (extra bids empty hands early).
def test_an_empty_hand_ends_the_game_at_the_end_of_the_round() -> None:
    state = game(3, ("red-1", "red-2", "red-3", "red-4", "red-5", "red-6"))
    set_hand(state, 1, [3, 12])
    bid(state, 0, 20)
    bid(state, 1, 12, 3)
    bid(state, 2, 19)
    assert state.hands[1] == [] and state.phase != FINISHED  # the round is finished first
    while not RULES.is_over(state):
        (seat,) = RULES.to_move(state)
        events = RULES.apply(state, seat, RULES.legal_actions(state, seat)[0])
    assert events[-1]["type"] == "game_over"
    assert state.phase == FINISHED and state.display == []
    assert RULES.to_move(state) == frozenset()
    assert RULES.legal_actions(state, 0) == []
    assert RULES.why_illegal(state, 0, RULES.parse_action("bid 5")) == "the game is over"


# A round, 6: the deck holding fewer than 2N cards at the end of a round ends the game.
def test_a_short_deck_ends_the_game() -> None:
    state = game(2, ("red-1", "red-2", "red-3", "red-4"))
    state.deck = state.deck[:3]
    bid(state, 0, 1)
    bid(state, 1, 2)
    for stall in ("red-1", "red-2", "red-3", "red-4"):
        (seat,) = RULES.to_move(state)
        RULES.apply(state, seat, RULES.parse_action(f"pick {stall}"))
    assert RULES.is_over(state)
    assert len(state.deck) == 3  # never revealed
    outcome = RULES.outcome(state)
    assert outcome is not None and RULES.view(state, 0)["result"] == outcome.to_json()


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_games_end_within_the_round_limit(players: int) -> None:
    limit = {2: 20, 3: 13, 4: 10}[players]
    for seed in range(5):
        state = RULES.new_game(RULES.options({"players": players}), seed)
        play_to_end(state, random.Random(seed))
        assert state.round <= limit
        assert RULES.outcome(state) is not None
