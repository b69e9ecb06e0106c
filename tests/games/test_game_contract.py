"""What every game behind the interface (server/games/interface.py) does alike, checked on random
seeded games of each registered game: a fourth game gets these checks by being registered."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from server.games.interface import ScoreParts
from server.games.registry import GAMES, AnyGame, game_named, game_of_position

MOVES_AT_MOST = 5_000  # no game of ours lasts this long: one that does is stuck
CHECK_EVERY = 7  # the costlier checks (JSON round trips, views, samples) run on every 7th position


def played(game: AnyGame, players: int, seed: int) -> tuple[Any, list[tuple[int, Any]]]:
    """A random game to its end, checking each position on the way; the end and the moves."""
    rng = random.Random(seed)
    state = game.new_game(game.options({"players": players}), seed)
    moves: list[tuple[int, Any]] = []
    while not game.is_over(state):
        assert len(moves) < MOVES_AT_MOST, "the game does not end"
        movers = game.to_move(state)
        assert movers, "nobody is to move in a game that is not over"
        assert game.outcome(state) is None
        if len(moves) % CHECK_EVERY == 0:
            check_position(game, state, rng)
        seat = rng.choice(sorted(movers))
        actions = game.legal_actions(state, seat)
        assert actions, f"seat {seat} is to move but has no legal action"
        action = rng.choice(actions)
        assert game.why_illegal(state, seat, action) is None
        events = game.apply(state, seat, action)
        assert all(isinstance(event.get("type"), str) for event in events)
        json.dumps(events)
        moves.append((seat, action))
    assert game.to_move(state) == frozenset()
    return state, moves


def check_position(game: AnyGame, state: Any, rng: random.Random) -> None:
    data = game.position_to_json(state)
    assert game_of_position(data) is game
    assert game.position_to_json(game.position_from_json(json.loads(json.dumps(data)))) == data
    movers = game.to_move(state)
    for seat in range(players_of(data)):
        view = game.view(state, seat)
        json.dumps(view)
        assert ("legal_actions" in view) == (seat in movers)
        if seat in movers:
            actions = game.legal_actions(state, seat)
            assert view["legal_actions"] == [game.action_to_json(a) for a in actions]
            for action in actions:
                assert game.action_from_json(game.action_to_json(action)) == action
                assert game.parse_action(game.action_text(action)) == action
            weighed = game.search_actions(state, seat)
            assert weighed and weighed == [action for action in actions if action in weighed]
        elif not game.is_over(state):
            assert game.legal_actions(state, seat) == []
            refused_unchanged(game, state, seat, data)
        sample = game.sample(state, seat, rng)
        assert game.view(sample, seat) == view, "a sample must look the same to the seat it is for"
        assert shown_scores(game, sample, seat) == shown_scores(game, state, seat), "scores leak"
        check_determinization(game, state, seat, sample, rng.getrandbits(32))
    check_score_parts(game, state)
    assert game.position_to_json(state) == data, "looking changed the position"


def shown_scores(game: AnyGame, state: Any, viewer: int | None) -> list[ScoreParts]:
    return [score for score in game.score_parts(state) if game.score_shown(state, score.seat, viewer)]


def check_score_parts(game: AnyGame, state: Any) -> None:
    """Each seat's score in parts adds up to its score, and every seat has the same parts."""
    scores = game.score_parts(state)
    assert [score.seat for score in scores] == list(range(len(game.score_now(state))))
    assert [score.total for score in scores] == list(game.score_now(state))
    for score in scores:
        assert score.total == sum(part.points for part in score.parts)
        assert [p.name for p in score.parts] == [p.name for p in scores[0].parts]
        assert [t.name for t in score.tie_breaks] == [t.name for t in scores[0].tie_breaks]
        assert all(part.counted is None or part.counted >= 0 for part in score.parts)
        assert game.score_shown(state, score.seat, score.seat), "a seat may know its own score"


def check_determinization(game: AnyGame, state: Any, seat: int, other: Any, seed: int) -> None:
    """A position drawn from the seat's view (as JSON, as a client gets it) looks the same to the seat,
    with the same legal actions; ``other``, another position the seat cannot tell from ``state``,
    gives the same one for the same seed: hidden information never leaks into it."""
    view = game.view(state, seat)
    determinized = game.determinize(json.loads(json.dumps(view)), random.Random(seed))
    assert game.view(determinized, seat) == view, "a determinization must look the same to its seat"
    assert game.legal_actions(determinized, seat) == game.legal_actions(state, seat)
    again = game.determinize(game.view(other, seat), random.Random(seed))
    assert game.position_to_json(again) == game.position_to_json(determinized)


