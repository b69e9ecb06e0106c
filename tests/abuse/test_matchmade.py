"""Matches that matchmaking makes count against their players' and networks' caps like the matches they
create, and take the stand-in's worker in their players' networks' turn: many idle matchmade matches
of one address neither escape the caps nor hold back another address's stand-in."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence

import grpc
from matchplay import announce_agent, assert_reason, refusal
from mercado.v1 import match_pb2 as api
from mercado.v1 import match_pb2_grpc as api_grpc
from mercado.v1 import players_pb2 as players_api
from mercado_client import MercadoClient, retry_after
from server_process import Start

Code = grpc.StatusCode
Metadata = Sequence[tuple[str, str]]
ATTACKER, PLAYER_B, PLAYER_C = "203.0.113.7", "198.51.100.1", "198.51.100.2"
IDLE_MATCHES = 20  # the attacker's matchmade matches, every seat left to the stand-in


def caller(token: str = "", address: str = "") -> Metadata:
    """A call's metadata: a bearer token, and the address a trusted proxy forwards."""
    return (
        *((("authorization", f"Bearer {token}"),) if token else ()),
        *((("x-forwarded-for", address),) if address else ()),
    )


async def guest(stub: api_grpc.MatchServiceStub, name: str, address: str = "") -> str:
    request = players_api.CreatePlayerRequest(display_name=name)
    return (await stub.CreatePlayer(request, metadata=caller(address=address))).player_token


async def found(
    stub: api_grpc.MatchServiceStub, token: str, address: str = "", **request: object
) -> api.MatchFound:
    stream = stub.FindMatch(api.FindMatchRequest(**request), metadata=caller(token, address))  # type: ignore[arg-type]
    async for update in stream:
        if update.HasField("found"):
            stream.cancel()
            return update.found
    raise AssertionError("the stream ended without a match")


async def test_matchmade_bot_seats_count_against_their_players_network(start: Start) -> None:
    server = start(
        *("--matchmaking-ai-wait", "0", "--max-bot-seats-per-network", "2"),
        *("--rate-limit", "CreatePlayer=off"),
    )
    async with MercadoClient(server.target) as client:
        stub = client.stub
        await announce_agent(client)
        tokens = [await guest(stub, name) for name in ("ana", "bea", "cid")]
        for token in tokens[:2]:
            match = (await found(stub, token, players=2, allow_ai=True)).match
            assert [seat.bot for seat in match.seats].count(True) == 1
        error = await refusal(found(stub, tokens[2], players=2, allow_ai=True))
        assert_reason(error, Code.RESOURCE_EXHAUSTED)
        assert error.details() == "your network has 2 bot seats waiting for or played by an AI agent already"
        assert retry_after(error)
        # They count for the network's matches made by hand as well.
        bot = api.SeatSpec(bot=api.SeatSpec.Bot(level=api.BOT_LEVEL_EASY))
        created = api.CreateMatchRequest(players=2, seats=[api.SeatSpec(open=api.SeatSpec.Open()), bot])
        error = await refusal(stub.CreateMatch(created, metadata=caller(tokens[2])))
        assert_reason(error, Code.RESOURCE_EXHAUSTED)


async def test_idle_matchmade_matches_of_one_address_do_not_hold_back_anothers_stand_in(start: Start) -> None:
    """One address leaves every seat of its matchmade matches to the stand-in; two people of other
    addresses, matched together, wait for at most a move or two of those before the stand-in moves for
    the one of them who left, not for one move of each."""
    server = start("--trusted-proxy", "127.0.0.0/8", "--rate-limit", "CreatePlayer=off")
    async with MercadoClient(server.target) as client:
        stub = client.stub
        tokens = [await guest(stub, f"idle {n}", ATTACKER) for n in range(2 * IDLE_MATCHES)]
        idle = await asyncio.gather(*(found(stub, token, ATTACKER, players=2) for token in tokens))
        moves: list[str] = []  # the idle matches' actions, in the order they arrive
        idle_ids = sorted({f.match_id for f in idle})
        streams = [stub.StreamEvents(api.StreamEventsRequest(match_id=match_id)) for match_id in idle_ids]

        async def watch(stream: grpc.aio.UnaryStreamCall) -> None:  # type: ignore[type-arg]
            while (update := await stream.read()) is not grpc.aio.EOF:
                if update.HasField("seat"):
                    moves.append(update.state.match.match_id)

        assert len(idle_ids) == IDLE_MATCHES
        watching = [asyncio.ensure_future(watch(stream)) for stream in streams]
        for token, match in zip(tokens, idle, strict=True):
            await stub.LeaveMatch(
                api.LeaveMatchRequest(match_id=match.match_id), metadata=caller(token, ATTACKER)
            )
        deadline = time.monotonic() + 60
        while len(moves) < 2 * IDLE_MATCHES:  # the stand-in plays them all
            assert time.monotonic() < deadline, f"the stand-in made {len(moves)} moves in the idle matches"
            await asyncio.sleep(0.1)

        b, c = await guest(stub, "bea", PLAYER_B), await guest(stub, "cid", PLAYER_C)
        theirs = await asyncio.gather(
            found(stub, b, PLAYER_B, players=2, game=api.GAME_LEILAO),
            found(stub, c, PLAYER_C, players=2, game=api.GAME_LEILAO),
        )
        match_id, b_seat = theirs[0].match_id, theirs[0].seat
        stream = stub.StreamEvents(api.StreamEventsRequest(match_id=match_id), metadata=caller(c, PLAYER_C))
        await stream.read()
        before, left = len(moves), time.monotonic()
        await stub.LeaveMatch(api.LeaveMatchRequest(match_id=match_id), metadata=caller(b, PLAYER_B))
        while not ((update := await stream.read()).HasField("seat") and update.seat == b_seat):
            pass
        waited, behind = time.monotonic() - left, len(moves) - before
        for call in [stream, *streams]:
            call.cancel()
        await asyncio.gather(*watching, return_exceptions=True)
    assert behind <= 4, f"the stand-in moved {behind} times in the idle matches first ({waited:.2f} s)"
