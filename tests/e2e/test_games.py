"""Oregano and Leilão over gRPC: whole matches, their replays, listings, refusals and sealed bids."""

from __future__ import annotations

import asyncio
import random
import uuid

import grpc
import pytest
from matchplay import Connect, Received, play_random_match, refusal
from mercado.v1 import leilao_pb2, oregano_pb2
from mercado.v1 import match_pb2 as api
from mercado_client import Seat
from mercado_client.games import action_json, event_json, game_enum, view_json
from mercado_terminal.verify import final_scores, verify_replay

from server.games.registry import game_named

NEW_GAMES = ["oregano", "leilao"]


async def seated(connect: Connect, game: str, players: int, seed: int, **kwargs: object) -> list[Seat]:
    match_id = await connect().create_match(players=players, seed=seed, game=game, **kwargs)  # type: ignore[arg-type]
    return [await connect().join(match_id, f"player {n}") for n in range(players)]


def replayed(replay: api.Replay) -> tuple[object, list[list[dict[str, object]]]]:
    """The true final state of a replay through the rules, and each step's events."""
    name = replay.WhichOneof("options")
    assert name is not None
    rules = game_named(name)
    state = rules.new_game(rules.options({"players": replay.players, **_options(replay)}), replay.seed)
    events = []
    for step in replay.steps:
        assert step.seat in rules.to_move(state), f"version {step.version} was played out of turn"
        events.append(rules.apply(state, step.seat, rules.action_from_json(action_json(step.action))))
    return state, events


def _options(replay: api.Replay) -> dict[str, object]:
    from mercado_client.games import options_json

    name = replay.WhichOneof("options")
    return options_json(name, getattr(replay, name))  # type: ignore[arg-type]


@pytest.mark.parametrize("game", NEW_GAMES)
@pytest.mark.parametrize("players", [2, 3, 4])
async def test_a_random_match_of_each_game_ends_as_its_replay(
    connect: Connect, game: str, players: int
) -> None:
    seats = await seated(connect, game, players, seed=players * 7)
    received = await play_random_match(seats, seed=players, watcher=connect())
    replay = await connect().replay(seats[0].match_id)
    assert replay.game == game_enum(game)
    final, _ = replayed(replay)
    rules = game_named(game)
    assert rules.is_over(final)
    outcome = rules.outcome(final)
    assert outcome is not None
    verdict = verify_replay(replay, None, final_scores(received[0].views[-1]))
    assert verdict.problems == ["the creator chose the seed, so the set-up was known to it"]
    assert verdict.scores == list(outcome.scores) and verdict.actions == len(replay.steps)

    for seat, got in received.items():
        last = got.views[-1]
        assert last.match.status == api.MATCH_STATUS_FINISHED
        assert list(last.match.ranks) == list(outcome.ranks)
        assert not last.legal_actions and not last.seats_to_move
        # Every seat's last view is the rules' own view of the replayed final state for that seat.
        expected = rules.view(final, seat)
        expected.pop("legal_actions", None)
        assert view_json(last) == expected
        # Every stream saw every version once, in order.
        versions = [u.version for u in got.updates if u.HasField("seat")]
        assert versions == list(range(got.followed_after + 1, len(replay.steps) + 1))


@pytest.mark.parametrize("cards", ["hidden", "open"])
async def test_a_kept_strategy_card_reaches_other_seats_only_when_cards_are_open(
    connect: Connect, cards: str
) -> None:
    seats = await seated(connect, "oregano", 2, seed=9, options={"strategy_cards": cards})
    received = await play_random_match(seats, seed=4, watcher=connect())
    steps = (await connect().replay(seats[0].match_id)).steps
    kept = 0
    for viewer, got in received.items():
        for update in got.updates:
            if not update.HasField("seat") or update.seat == viewer:
                continue
            played = steps[update.version - 1].action
            if played.oregano.WhichOneof("action") == "keep_strategy":
                kept += 1
                if cards == "open":
                    assert update.action == played
                else:
                    assert not update.HasField("action")
                shown = next(e for e in map(event_json, update.events) if e["type"] == "strategy_kept")
                assert ("card" in shown) == (cards == "open")
            else:
                assert update.action == played  # every other action is public
    assert kept >= 3  # each seat's set-up card, for the other seat and the spectator


@pytest.mark.parametrize("game", NEW_GAMES)
async def test_listing_filters_by_game(connect: Connect, game: str) -> None:
    client = connect()
    match_id = await client.create_match(game=game)
    listed = await client.list_matches(game=game)
    assert match_id in [m.match_id for m in listed.matches]
    assert {m.game for m in listed.matches} == {game_enum(game)}
    other = await client.list_matches(game="mercado")
    assert match_id not in [m.match_id for m in other.matches]
    summary = next(m for m in listed.matches if m.match_id == match_id)
    assert summary.WhichOneof("options") == game


