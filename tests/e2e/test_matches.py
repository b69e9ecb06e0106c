"""Whole matches played over gRPC by random-move clients end as their replay through the engine says."""

from __future__ import annotations

import grpc
import pytest
from matchplay import Connect, play_random_match, refusal, replay_history, seated_match
from mercado.v1 import match_pb2 as api
from mercado.v1 import mercado_pb2 as pb

from server.games.mercado import player_view
from server.rpc.wires.mercado import view_message


@pytest.mark.parametrize(
    ("players", "money", "seed"),
    [(2, "hidden", 20), (3, "public", 30), (4, "hidden", None)],
    ids=["2-players", "3-players-public-money", "4-players-random-seed"],
)
async def test_random_match_ends_as_its_replay(
    connect: Connect, players: int, money: str, seed: int | None
) -> None:
    match_id, seats = await seated_match(connect, players, money=money, seed=seed)
    received = await play_random_match(seats, seed=players, watcher=connect())

    replay = await connect().replay(match_id)
    assert replay.match_id == match_id
    assert replay.game == api.GAME_MERCADO
    assert replay.players == players
    if seed is not None:
        assert replay.seed == seed
    assert replay.mercado.money == (pb.MONEY_PUBLIC if money == "public" else pb.MONEY_HIDDEN)

    # The log holds exactly the acknowledged actions, in the order they were acknowledged.
    acknowledged = sorted(
        (response.version, seat, action)
        for seat, got in received.items()
        if seat is not None
        for response, action in zip(got.responses, got.actions, strict=True)
    )
    assert [(v, s) for v, s, _ in acknowledged] == [(n, step.seat) for n, step in enumerate(replay.steps, 1)]
    assert [a for _, _, a in acknowledged] == [step.action for step in replay.steps]

    history = replay_history(replay)
    final, last_events = history[-1]
    assert final.is_terminal and final.result is not None
    assert last_events[-1]["type"] == "game_ended"

    for seat, got in received.items():
        view = got.views[-1]
        assert view.version == len(replay.steps)
        assert view.match.status == api.MATCH_STATUS_FINISHED
        assert not view.HasField("to_move") and not view.seats_to_move
        assert not view.legal_actions
        result = view.view.mercado.result
        assert list(result.scores) == list(final.result.scores)
        assert list(result.ranks) == list(final.result.ranks)
        assert list(result.stands_on_market) == list(final.result.stands_on_market)
        # The whole final view, not only the result, is the replayed state's view for this seat.
        expected = view_message(player_view(final, seat))
        assert view.view.mercado.SerializeToString(deterministic=True) == expected.SerializeToString(
            deterministic=True
        )
        # Every stream saw every action exactly once, in order, and the game's end with its result.
        actions = [u for u in got.updates if u.HasField("seat")]
        first = got.followed_after
        assert [u.version for u in actions] == list(range(first + 1, len(replay.steps) + 1))
        assert [u.action for u in actions] == [s.action for s in replay.steps[first:]]
        ended = actions[-1].events[-1].mercado.game_ended
        assert list(ended.result.scores) == list(final.result.scores)
        assert list(ended.result.ranks) == list(final.result.ranks)


async def test_finished_match_refuses_actions_and_stays_finished(connect: Connect) -> None:
    match_id, seats = await seated_match(connect, 2, seed=5)
    await play_random_match(seats, seed=5)
    view = await seats[0].view()
    assert view.match.status == api.MATCH_STATUS_FINISHED
    error = await refusal(
        seats[0].submit(api.Action(mercado=pb.MercadoAction(take_coin=pb.TakeCoin())), view.version, "late")
    )
    assert error.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert (await seats[1].view()).version == view.version
    listed = await connect().list_matches(status="finished", page_size=100)
    assert match_id in {m.match_id for m in listed.matches}


async def test_replaying_a_finished_stream_shows_each_version_as_it_was(connect: Connect) -> None:
    """A late follower gets the whole history; each update's summary is of its own version."""
    match_id, seats = await seated_match(connect, 2, seed=6)
    await play_random_match(seats, seed=6)
    replay = await connect().replay(match_id)
    now, *updates = [u async for u in connect().follow(match_id)]
    assert not now.HasField("action") and now.version == len(replay.steps)  # where it stands, first
    assert [u.version for u in updates] == list(range(1, len(replay.steps) + 1))
    for update in updates[:-1]:
        assert update.state.match.version == update.version
        assert update.state.match.status == api.MATCH_STATUS_PLAYING
        assert update.state.HasField("to_move")
        assert list(update.state.seats_to_move) == [update.state.to_move]  # one mover in a turn-based game
    assert updates[-1].state.match.status == api.MATCH_STATUS_FINISHED
