"""Matches that always finish, end to end, with short clocks: a seat that never moves is played by
the AI and the match ends; its owner takes it back; leaving hands a seat to the AI or forfeits it;
a match nobody joins expires; bot seats need an agent."""

from __future__ import annotations

import asyncio
import random
import time
import uuid
from collections.abc import Callable

import grpc
from matchplay import assert_reason, refusal
from mercado.v1 import match_pb2 as api
from mercado_client import MercadoClient, Seat
from server_process import Start

SHORT = ["--turn-seconds", "1", "--reserve-seconds", "0"]
MATCH_SECONDS = 120.0


async def _seated(client: MercadoClient, clock: api.TimeControl | None = None) -> list[Seat]:
    match_id = await client.create_match(players=2, clock=clock)
    return [await client.join(match_id, name) for name in ("ada", "bo")]


async def until(check: Callable[[api.MatchState], bool], seat: Seat, seconds: float = 30) -> api.MatchState:
    deadline = time.monotonic() + seconds
    while True:
        state = await seat.view()
        if check(state):
            return state
        assert time.monotonic() < deadline, state.match
        await asyncio.sleep(0.05)


async def play_until_the_end(seat: Seat, rng: random.Random) -> api.MatchState:
    """Random moves on every turn of ``seat`` that its owner plays, until the match ends."""
    async for update in seat.follow():
        state = update.state
        if state.match.status != api.MATCH_STATUS_PLAYING:
            return state
        if state.legal_actions:
            try:
                await seat.submit(rng.choice(list(state.legal_actions)), state.version, uuid.uuid4().hex)
            except grpc.aio.AioRpcError as error:
                if error.code() not in (grpc.StatusCode.ABORTED, grpc.StatusCode.FAILED_PRECONDITION):
                    raise  # a stale picture is fine: the stream brings the new one
    return await seat.view()


async def test_a_seat_that_never_moves_is_played_by_the_ai_and_the_match_finishes(start: Start) -> None:
    server = start(*SHORT)
    async with MercadoClient(server.target) as client:
        seats = await _seated(client)
        first = (await seats[0].view()).to_move
        assert (await seats[0].view()).match.HasField("deadline_unix_ms")
        absent, present = seats[first], seats[1 - first]
        state = await until(lambda s: s.match.seats[absent.seat].played_by_ai, present)
        assert not state.match.seats[absent.seat].left and state.match.seats[absent.seat].reserve_ms == 0
        final = await asyncio.wait_for(play_until_the_end(present, random.Random(1)), MATCH_SECONDS)
        assert final.match.status == api.MATCH_STATUS_FINISHED
        steps = (await client.replay(absent.match_id)).steps
        assert any(step.seat == absent.seat for step in steps)  # the AI moved for it
        assert list(final.match.ranks) == list(final.view.mercado.result.ranks)


async def test_the_owner_takes_a_timed_out_seat_back(start: Start) -> None:
    server = start(*SHORT)
    async with MercadoClient(server.target) as client:
        seats = await _seated(client)
        absent = seats[(await seats[0].view()).to_move]
        await until(lambda s: s.match.seats[absent.seat].played_by_ai, absent)
        state = await absent.reclaim()
        assert not state.match.seats[absent.seat].played_by_ai
        assert_reason(await refusal(absent.reclaim()), grpc.StatusCode.FAILED_PRECONDITION)
        # Its own again: on its turn, its move is taken (within its second, or the AI plays again).
        state = await until(lambda s: s.to_move == absent.seat and bool(s.legal_actions), absent)
        response = await absent.submit(state.legal_actions[0], state.version, uuid.uuid4().hex)
        assert response.version == state.version + 1


async def test_leaving_hands_the_seat_to_the_ai_or_forfeits_it(start: Start) -> None:
    server = start()
    async with MercadoClient(server.target) as client:
        kept = await _seated(client)
        await kept[0].leave()
        state = await kept[1].view()
        assert state.match.seats[0].played_by_ai and state.match.seats[0].left
        assert not state.match.seats[0].forfeited
        forfeit = api.TimeControl(turn_seconds=60, reserve_seconds=60, on_timeout=api.ON_TIMEOUT_FORFEIT)
        lost = await _seated(client, forfeit)
        await lost[0].leave()
        assert_reason(await refusal(lost[0].leave()), grpc.StatusCode.FAILED_PRECONDITION)
        final = await asyncio.wait_for(play_until_the_end(lost[1], random.Random(2)), MATCH_SECONDS)
        assert final.match.seats[0].forfeited
        assert list(final.match.ranks) == [2, 1]  # whatever the scores


async def test_a_match_nobody_joins_expires(start: Start) -> None:
    server = start("--waiting-expiry", "1")
    async with MercadoClient(server.target) as client:
        match_id = await client.create_match(players=2)
        updates = [u async for u in client.follow(match_id)]  # where it stands, then its end
        assert updates[-1].state.match.status == api.MATCH_STATUS_CANCELLED
        listed = await client.list_matches(status="cancelled")
        assert [m.match_id for m in listed.matches] == [match_id]
        assert_reason(await refusal(client.join(match_id, "late")), grpc.StatusCode.FAILED_PRECONDITION)


async def test_without_an_agent_a_bot_seat_is_refused_with_the_reason(start: Start) -> None:
    server = start()
    async with MercadoClient(server.target) as client:
        error = await refusal(client.create_match(players=2, seats=[None, "easy"]))
        assert_reason(error, grpc.StatusCode.FAILED_PRECONDITION)
        assert "no AI agent" in error.details()
        assert (await client.list_matches()).matches == []