async def test_options_and_actions_of_another_game_are_refused(connect: Connect) -> None:
    client = connect()
    request = api.CreateMatchRequest(game=api.GAME_LEILAO, oregano=oregano_pb2.OreganoOptions())
    error = await refusal(client.stub.CreateMatch(request))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "oregano options for a match of leilao" in (error.details() or "")

    bad = api.CreateMatchRequest(game=api.GAME_LEILAO, leilao=leilao_pb2.LeilaoOptions(card_penalty="none"))
    error = await refusal(client.stub.CreateMatch(bad))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT

    seats = await seated(connect, "leilao", 2, seed=3)
    state = await seats[0].view()
    skip = api.Action(oregano=oregano_pb2.OreganoAction(skip=oregano_pb2.OreganoAction.Skip()))
    error = await refusal(seats[0].submit(skip, state.version, "wrong-game"))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "this match plays leilao" in (error.details() or "")
    assert (await seats[0].view()).version == state.version  # nothing changed


def _bid(card: int, extra: int | None = None) -> api.Action:
    bid = leilao_pb2.LeilaoAction.Bid(card=card)
    if extra is not None:
        bid.extra = extra
    return api.Action(leilao=leilao_pb2.LeilaoAction(bid=bid))


async def test_sealed_bids_are_hidden_until_the_last_one_reveals_them_all(connect: Connect) -> None:
    seats = await seated(connect, "leilao", 2, seed=11)
    watcher = connect()
    start = await seats[0].view()
    assert sorted(start.seats_to_move) == [0, 1] and not start.HasField("to_move")
    assert start.legal_actions and (await seats[1].view()).legal_actions  # both may bid now

    streams: dict[int | None, Received] = {0: Received(0), 1: Received(1), None: Received(None)}

    async def follow(who: int | None) -> None:
        source = watcher.follow(start.match.match_id) if who is None else seats[who].follow(start.version)
        async for update in source:
            streams[who].updates.append(update)
            if update.version >= start.version + 2:
                return

    followers = [asyncio.create_task(follow(who)) for who in (0, 1, None)]
    await asyncio.sleep(0.3)  # every stream is open before the first bid

    first = await seats[0].submit(_bid(17, 3), start.version, uuid.uuid4().hex)
    assert first.version == start.version + 1
    again = await refusal(seats[0].submit(_bid(16), first.version, uuid.uuid4().hex))
    assert again.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "already chosen" in (again.details() or "")

    # Nobody else learns what seat 0 bid: not in its view, the stream's update or its events.
    for state in (await seats[1].view(), await watcher.view(start.match.match_id)):
        view = view_json(state)
        assert view is not None and view["acted"] == [0] and view["sealed"] is None
    assert (await seats[1].view()).legal_actions  # seat 1 still bids

    # Seat 1 bids against the version it saw before seat 0's bid: still current in this step.
    second = await seats[1].submit(_bid(2), start.version, uuid.uuid4().hex)
    assert second.version == start.version + 2
    await asyncio.wait_for(asyncio.gather(*followers), 10)

    for who, got in streams.items():
        sealed = next(u for u in got.updates if u.version == start.version + 1 and u.HasField("seat"))
        assert sealed.seat == 0
        events = [event_json(e) for e in sealed.events]
        assert events[0]["type"] == "sealed"
        if who == 0:
            assert sealed.HasField("action") and events[0]["card"] == 17 and events[0]["extra"] == 3
        else:
            assert not sealed.HasField("action") and "card" not in events[0] and "extra" not in events[0]
            assert view_json(sealed.state)["sealed"] is None  # type: ignore[index]
        revealed = next(u for u in got.updates if u.version == start.version + 2)
        reveal = next(e for e in map(event_json, revealed.events) if e["type"] == "reveal")
        assert reveal["bids"] == [{"seat": 0, "card": 17, "extra": 3}, {"seat": 1, "card": 2, "extra": None}]


async def test_a_seat_that_runs_out_of_time_in_a_sealed_step_is_played_by_the_ai(connect: Connect) -> None:
    clock = api.TimeControl(turn_seconds=1, reserve_seconds=0)
    seats = await seated(connect, "leilao", 2, seed=5, clock=clock)
    start = await seats[0].view()
    assert {s.seat for s in start.match.seats if s.HasField("deadline_unix_ms")} == {0, 1}
    await seats[0].submit(_bid(9), start.version, uuid.uuid4().hex)
    after = await seats[0].view()
    assert not any(s.HasField("deadline_unix_ms") for s in after.match.seats)  # one seat to move
    assert after.match.HasField("deadline_unix_ms")

    async for update in seats[0].follow(after.version):
        if update.version == start.version + 2:
            break
    state = await seats[0].view()
    assert state.match.seats[1].played_by_ai and not state.match.seats[0].played_by_ai
    reveal = [event_json(e) for e in (await _update(seats[0], start.version + 2)).events]
    assert any(e["type"] == "reveal" for e in reveal)


async def _update(seat: Seat, version: int) -> api.MatchUpdate:
    async for update in seat.follow(version - 1):
        if update.version == version and update.HasField("seat"):
            return update
    raise AssertionError(f"no update {version}")


async def test_random_play_in_a_sealed_step_never_goes_stale(connect: Connect) -> None:
    """Two seats bidding at the same moment are both accepted: neither needs to fetch the view again."""
    seats = await seated(connect, "leilao", 2, seed=21)
    start = await seats[0].view()
    rng = random.Random(2)
    views = [await seat.view() for seat in seats]
    responses = await asyncio.gather(
        *(
            seat.submit(rng.choice(list(view.legal_actions)), start.version, uuid.uuid4().hex)
            for seat, view in zip(seats, views, strict=True)
        )
    )
    assert sorted(r.version for r in responses) == [start.version + 1, start.version + 2]
