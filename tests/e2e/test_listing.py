"""Listing matches, claiming bot seats, and the standard health and reflection services."""

from __future__ import annotations

import asyncio

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from matchplay import Connect, announce_agent, assert_reason, play_random_match, refusal, seated_match
from mercado.v1 import match_pb2 as api
from mercado.v1 import mercado_pb2 as pb
from mercado_client import MercadoClient
from server_process import AGENT_KEY

SERVICE = "mercado.v1.MatchService"
STATUS = {
    "waiting": api.MATCH_STATUS_WAITING,
    "playing": api.MATCH_STATUS_PLAYING,
    "finished": api.MATCH_STATUS_FINISHED,
}


async def all_pages(client: MercadoClient, page_size: int, status: str | None = None) -> list[list[str]]:
    """Every page of the listing, as match ids, following next_page_token to the end."""
    pages: list[list[str]] = []
    token = ""
    while True:
        response = await client.list_matches(status=status, page_size=page_size, page_token=token)
        pages.append([m.match_id for m in response.matches])
        assert len(pages) < 100
        if not response.next_page_token:
            return pages
        token = response.next_page_token


async def create_in_order(connect: Connect) -> dict[str, list[str]]:
    """Matches of every status, created one after another; by status, in order of creation."""
    created: dict[str, list[str]] = {"waiting": [], "playing": [], "finished": [], "all": []}
    for n, kind in enumerate(["waiting", "playing", "finished", "waiting", "playing", "waiting", "finished"]):
        if kind == "waiting":
            match_id = await connect().create_match(players=3)
            if n % 2:
                await connect().join(match_id, "early")
        else:
            match_id, seats = await seated_match(connect, 2, seed=400 + n)
            if kind == "finished":
                await play_random_match(seats, seed=n)
        created[kind].append(match_id)
        created["all"].append(match_id)
        await asyncio.sleep(0.003)  # distinct creation times: "newest first" is then one order
    return created


