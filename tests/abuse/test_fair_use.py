"""Fair use: per-client rate limits on every method and caps on waiting matches and streams, refused
with RESOURCE_EXHAUSTED, a one-line reason and a retry-after."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from typing import Any

import grpc
import pytest
from matchplay import assert_reason, bearer, refusal
from mercado.v1 import match_pb2 as api
from mercado.v1 import players_pb2 as players_api
from mercado_client import MercadoClient, retry_after
from server_process import AGENT_KEY, Start

Code = grpc.StatusCode


def assert_throttled(error: grpc.aio.AioRpcError) -> float:
    """A fair-use refusal: RESOURCE_EXHAUSTED, one line, and a retry-after in whole seconds."""
    assert_reason(error, Code.RESOURCE_EXHAUSTED)
    waited = retry_after(error)
    assert waited is not None and waited >= 1 and waited == int(waited), error.trailing_metadata()
    return waited


async def test_a_flood_of_new_matches_is_refused_with_the_default_limits(start: Start) -> None:
    server = start("--max-waiting-per-client", "1000")
    accepted, refused = 0, []
    async with MercadoClient(server.target) as client:
        for _ in range(200):
            try:
                await client.stub.CreateMatch(api.CreateMatchRequest(players=2))
                accepted += 1
            except grpc.aio.AioRpcError as error:
                refused.append(error)
    assert 50 <= accepted <= 70  # the burst, and what refilled meanwhile
    assert len(refused) == 200 - accepted
    assert "too many CreateMatch calls" in refused[0].details()
    assert_throttled(refused[0])


async def test_waiting_matches_cannot_be_squatted(start: Start) -> None:
    """One client taking every open seat of 99 waiting matches is stopped by the JoinMatch limit."""
    server = start("--rate-limit", "CreateMatch=off", "--max-waiting-per-client", "1000")
    async with MercadoClient(server.target) as client:
        waiting = [await client.create_match(players=2) for _ in range(99)]
        outcomes = await asyncio.gather(
            *(
                client.stub.JoinMatch(api.JoinMatchRequest(match_id=m, display_name="squatter"))
                for m in waiting
            ),
            return_exceptions=True,
        )
    taken = [o for o in outcomes if isinstance(o, api.JoinMatchResponse)]
    refused = [o for o in outcomes if isinstance(o, grpc.aio.AioRpcError)]
    assert len(taken) <= 65 and len(taken) + len(refused) == 99
    for error in refused:
        assert_throttled(error)


async def test_every_method_has_a_rate_limit(start: Start) -> None:
    # Two calls of each method in the loop below; creating and joining have two more, for the set-up.
    server = start("--rate-limit", "all=0.2/2", "--rate-limit", "CreateMatch=0.2/4,JoinMatch=0.2/4")
    async with MercadoClient(server.target, reconnect_seconds=0.1) as client:
        stub = client.stub
        created = [await stub.CreateMatch(api.CreateMatchRequest(players=2)) for _ in range(2)]
        match_id, waiting = created[0].match_id, created[1].match_id
        joined = [await stub.JoinMatch(api.JoinMatchRequest(match_id=match_id, display_name=n)) for n in "ab"]
        token = bearer(joined[0].seat_token)
        calls: dict[str, Callable[[], Any]] = {
            "CreateMatch": lambda: stub.CreateMatch(api.CreateMatchRequest(players=2)),
            "JoinMatch": lambda: stub.JoinMatch(api.JoinMatchRequest(match_id=match_id, display_name="c")),
            "ClaimBotSeat": lambda: stub.ClaimBotSeat(api.ClaimBotSeatRequest(), metadata=bearer(AGENT_KEY)),
            "ListMatches": lambda: stub.ListMatches(api.ListMatchesRequest()),
            "GetView": lambda: stub.GetView(api.GetViewRequest(match_id=match_id), metadata=token),
            # A waiting match's stream sends where it stands at once.
            "StreamEvents": lambda: stub.StreamEvents(api.StreamEventsRequest(match_id=waiting)).read(),
            "SubmitAction": lambda: stub.SubmitAction(
                api.SubmitActionRequest(match_id=match_id, request_id=uuid.uuid4().hex), metadata=token
            ),
            "GetReplay": lambda: stub.GetReplay(api.GetReplayRequest(match_id=match_id)),
        }
        for method, call in calls.items():
            outcomes = []
            for _ in range(3):
                try:
                    await call()
                    outcomes.append(Code.OK)
                except grpc.aio.AioRpcError as error:
                    outcomes.append(error.code())
                    if error.code() == Code.RESOURCE_EXHAUSTED and retry_after(error) is not None:
                        assert f"too many {method} calls" in error.details()
                        assert retry_after(error) in (4, 5)  # up to 1 / 0.2 per second
            # Two calls go through to the method (succeeding or refused for their own reasons); the
            # third is refused by the limit, whatever its request.
            assert outcomes[2] == Code.RESOURCE_EXHAUSTED, (method, outcomes)
            assert Code.RESOURCE_EXHAUSTED not in outcomes[:2] or method in ("JoinMatch", "ClaimBotSeat"), (
                outcomes
            )


async def test_undecodable_requests_spend_the_rate_limit_too(start: Start) -> None:
    server = start("--rate-limit", "GetView=0.2/2")
    async with grpc.aio.insecure_channel(server.target) as channel:
        garbage = channel.unary_unary("/mercado.v1.MatchService/GetView")
        codes = [(await refusal(garbage(b"\xff\xff"))).code() for _ in range(3)]
    assert codes == [Code.INVALID_ARGUMENT, Code.INVALID_ARGUMENT, Code.RESOURCE_EXHAUSTED]


async def test_a_client_may_hold_only_so_many_waiting_matches(start: Start) -> None:
    server = start("--max-waiting-per-client", "3")
    async with MercadoClient(server.target) as client:
        mine = [await client.create_match(players=2) for _ in range(3)]
        error = await refusal(client.stub.CreateMatch(api.CreateMatchRequest(players=2)))
        assert_throttled(error)
        assert error.details() == "you have 3 matches waiting for players already"
        for name in ("ada", "bob"):  # a match that starts no longer counts
            await client.join(mine[0], name)
        await client.create_match(players=2)


async def test_a_client_may_hold_only_so_many_streams(start: Start) -> None:
    server = start("--max-streams-per-client", "3")
    async with MercadoClient(server.target) as client:
        match_id = await client.create_match(players=2)
        request = api.StreamEventsRequest(match_id=match_id)
        streams = [client.stub.StreamEvents(request) for _ in range(3)]
        for stream in streams:
            await stream.read()
        fourth = client.stub.StreamEvents(request)
        error = await refusal(fourth.read())
        assert_throttled(error)
        assert error.details() == "you have 3 streams open already"
        streams[0].cancel()
        await asyncio.sleep(0.2)
        again = client.stub.StreamEvents(request)
        assert (await again.read()).version == 0
        for stream in [*streams, again]:
            stream.cancel()


async def test_the_players_of_one_network_share_its_caps(start: Start) -> None:
    """Guest players are free to make: each counts as a client of its own, and all of them, with the
    network's anonymous callers, together against the network's caps."""
    server = start(
        *("--max-streams-per-client", "3", "--max-streams-per-network", "4"),
        *("--max-waiting-per-client", "2", "--max-waiting-per-network", "3"),
    )
    async with MercadoClient(server.target) as client:
        stub = client.stub
        tokens = [
            (await stub.CreatePlayer(players_api.CreatePlayerRequest(display_name=name))).player_token
            for name in ("ada", "bob")
        ]
        created = [
            await stub.CreateMatch(api.CreateMatchRequest(players=2), metadata=bearer(token))
            for token in (tokens[0], tokens[0], tokens[1])
        ]
        error = await refusal(stub.CreateMatch(api.CreateMatchRequest(players=2), metadata=bearer(tokens[1])))
        assert_throttled(error)
        assert error.details() == "your network has 3 matches waiting for players already"

        request = api.StreamEventsRequest(match_id=created[0].match_id)
        streams = [stub.StreamEvents(request, metadata=bearer(tokens[0])) for _ in range(3)]
        streams.append(stub.StreamEvents(request, metadata=bearer(tokens[1])))
        for stream in streams:
            await stream.read()
        for metadata in (bearer(tokens[1]), ()):  # another player, or no player, of the same network
            fifth = stub.StreamEvents(request, metadata=metadata)
            error = await refusal(fifth.read())
            assert_throttled(error)
            assert error.details() == "your network has 4 streams open already"
        for stream in streams:
            stream.cancel()


async def test_trusted_networks_are_exempt(start: Start) -> None:
    server = start("--rate-limit", "CreateMatch=1/1", "--rate-limit-exempt", "127.0.0.0/8")
    async with MercadoClient(server.target) as client:
        for _ in range(10):
            await client.stub.CreateMatch(api.CreateMatchRequest(players=2))


async def test_behind_a_trusted_proxy_each_forwarded_client_has_its_own_budget(start: Start) -> None:
    """The proxy (here: loopback) names the client in x-forwarded-for; a client cannot forge its way
    past the proxy's own entry, and calls from an untrusted address are counted by that address."""
    server = start("--rate-limit", "CreateMatch=1/1", "--trusted-proxy", "127.0.0.0/8")

    def create(*forwarded: str) -> Any:
        metadata = tuple(("x-forwarded-for", hops) for hops in forwarded)
        return client.stub.CreateMatch(api.CreateMatchRequest(players=2), metadata=metadata)

    async with MercadoClient(server.target) as client:
        await create("203.0.113.7")
        assert_throttled(await refusal(create("203.0.113.7")))
        await create("203.0.113.8")  # another client behind the same proxy
        # A client's own x-forwarded-for is kept left of what the proxy appends: the last one counts.
        assert_throttled(await refusal(create("198.51.100.1, 203.0.113.7")))
        await create("203.0.113.9, 127.0.0.1")  # a chain of trusted proxies is looked through
        # A proxy may add a field of its own after the client's (HAProxy does): the fields are one list.
        assert_throttled(await refusal(create("198.51.100.2", "203.0.113.7")))


@pytest.mark.parametrize("limit", ["CreateMatch=0", "Nope=1/1", "CreateMatch=1/0"])
def test_a_bad_limit_is_a_usage_error(start: Start, limit: str) -> None:
    with pytest.raises(RuntimeError, match="Invalid value for '?--rate-limit'?"):
        start("--rate-limit", limit)
