"""The bids the AI's search weighs: each distinct bid once (``search_actions`` in the rules)."""

from __future__ import annotations

import random

import pytest
from leilao_helpers import bid, game, set_hand

from server.games.leilao import RULES
from server.games.leilao.state import BID


def test_a_full_hand_weighs_each_card_alone_and_each_pair_once() -> None:
    state = game(2)
    weighed = RULES.search_actions(state, 0)
    assert len(weighed) == 20 + 20 * 19 // 2
    assert {(b.card, b.extra) for b in weighed} == {
        (b.card, b.extra) for b in RULES.legal_actions(state, 0) if b.extra is None or b.extra < b.card
    }
    pairs = [frozenset((b.card, b.extra)) for b in weighed if b.extra is not None]
    assert len(set(pairs)) == len(pairs)


@pytest.mark.parametrize("seed", range(20))
def test_a_bid_and_its_swap_play_the_same(seed: int) -> None:
    rng = random.Random(seed)
    hand = rng.sample(range(1, 21), rng.randint(2, 20))
    low, high = sorted(rng.sample(hand, 2))
    other = rng.choice(range(1, 21))
    positions = []
    for main, extra in ((high, low), (low, high)):
        state = game(2, start=seed % 2)
        set_hand(state, 0, hand)
        bid(state, 0, main, extra)
        bid(state, 1, other)
        while state.phase != BID and not RULES.is_over(state):  # the same picks: the first stall each time
            seat = min(RULES.to_move(state))
            action = RULES.legal_actions(state, seat)[0]
            RULES.apply(state, seat, action)
        positions.append((RULES.score_now(state), [sorted(s) for s in state.stalls], state.hands))
    assert positions[0] == positions[1]


def test_out_of_the_bid_step_every_legal_action_is_weighed() -> None:
    state = game(2)
    set_hand(state, 0, [3, 9])
    set_hand(state, 1, [4, 9])
    bid(state, 0, 9)
    bid(state, 1, 4)
    assert RULES.search_actions(state, 0) == RULES.legal_actions(state, 0) != []
    assert RULES.search_actions(state, 1) == RULES.legal_actions(state, 1) == []