async def test_listing_filters_by_status_and_pages_without_duplicates(
    connect_own: Connect,
) -> None:
    client = connect_own()
    created = await create_in_order(connect_own)

    everything = await client.list_matches(page_size=100)
    assert not everything.next_page_token
    assert [m.match_id for m in everything.matches] == created["all"][::-1]  # newest first
    times = [m.created_unix_ms for m in everything.matches]
    assert times == sorted(times, reverse=True)
    by_id = {m.match_id: m for m in everything.matches}
    for status in ("waiting", "playing", "finished"):
        assert {i for i, m in by_id.items() if m.status == STATUS[status]} == set(created[status])
        listed = await client.list_matches(status=status, page_size=100)
        assert [m.match_id for m in listed.matches] == created[status][::-1]
        assert all(m.status == STATUS[status] for m in listed.matches)

    # Paging: every page full but the last, no match twice, none left out, in the same order.
    for page_size in (1, 2, 3, 6, 7, 8):
        pages = await all_pages(client, page_size)
        flat = [i for page in pages for i in page]
        assert flat == created["all"][::-1], page_size
        assert len(flat) == len(set(flat))
        assert all(len(page) == page_size for page in pages[:-1])
        assert 1 <= len(pages[-1]) <= page_size
        assert len(pages) == -(-len(flat) // page_size)
    waiting = await all_pages(client, 1, status="waiting")
    assert waiting == [[i] for i in created["waiting"][::-1]]
    # page_size 0 means 20.
    assert len((await client.list_matches(page_size=0)).matches) == len(created["all"])


async def test_paging_is_stable_while_matches_are_created(connect_own: Connect) -> None:
    client = connect_own()
    older = [await client.create_match() for _ in range(4)]
    first = await client.list_matches(page_size=2)
    newer = [await client.create_match() for _ in range(3)]
    second = await client.list_matches(page_size=2, page_token=first.next_page_token)
    seen = [m.match_id for m in [*first.matches, *second.matches]]
    assert sorted(seen) == sorted(older)
    assert not set(seen) & set(newer)
    assert not second.next_page_token


async def test_summaries_describe_the_seats(connect_own: Connect) -> None:
    client = connect_own()
    await announce_agent(client)
    match_id = await client.create_match(players=4, seats=[None, "easy", None, "expert"], money="public")
    await client.join(match_id, "ada", seat=2)
    (summary,) = (await client.list_matches()).matches
    assert summary.match_id == match_id
    assert summary.game == api.GAME_MERCADO
    assert summary.players == 4
    assert summary.version == 0
    assert summary.mercado.money == pb.MONEY_PUBLIC
    assert summary.mercado.face_down_counts_as_available
    assert [(s.seat, s.bot, s.bot_level, s.taken, s.display_name) for s in summary.seats] == [
        (0, False, api.BOT_LEVEL_UNSPECIFIED, False, ""),
        (1, True, api.BOT_LEVEL_EASY, False, ""),
        (2, False, api.BOT_LEVEL_UNSPECIFIED, True, "ada"),
        (3, True, api.BOT_LEVEL_EXPERT, False, ""),
    ]


async def test_claiming_bot_seats_starts_the_match(connect_own: Connect) -> None:
    client = connect_own()
    await announce_agent(client)
    older = await client.create_match(players=3, seats=[None, "easy", "hard"])
    await announce_agent(client)
    newer = await client.create_match(players=2, seats=["easy"])
    human = await client.join(older, "ada")
    assert (await human.view()).match.status == api.MATCH_STATUS_WAITING

    # The oldest waiting bot seat of a wanted level goes first.
    easy, level = await client.claim_bot_seat("agent-1", ["easy"], agent_key=AGENT_KEY)
    assert (easy.match_id, easy.seat, level) == (older, 1, "easy")
    view = await easy.view()
    assert view.your_seat == 1
    # Named after its level, as on the leaderboard, not after the agent.
    assert view.match.seats[1].taken and view.match.seats[1].display_name == "Easy AI"
    assert view.match.status == api.MATCH_STATUS_WAITING
    assert not view.HasField("to_move")

    hard, level = await client.claim_bot_seat("agent-2", ["hard", "medium"], agent_key=AGENT_KEY)
    assert (hard.match_id, hard.seat, level) == (older, 2, "hard")
    # Every seat taken: the match is playing, for everyone.
    for seat in (human, easy, hard):
        state = await seat.view()
        assert state.match.status == api.MATCH_STATUS_PLAYING
        assert state.HasField("to_move")
    listed = await client.list_matches(status="playing")
    assert [m.match_id for m in listed.matches] == [older]

    # Any level, and an agent without a name; then none is left.
    other, level = await client.claim_bot_seat("", agent_key=AGENT_KEY)
    assert (other.match_id, other.seat, level) == (newer, 0, "easy")
    assert (await other.view()).match.seats[0].display_name == "Easy AI"
    assert (await hard.view()).match.seats[2].display_name == "Hard AI"
    assert_reason(
        await refusal(client.claim_bot_seat("agent-3", agent_key=AGENT_KEY)),
        grpc.StatusCode.RESOURCE_EXHAUSTED,
    )

    # The claimed seats play like any other.
    await play_random_match([human, easy, hard], seed=9)
    assert (await client.view(older)).match.status == api.MATCH_STATUS_FINISHED


async def test_a_bot_seat_of_unspecified_level_is_medium(connect_own: Connect) -> None:
    client = connect_own()
    request = api.CreateMatchRequest(
        players=2, seats=[api.SeatSpec(bot=api.SeatSpec.Bot())], mercado=pb.MercadoOptions()
    )
    await announce_agent(client)
    created = await client.stub.CreateMatch(request)
    assert created.match.seats[0].bot_level == api.BOT_LEVEL_MEDIUM
    _, level = await client.claim_bot_seat("agent", ["medium"], agent_key=AGENT_KEY)
    assert level == "medium"


@pytest.mark.parametrize("service", ["", SERVICE])
async def test_health_check_answers_serving(client: MercadoClient, service: str) -> None:
    stub = health_pb2_grpc.HealthStub(client.channel)
    response = await stub.Check(health_pb2.HealthCheckRequest(service=service))
    assert response.status == health_pb2.HealthCheckResponse.SERVING


async def test_health_check_of_an_unknown_service_is_not_found(client: MercadoClient) -> None:
    stub = health_pb2_grpc.HealthStub(client.channel)
    error = await refusal(stub.Check(health_pb2.HealthCheckRequest(service="no.such.Service")))
    assert error.code() == grpc.StatusCode.NOT_FOUND


async def test_reflection_lists_and_describes_the_match_service(client: MercadoClient) -> None:
    stub = reflection_pb2_grpc.ServerReflectionStub(client.channel)
    requests = [
        reflection_pb2.ServerReflectionRequest(list_services=""),
        reflection_pb2.ServerReflectionRequest(file_containing_symbol=SERVICE),
    ]
    responses = [r async for r in stub.ServerReflectionInfo(iter(requests))]
    names = {s.name for s in responses[0].list_services_response.service}
    assert {SERVICE, "grpc.health.v1.Health", "grpc.reflection.v1alpha.ServerReflection"} <= names
    files = responses[1].file_descriptor_response.file_descriptor_proto
    assert files, responses[1]
    from google.protobuf import descriptor_pb2

    described = [descriptor_pb2.FileDescriptorProto.FromString(f) for f in files]
    methods = {m.name for f in described for s in f.service if s.name == "MatchService" for m in s.method}
    assert {"CreateMatch", "JoinMatch", "SubmitAction", "StreamEvents", "GetReplay"} <= methods
