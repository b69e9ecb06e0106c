"""view_json turns the API's MatchState back into exactly the engine's player_view (what the AI searches)."""

from __future__ import annotations

import random
import uuid
from typing import Any

import pytest
from mercado.v1 import match_pb2 as api
from mercado_client import action_json
from mercado_client.views import view_json

from server.games.mercado import Options, legal_actions, player_view
from server.games.mercado.state import FINAL_ROUND
from server.match import Match, MatchService, Policy, Update
from server.rpc.render import match_state
from server.store.sqlite import SqliteStore


def expected_view(update: Update, seat: int | None, nobody_to_move: bool) -> dict[str, Any]:
    """The engine's view less what view_json does not carry."""
    view = player_view(update.state, seat)
    drop = {"format", "legal_actions"}
    if nobody_to_move:
        drop.add("current_player")
    return {k: v for k, v in view.items() if k not in drop}


def compare(match: Match, update: Update, seat: int | None) -> None:
    state = match_state(match, update, seat)
    got = view_json(state)
    where = f"seat {seat}, version {update.version}"
    # A finished match has no player to move (nor, while seats are open, may a waiting one).
    waiting = state.match.status == api.MATCH_STATUS_WAITING
    assert (state.match.status == api.MATCH_STATUS_FINISHED) == update.state.is_terminal, where
    nobody_to_move = update.state.is_terminal or waiting
    if update.state.is_terminal:
        assert not state.HasField("to_move"), where
    if nobody_to_move and not state.HasField("to_move"):
        got.pop("current_player")
    else:
        nobody_to_move = False
    expected = expected_view(update, seat, nobody_to_move)
    assert set(got) == set(expected), where
    for key in expected:
        assert got[key] == expected[key], f"{where}: {key}"
    # The legal actions come over the wire too, in the engine's order (none while the match waits).
    legal = [] if waiting else player_view(update.state, seat).get("legal_actions", [])
    assert [action_json(a) for a in state.legal_actions] == legal, where


async def play_and_compare(players: int, money: str, seed: int, every: int) -> Match:
    """A match played with random legal actions through the service, views compared as the game goes."""
    service = MatchService(
        SqliteStore(":memory:"), policy=Policy(allow_chosen_seeds=True, default_clock=None)
    )
    options = Options(players=players, money=money)  # type: ignore[arg-type]
    match = await service.create_match(options, [None] * players, seed=seed)
    viewers: list[int | None] = [*range(players), None]
    # Before every seat is taken the match is waiting; the spectator's view is still the engine's.
    compare(match, match.snapshot(), None)
    tokens = [(await service.join(match.match_id, f"player {n}")).token for n in range(players)]
    for seat in viewers:
        compare(match, match.snapshot(), seat)
    rng = random.Random(seed)
    compared = 1
    while not match.state.is_terminal:
        actor = match.state.current_player
        action = rng.choice(legal_actions(match.state))
        _, seat, update = await service.submit(
            match.match_id, tokens[actor], match.version, uuid.uuid4().hex, action
        )
        assert seat == actor and update.version == match.version
        if update.version % every == 0 or update.state.is_terminal or update.state.status == FINAL_ROUND:
            for viewer in viewers:
                compare(match, update, viewer)
            compared += 1
    assert compared > 5
    return match


@pytest.mark.parametrize(
    ("players", "money", "seed"),
    [
        (2, "hidden", 1),
        (2, "public", 2),
        (3, "hidden", 3),
        (3, "public", 4),
        (4, "hidden", 5),
        (4, "public", 6),
    ],
)
async def test_view_json_is_the_engines_player_view(players: int, money: str, seed: int) -> None:
    match = await play_and_compare(players, money, seed, every=2)
    assert match.state.is_terminal
    # A finished match's current view (as GetView sends it).
    for seat in [*range(players), None]:
        compare(match, match.snapshot(), seat)
    # Afterwards too, every recorded version reads back as the engine's view of it.
    for update in list(match.updates(match.actions))[::7]:
        for seat in [*range(players), None]:
            compare(match, update, seat)


async def test_hidden_coins_are_none_and_own_coins_shown() -> None:
    match = await play_and_compare(3, "hidden", 9, every=10)
    last = match.latest()
    for seat in range(3):
        view = view_json(match_state(match, last, seat))
        assert view["seat"] == seat
        assert view["coins"] == [c if p == seat else None for p, c in enumerate(last.state.coins)]
        assert view["status"] == "finished"
        assert view["result"] is not None and view["result"]["scores"] == list(last.state.result.scores)
    spectator = view_json(match_state(match, last, None))
    assert spectator["seat"] is None and spectator["coins"] == [None, None, None]