def players_of(data: dict[str, Any]) -> int:
    players: int = data["options"]["players"]
    return players


def refused_unchanged(game: AnyGame, state: Any, seat: int, data: dict[str, Any]) -> None:
    """An action of a seat that is to move, tried by one that is not: refused, nothing changed."""
    mover = min(game.to_move(state))
    action = game.legal_actions(state, mover)[0]
    assert game.why_illegal(state, seat, action)
    with pytest.raises(ValueError):
        game.apply(state, seat, action)
    assert game.position_to_json(state) == data


@pytest.mark.parametrize("name", sorted(GAMES))
@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_games_end_with_an_outcome_and_replay_exactly(name: str, players: int) -> None:
    game = game_named(name)
    seed = 1000 * players + len(name)
    state, moves = played(game, players, seed)
    outcome = game.outcome(state)
    assert outcome is not None
    assert len(outcome.scores) == len(outcome.ranks) == players
    assert min(outcome.ranks) == 1 and max(outcome.ranks) <= players
    by_score = sorted(range(players), key=lambda p: outcome.ranks[p])
    assert [outcome.scores[p] for p in by_score] == sorted(outcome.scores, reverse=True)
    assert game.score_now(state) == outcome.scores
    assert list(game.estimated_scores(state)) == list(outcome.scores)
    check_score_parts(game, state)
    scores = game.score_parts(state)  # once over: the final scores, with the tie-breaks that ranked them
    assert [[tie.value for tie in score.tie_breaks] for score in scores] == [
        list(t) for t in outcome.tie_breaks
    ]
    assert all(game.score_shown(state, seat, viewer) for seat in range(players) for viewer in [None, 0])
    json.dumps(outcome.to_json())
    # The seed and the moves make the same game again, through the moves' text.
    again = game.new_game(game.options({"players": players}), seed)
    for seat, action in moves:
        game.apply_unchecked(again, seat, game.parse_action(game.action_text(action)))
    assert game.position_to_json(again) == game.position_to_json(state)


def test_a_clone_is_independent() -> None:
    for game in GAMES.values():
        state = game.new_game(game.options({"players": 2}), 3)
        before = game.position_to_json(state)
        copy = game.clone(state)
        seat = min(game.to_move(copy))
        game.apply(copy, seat, game.legal_actions(copy, seat)[0])
        assert game.position_to_json(state) == before != game.position_to_json(copy)


def test_an_unknown_game_is_named_with_the_known_ones() -> None:
    with pytest.raises(ValueError, match="mercado"):
        game_named("chess")
    with pytest.raises(ValueError, match="format"):
        game_of_position({"format": "chess/1"})


@pytest.mark.parametrize("name", sorted(GAMES))
@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_sealed_choice_changes_nothing_anyone_else_sees(name: str, players: int) -> None:
    """Whatever a seat chooses in a simultaneous step, every other seat and a spectator see the
    same view and the same events until the step's last choice reveals it (for a turn-based game,
    a choice is never sealed)."""
    game = game_named(name)
    rng = random.Random(players)
    simultaneous = compared = 0
    for seed in range(4):
        state = game.new_game(game.options({"players": players}), seed)
        while not game.is_over(state):
            simultaneous += len(game.to_move(state)) > 1
            seat = rng.choice(sorted(game.to_move(state)))
            actions = game.legal_actions(state, seat)
            outcomes = []
            for action in rng.sample(actions, min(3, len(actions))):
                after = game.clone(state)
                events = game.apply(after, seat, action)
                outcomes.append((after, events))
            for after, events in outcomes:
                if seat not in game.sealed(after):
                    continue
                compared += 1
                for viewer in [None, *(s for s in range(players) if s != seat)]:
                    first_after, first_events = outcomes[0]
                    assert game.view(after, viewer) == game.view(first_after, viewer)
                    assert game.events_for(after, events, viewer) == game.events_for(
                        first_after, first_events, viewer
                    )
            game.apply(state, seat, rng.choice(actions))
    assert bool(compared) == bool(simultaneous), "a simultaneous step whose choices are not sealed"
