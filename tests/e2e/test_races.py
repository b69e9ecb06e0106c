"""Concurrent and repeated submissions: one action per version, each request id applied at most once."""

from __future__ import annotations

import asyncio
import contextlib
import random
import uuid

import grpc
from matchplay import Connect, assert_reason, bearer, mover, refusal, seated_match
from mercado.v1 import match_pb2 as api
from mercado_client import Seat
from server_process import ServerProcess

from server.games.mercado import Options, player_view, replay
from server.rpc.wires.mercado import action_from_message, view_message


async def test_concurrent_submissions_for_one_version_accept_exactly_one(connect: Connect) -> None:
    match_id, seats = await seated_match(connect, 3, seed=101)
    rng = random.Random(1)
    accepted: list[api.Action] = []
    codes: set[grpc.StatusCode] = set()
    for turn in range(20):
        seat, state = await mover(seats)
        assert state.version == turn
        # Two different clients of the same seat, two different request ids, the same version.
        twin = Seat(connect(), match_id, seat.seat, seat.token)
        choices = [rng.choice(list(state.legal_actions)) for _ in range(2)]
        results = await asyncio.gather(
            seat.submit(choices[0], state.version, uuid.uuid4().hex),
            twin.submit(choices[1], state.version, uuid.uuid4().hex),
            return_exceptions=True,
        )
        won = [
            (r, a) for r, a in zip(results, choices, strict=True) if isinstance(r, api.SubmitActionResponse)
        ]
        lost = [r for r in results if not isinstance(r, api.SubmitActionResponse)]
        assert len(won) == 1 and len(lost) == 1, results
        error = lost[0]
        assert isinstance(error, grpc.aio.AioRpcError), error
        assert error.code() in (grpc.StatusCode.ABORTED, grpc.StatusCode.FAILED_PRECONDITION)
        assert_reason(error, error.code())
        codes.add(error.code())
        response, action = won[0]
        assert response.version == turn + 1
        accepted.append(action)
        assert (await seats[0].view()).version == turn + 1
    # The version is checked before the rules: the loser is told its view is stale.
    assert codes == {grpc.StatusCode.ABORTED}

    # The match holds exactly the accepted actions: the followers see them, the engine agrees.
    updates = []
    async for update in connect().follow(match_id):
        if not update.HasField("action"):
            continue  # the first message: where the match stands
        updates.append(update)
        if update.version == len(accepted):
            break
    assert [u.action for u in updates] == accepted
    expected = replay(Options(players=3), 101, [action_from_message(a) for a in accepted])
    final = await seats[0].view()
    assert final.view.mercado == view_message(player_view(expected, 0))


async def test_concurrent_submissions_of_mover_and_another_seat(connect: Connect) -> None:
    _, seats = await seated_match(connect, 2, seed=102)
    seat, state = await mover(seats)
    other = seats[1 - seat.seat]
    action = state.legal_actions[0]
    results = await asyncio.gather(
        seat.submit(action, state.version, uuid.uuid4().hex),
        other.submit(action, state.version, uuid.uuid4().hex),
        return_exceptions=True,
    )
    assert isinstance(results[0], api.SubmitActionResponse)
    assert isinstance(results[1], grpc.aio.AioRpcError)
    assert results[1].code() in (grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.ABORTED)
    assert (await other.view()).version == state.version + 1


async def test_a_retried_request_returns_the_first_result_and_applies_once(connect: Connect) -> None:
    match_id, seats = await seated_match(connect, 2, seed=103)
    follower = connect().follow(match_id)
    seat, state = await mover(seats)
    request_id = uuid.uuid4().hex
    first = await seat.submit(state.legal_actions[0], state.version, request_id)
    assert first.version == state.version + 1

    # The same id again: with the same version, a now-stale version, from another connection.
    again = await seat.submit(state.legal_actions[0], state.version, request_id)
    stale = await seat.submit(state.legal_actions[0], first.version, request_id)
    elsewhere = await Seat(connect(), match_id, seat.seat, seat.token).submit(
        state.legal_actions[0], state.version, request_id
    )
    # The same id with another action is no retry.
    assert len(state.legal_actions) > 1
    error = await refusal(seat.submit(state.legal_actions[-1], state.version, request_id))
    assert_reason(error, grpc.StatusCode.INVALID_ARGUMENT)
    for response in (again, stale, elsewhere):
        assert response.version == first.version
        assert list(response.events) == list(first.events)
        assert response.SerializeToString(deterministic=True) == first.SerializeToString(deterministic=True)
    view = await seat.view()
    assert view.version == first.version
    assert view.view == first.state.view

    # The followers saw that version exactly once (after where the match stood when they began).
    assert not (await anext(follower)).HasField("action")
    update = await anext(follower)
    assert update.version == first.version
    assert update.action == state.legal_actions[0]
    next_seat, next_state = await mover(seats)
    await next_seat.submit(next_state.legal_actions[0], next_state.version, uuid.uuid4().hex)
    assert (await anext(follower)).version == first.version + 1
    await follower.aclose()  # type: ignore[attr-defined]


