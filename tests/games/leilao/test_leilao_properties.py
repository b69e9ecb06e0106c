"""Property tests over random seeded games with 2, 3 and 4 players and random options.

Each example sets up a game from a seed and plays it to the end with random legal
moves (``random.Random(move_seed)``) through the checked path, asserting the
properties of RULES.md that must hold in every position, whatever the moves.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from leilao_helpers import random_move

from server.games.leilao import RULES, Bid, IllegalAction, LeilaoAction, LeilaoState, Pick, Rebid, replay
from server.games.leilao.components import BID_CARDS, CARD_NAMES, N_MARKET_CARDS
from server.games.leilao.state import BID, TIEBREAK, Options, Sealed

FAST = settings(max_examples=30, deadline=None)
PLAYERS = pytest.mark.parametrize("players", [2, 3, 4])
options_data = st.fixed_dictionaries(
    {
        "card_penalty": st.sampled_from(["face", "one"]),
        "set_bonus": st.sampled_from(["per_set", "once"]),
        "leftover_stalls": st.sampled_from(["cycle", "discard"]),
    }
)
seeds = st.integers(min_value=0, max_value=2**64 - 1)


def new(players: int, options: dict[str, str], seed: int) -> LeilaoState:
    return RULES.new_game(RULES.options({"players": players, **options}), seed)


def positions(state: LeilaoState, rng: random.Random) -> Iterator[tuple[int, LeilaoAction]]:
    """Play to the end; yield each move before it is applied (the caller may inspect the state)."""
    for _ in range(2000):
        if RULES.is_over(state):
            return
        seat, action = random_move(state, rng)
        yield seat, action
        RULES.apply(state, seat, action)
    raise AssertionError("the game does not end")


def strings(value: Any) -> set[str]:
    """Every string in a JSON value."""
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set().union(*(strings(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(strings(v) for v in value)) if value else set()
    return set()


def check_components(state: LeilaoState) -> None:
    market = state.deck + state.display + state.removed + [c for s in state.stalls for c in s]
    assert sorted(market) == list(range(N_MARKET_CARDS))
    for seat in range(state.players):
        sealed = state.sealed[seat]
        in_sealed = [] if sealed is None else [c for c in sealed if c is not None]
        cards = state.hands[seat] + [p.card for p in state.played[seat]] + in_sealed
        assert sorted(cards) == list(BID_CARDS)


def illegal_actions(state: LeilaoState, rng: random.Random) -> Iterator[tuple[int, LeilaoAction]]:
    """A few actions the rules refuse now."""
    to_move = RULES.to_move(state)
    waiting = [p for p in range(state.players) if p not in to_move]
    if waiting:
        yield rng.choice(waiting), Bid(1, None)
        yield rng.choice(waiting), Pick(rng.choice(state.display or [0]))
    for seat in to_move:
        hand = state.hands[seat]
        missing = [c for c in BID_CARDS if c not in hand]
        if missing:
            yield seat, Bid(rng.choice(missing), None)
            yield seat, Rebid(rng.choice(missing))
        yield seat, Pick(next(c for c in range(N_MARKET_CARDS) if c not in state.display))
        if state.phase != BID and hand:
            yield seat, Bid(hand[0], None)
        if state.phase != TIEBREAK and hand:
            yield seat, Rebid(hand[0])


@PLAYERS
@FAST
@given(options=options_data, seed=seeds, move_seed=st.integers(0, 2**32))
def test_every_game_ends_with_components_conserved(
    players: int, options: dict[str, str], seed: int, move_seed: int
) -> None:
    state = new(players, options, seed)
    for _ in positions(state, random.Random(move_seed)):
        check_components(state)
    check_components(state)
    assert RULES.to_move(state) == frozenset()
    outcome = RULES.outcome(state)
    assert outcome is not None and sorted(outcome.ranks)[0] == 1
    assert state.round <= {2: 20, 3: 13, 4: 10}[players]


@PLAYERS
@settings(max_examples=20, deadline=None)
@given(options=options_data, seed=seeds, move_seed=st.integers(0, 2**32))
def test_illegal_actions_are_refused_and_positions_round_trip(
    players: int, options: dict[str, str], seed: int, move_seed: int
) -> None:
    state = new(players, options, seed)
    rng = random.Random(move_seed)
    for _ in positions(state, rng):
        data = RULES.position_to_json(state)
        assert RULES.position_to_json(RULES.position_from_json(json.loads(json.dumps(data)))) == data
        if rng.random() < 0.5:
            continue
        for seat, action in illegal_actions(state, rng):
            assert RULES.why_illegal(state, seat, action) is not None
            with pytest.raises(IllegalAction):
                RULES.apply(state, seat, action)
            assert RULES.position_to_json(state) == data
    data = RULES.position_to_json(state)
    assert RULES.position_to_json(RULES.position_from_json(data)) == data
    with pytest.raises(IllegalAction):
        RULES.apply(state, 0, Bid(1, None))


@PLAYERS
@FAST
@given(options=options_data, seed=seeds, move_seed=st.integers(0, 2**32))
def test_replay_from_seed_and_moves_reproduces_the_game(
    players: int, options: dict[str, str], seed: int, move_seed: int
) -> None:
    state = new(players, options, seed)
    moves = list(positions(state, random.Random(move_seed)))
    replayed = replay(Options(players=players, **options), seed, moves)  # type: ignore[arg-type]
    assert RULES.position_to_json(replayed) == RULES.position_to_json(state)
    texts = [(seat, RULES.action_text(a)) for seat, a in moves]
    fast = new(players, options, seed)
    for seat, text in texts:
        RULES.apply_unchecked(fast, seat, RULES.parse_action(text))
    assert fast == state


@PLAYERS
@FAST
@given(options=options_data, seed=seeds, move_seed=st.integers(0, 2**32))
def test_a_steps_result_does_not_depend_on_the_order_of_submissions(
    players: int, options: dict[str, str], seed: int, move_seed: int
) -> None:
    state = new(players, options, seed)
    rng = random.Random(move_seed)
    while not RULES.is_over(state):
        to_move = sorted(RULES.to_move(state))
        chosen = [(seat, rng.choice(RULES.legal_actions(state, seat))) for seat in to_move]
        other = RULES.clone(state)
        for seat, action in chosen:
            RULES.apply(state, seat, action)
        rng.shuffle(chosen)
        for seat, action in chosen:
            RULES.apply(other, seat, action)
        assert RULES.position_to_json(other) == RULES.position_to_json(state)


def other_choice(state: LeilaoState, seat: int, rng: random.Random) -> LeilaoState | None:
    """``state`` with ``seat``'s sealed choice replaced by a different legal one from the same cards
    (None if it had no other)."""
    sealed = state.sealed[seat]
    assert sealed is not None
    changed = RULES.clone(state)
    hand = sorted([*changed.hands[seat], *(c for c in sealed if c is not None)])
    if len(hand) < 2:
        return None
    while True:
        card = rng.choice(hand)
        extra = rng.choice([None, *(c for c in hand if c != card)]) if state.phase == BID else None
        if (card, extra) != tuple(sealed):
            break
    changed.hands[seat] = [c for c in hand if c not in (card, extra)]
    changed.sealed[seat] = Sealed(card, extra)
    return changed


@PLAYERS
@settings(max_examples=20, deadline=None)
@given(seed=seeds, move_seed=st.integers(0, 2**32))
def test_views_and_events_never_reveal_sealed_choices_or_the_deck(
    players: int, seed: int, move_seed: int
) -> None:
    state = new(players, {}, seed)
    rng = random.Random(move_seed)
    viewers: list[int | None] = [*range(players), None]
    for seat, action in positions(state, rng):
        if state.phase not in (BID, TIEBREAK) or len(RULES.to_move(state)) < 2 or rng.random() < 0.5:
            continue
        # This submission leaves the step open: what others see must not depend on it.
        before = RULES.clone(state)
        events = RULES.apply(before, seat, action)
        alternative = RULES.clone(state)
        others = [a for a in RULES.legal_actions(state, seat) if a != action]
        other = rng.choice(others) if others else action
        other_events = RULES.apply(alternative, seat, other)
        for viewer in viewers:
            if viewer == seat:
                continue
            shown = json.dumps(RULES.events_for(before, events, viewer))
            assert shown == json.dumps(RULES.events_for(alternative, other_events, viewer))
            assert json.dumps(RULES.view(before, viewer)) == json.dumps(RULES.view(alternative, viewer))
        # Nor on the deck's order, nor on any earlier sealed choice of the step.
        viewer = rng.choice(viewers)
        shuffled = RULES.clone(before)
        rng.shuffle(shuffled.deck)
        assert json.dumps(RULES.view(shuffled, viewer)) == json.dumps(RULES.view(before, viewer))
        for p in range(players):
            changed = other_choice(before, p, rng) if p != viewer and before.sealed[p] else None
            if changed is not None:
                assert json.dumps(RULES.view(changed, viewer)) == json.dumps(RULES.view(before, viewer))
    # Deck order is never shown: the undealt cards appear in no view once the game is over.
    for viewer in viewers:
        assert not strings(RULES.view(state, viewer)) & {CARD_NAMES[c] for c in state.deck}


@PLAYERS
@FAST
@given(seed=seeds, move_seed=st.integers(0, 2**32))
def test_events_never_name_a_card_still_in_the_deck(players: int, seed: int, move_seed: int) -> None:
    state = new(players, {}, seed)
    rng = random.Random(move_seed)
    while not RULES.is_over(state):
        seat, action = random_move(state, rng)
        events = RULES.apply(state, seat, action)
        in_deck = {CARD_NAMES[c] for c in state.deck}
        for viewer in (*range(players), None):
            assert not strings(RULES.events_for(state, events, viewer)) & in_deck


@PLAYERS
@FAST
@given(seed=seeds, move_seed=st.integers(0, 2**32), sample_seed=st.integers(0, 2**32))
def test_samples_agree_with_the_seats_view_and_can_be_played_on(
    players: int, seed: int, move_seed: int, sample_seed: int
) -> None:
    state = new(players, {}, seed)
    rng = random.Random(move_seed)
    sampler = random.Random(sample_seed)
    continued = False
    for _ in positions(state, rng):
        if rng.random() < 0.7:
            continue
        seat = rng.randrange(players)
        sample = RULES.sample(state, seat, sampler)
        assert RULES.view(sample, seat) == RULES.view(state, seat)
        assert RULES.to_move(sample) == RULES.to_move(state)
        RULES.position_from_json(RULES.position_to_json(sample))  # a valid position
        check_components(sample)
        if not continued and state.sealed.count(None) < players:
            continued = True
            for _move in positions(sample, sampler):
                pass
            assert RULES.is_over(sample)
