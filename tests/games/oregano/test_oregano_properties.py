"""Properties over random seeded games of 2, 3 and 4 players, with random options: every game
ends; components are conserved; illegal actions change nothing; positions round-trip through
JSON; a seed and the moves replay the game; views and events hide what a seat may not see;
samples agree with the seat's view and can be played on."""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_oregano_support import random_game

from server.games.oregano import RULES, OreganoAction, OreganoState
from server.games.oregano import actions as A
from server.games.oregano.components import (
    ACTION_KINDS,
    BONUSES,
    CELLS,
    RESOURCES,
    SHOP_IDS,
    STRATEGIES,
    STRATEGY_COPIES,
    SUPPLY_PER_RESOURCE,
    stock_of,
)

SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])

option_sets = st.fixed_dictionaries(
    {
        "special_limit": st.sampled_from(["one_total", "one_per_kind"]),
        "same_action_twice": st.booleans(),
        "strategy_draw": st.sampled_from([2, 3]),
        "strategy_cards": st.sampled_from(["hidden", "open"]),
        "end_timing": st.sampled_from(["round", "turn"]),
        "stock_end_from_round": st.sampled_from([1, 6, 12]),
        "round_limit": st.sampled_from([8, 20]),
    }
)

# Every action there is (a pool to draw illegal ones from).
UNIVERSE: list[OreganoAction] = [
    *(A.choose_start_shop(k, c) for k in SHOP_IDS for c in CELLS),
    *(A.keep_strategy(card) for card in STRATEGIES),
    *(A.declare(a, b) for a in ACTION_KINDS for b in ACTION_KINDS),
    *(A.build(k, c) for k in SHOP_IDS for c in CELLS),
    *(A.level_up(a, b) for a in CELLS for b in CELLS),
    *(A.take_resources(o, c) for o in range(4) for c in CELLS),
    *(A.sell(c) for c in CELLS),
    *(A.acquire(k, lv, s, c) for k in SHOP_IDS for lv in (1, 2, 3, 4) for s in range(4) for c in CELLS),
    A.skip(),
    A.casino(True),
    A.casino(False),
]


def check_conservation(state: OreganoState) -> None:
    n = state.players
    for kind in SHOP_IDS:
        placed = sum(shop.kind == kind for area in state.areas for shop in area.values())
        sold = sum(entry.kind == kind for entry in state.boulevard)
        assert state.stock[kind] + placed + sold == stock_of(kind, n), kind
    for resource in RESOURCES:
        held = sum(r[resource] for r in state.resources)
        assert state.supply[resource] + held == SUPPLY_PER_RESOURCE, resource
    cards = state.strategy_deck + [c for c in state.strategies if c] + [c for d in state.drawn for c in d]
    assert Counter(cards) == Counter({card: STRATEGY_COPIES for card in STRATEGIES})
    bonuses = state.bonus_available + [b for held in state.bonuses for b in held]
    assert sorted(bonuses) == sorted(BONUSES)
    assert min(state.gold) >= 0


def check_hidden(state: OreganoState, events: list[dict[str, Any]]) -> None:
    """No view or event shows another seat's hidden cards, the deck order or the rng."""
    open_cards = state.options.strategies_open
    for seat in [None, *range(state.players)]:
        view = RULES.view(state, seat)
        assert "strategy_deck" not in view and "rng" not in view
        for other in range(state.players):
            if other != seat:
                assert set(view["drawn"][other]) == {"count"}
                if not open_cards:
                    assert set(view["strategies"][other]) == {"count"}
        for event in RULES.events_for(state, events, seat):
            if event["type"] in ("strategy_drawn", "strategy_kept") and event["seat"] != seat:
                assert "cards" not in event and "returned" not in event
                assert ("card" in event) == (event["type"] == "strategy_kept" and open_cards)


def check_sample(state: OreganoState, seat: int, rng: random.Random) -> None:
    sample = RULES.sample(state, seat, rng)
    assert RULES.view(sample, seat) == RULES.view(state, seat)
    RULES.position_from_json(RULES.position_to_json(sample))
    for _ in range(6):  # legal to continue
        if RULES.is_over(sample):
            break
        (mover,) = RULES.to_move(sample)
        RULES.apply(sample, mover, rng.choice(RULES.legal_actions(sample, mover)))


def check_illegal(state: OreganoState, rng: random.Random) -> None:
    before = RULES.position_to_json(state)
    to_move = RULES.to_move(state)
    for action in rng.sample(UNIVERSE, 4):
        seat = rng.randrange(state.players)
        legal = seat in to_move and action in RULES.legal_actions(state, seat)
        reason = RULES.why_illegal(state, seat, action)
        assert (reason is None) == legal
        if not legal:
            try:
                RULES.apply(state, seat, action)
            except ValueError as error:
                assert str(error) == reason and "\n" not in reason
            else:
                raise AssertionError(f"{action} was accepted")
            assert RULES.position_to_json(state) == before


@pytest.mark.parametrize("players", [2, 3, 4])
@SETTINGS
@given(options=option_sets, seed=st.integers(0, 2**32))
def test_random_games(players: int, options: dict[str, Any], seed: int) -> None:
    options = {**options, "players": players}
    state = RULES.new_game(RULES.options(options), seed)
    chooser = random.Random(seed)
    moves = 0
    while not RULES.is_over(state):
        (seat,) = RULES.to_move(state)
        legal = RULES.legal_actions(state, seat)
        assert legal and len(set(legal)) == len(legal)
        if moves % 7 == 0:
            check_illegal(state, chooser)
            check_sample(state, chooser.randrange(state.players), chooser)
        action = chooser.choice(legal)
        events = RULES.apply(state, seat, action)
        moves += 1
        assert moves < 3000, "the game does not end"
        check_conservation(state)
        check_hidden(state, events)
        data = RULES.position_to_json(state)
        assert RULES.position_to_json(RULES.position_from_json(json.loads(json.dumps(data)))) == data
    outcome = RULES.outcome(state)
    assert outcome is not None and state.round <= options["round_limit"]
    assert sorted(outcome.ranks)[0] == 1 and RULES.to_move(state) == frozenset()


@SETTINGS
@given(players=st.sampled_from([2, 3, 4]), seed=st.integers(0, 2**32))
def test_replay_from_seed_and_moves(players: int, seed: int) -> None:
    final, moves, _ = random_game(players, seed)
    state = RULES.new_game(RULES.options({"players": players}), seed)
    for seat, action in moves:
        parsed = RULES.parse_action(RULES.action_text(action))
        RULES.apply(state, seat, RULES.action_from_json(RULES.action_to_json(parsed)))
    assert RULES.position_to_json(state) == RULES.position_to_json(final)
    fast = RULES.new_game(RULES.options({"players": players}), seed)
    for seat, action in moves:
        RULES.apply_unchecked(fast, seat, action)
    assert RULES.position_to_json(fast) == RULES.position_to_json(final)


@SETTINGS
@given(players=st.sampled_from([2, 3, 4]), seed=st.integers(0, 2**32))
def test_clone_is_independent(players: int, seed: int) -> None:
    state = RULES.new_game(RULES.options({"players": players}), seed)
    copy = RULES.clone(state)
    chooser = random.Random(seed)
    while not RULES.is_over(copy):
        (seat,) = RULES.to_move(copy)
        RULES.apply(copy, seat, chooser.choice(RULES.legal_actions(copy, seat)))
    assert RULES.position_to_json(state) == RULES.position_to_json(
        RULES.new_game(RULES.options({"players": players}), seed)
    )