async def test_concurrent_retries_of_one_request_apply_it_once(connect: Connect) -> None:
    _, seats = await seated_match(connect, 2, seed=104)
    seat, state = await mover(seats)
    request_id = uuid.uuid4().hex
    twins = [Seat(connect(), seat.match_id, seat.seat, seat.token) for _ in range(6)]
    responses = await asyncio.gather(
        *(twin.submit(state.legal_actions[0], state.version, request_id) for twin in twins)
    )
    assert {r.SerializeToString(deterministic=True) for r in responses} == {
        responses[0].SerializeToString(deterministic=True)
    }
    assert responses[0].version == state.version + 1
    assert (await seat.view()).version == state.version + 1


async def test_a_request_id_of_another_seat_is_refused(connect: Connect) -> None:
    _, seats = await seated_match(connect, 2, seed=105)
    seat, state = await mover(seats)
    request_id = uuid.uuid4().hex
    await seat.submit(state.legal_actions[0], state.version, request_id)
    other = seats[1 - seat.seat]
    before = await other.view()
    error = await refusal(other.submit(state.legal_actions[0], before.version, request_id))
    assert_reason(error, grpc.StatusCode.INVALID_ARGUMENT)
    assert await other.view() == before


async def test_request_ids_are_unique_per_match_only(connect: Connect) -> None:
    request_id = "the-same-id"
    for seed in (106, 107):
        _, seats = await seated_match(connect, 2, seed=seed)
        seat, state = await mover(seats)
        response = await seat.submit(state.legal_actions[0], state.version, request_id)
        assert response.version == 1


async def test_submissions_whose_callers_give_up_never_wedge_a_match(
    own_server: ServerProcess, connect_own: Connect
) -> None:
    """A call cancelled mid-submit (here by a tiny deadline) is applied entirely or not at all."""
    client = connect_own()
    match_ids = []
    for attempt in range(12):
        match_id, seats = await seated_match(connect_own, 2, seed=600 + attempt)
        match_ids.append(match_id)
        seat, state = await mover(seats)
        request = api.SubmitActionRequest(
            match_id=match_id, expected_version=0, request_id=uuid.uuid4().hex, action=state.legal_actions[0]
        )
        with contextlib.suppress(grpc.aio.AioRpcError):
            await client.stub.SubmitAction(
                request, metadata=bearer(seat.token), timeout=0.0003 * (1 + attempt % 4)
            )
        # The match goes on: the next move (of whoever is to move now) is accepted. The given-up call
        # may still be being written when the view is read: then the view is one version behind.
        for _ in range(3):
            seat, state = await mover(seats)
            assert state.version in (0, 1)
            try:
                response = await asyncio.wait_for(
                    seat.submit(state.legal_actions[0], state.version, uuid.uuid4().hex), 5
                )
            except grpc.aio.AioRpcError as error:
                assert error.code() == grpc.StatusCode.ABORTED and state.version == 0
                continue
            assert response.version == state.version + 1
            break
        else:
            raise AssertionError("the match did not go on")

    async def views() -> list[bytes]:
        states = [await client.view(m) for m in match_ids]
        for state in states:
            state.match.ClearField("deadline_unix_ms")  # the turn starts again with the restart
        return [state.SerializeToString(deterministic=True) for state in states]

    before = await views()
    await asyncio.to_thread(own_server.restart)
    # What the server said it holds is what it had written.
    assert await views() == before
