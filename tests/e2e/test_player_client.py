"""The Python client's player calls against a real server: guest players, seats bound to them, "my
games", ratings and the leaderboard, matchmaking (FindMatch) with people and with bots.

(test_players.py checks the server's side of these calls with the bare stub.)"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import aclosing

import grpc
import pytest
from matchplay import announce_agent, assert_reason, play_random_match, refusal
from mercado.v1 import match_pb2 as api
from mercado.v1 import players_pb2 as players_api
from mercado_client import MercadoClient, Seat
from server_process import AGENT_KEY, ServerProcess, Start

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
async def fresh(start: Start) -> AsyncIterator[MercadoClient]:
    """A client of a server of the test's own (an empty ladder, an empty queue)."""
    async with MercadoClient(start().target, reconnect_seconds=10) as client:
        yield client


async def collect(updates: AsyncIterator[api.FindMatchUpdate]) -> list[api.FindMatchUpdate]:
    return [update async for update in updates]


async def first_update(client: MercadoClient, token: str, players: int = 2) -> api.FindMatchUpdate:
    """The first update of a new queue, and leave it."""
    async with aclosing(client.find_match(players, token=token)) as updates:
        return await anext(updates)


async def test_a_guest_player_creates_joins_and_plays_with_its_credential(client: MercadoClient) -> None:
    ana = await client.create_player("Ana")
    assert ana.player_token and len(ana.player.player_id) == 32
    assert ana.player.display_name == "Ana" and ana.player.kind == players_api.PLAYER_KIND_GUEST
    assert ana.player.rating.mu == 25.0 and round(ana.player.rating.display, 9) == 0.0
    assert await client.get_player(token=ana.player_token) == ana.player
    assert await client.get_player(ana.player.player_id) == ana.player  # anyone may look a player up
    assert_reason(await refusal(client.get_player("")), grpc.StatusCode.UNAUTHENTICATED)
    assert_reason(await refusal(client.get_player("0" * 32)), grpc.StatusCode.NOT_FOUND)

    match_id = await client.create_match(players=2, token=ana.player_token)
    seat = await client.join(match_id, token=ana.player_token)
    # The seat acts with the player credential; its own token is kept beside it, and acts as well.
    assert seat.token == ana.player_token and seat.seat_token and seat.seat_token != seat.token
    bea = await client.create_player("Bea")
    other = await client.join(match_id, token=bea.player_token)
    state = await seat.view()
    assert state.your_seat == seat.seat and state.match.status == api.MATCH_STATUS_PLAYING
    assert [(s.player_id, s.display_name) for s in state.match.seats] == [
        (ana.player.player_id, "Ana"),
        (bea.player.player_id, "Bea"),
    ]
    assert state.match.rated and not state.match.hot_seat
    by_seat_token = await Seat(client, match_id, seat.seat, seat.seat_token).view()
    assert by_seat_token.your_seat == seat.seat

    # My games: the player's matches only, by status too.
    assert [m.match_id for m in (await client.list_matches(player_id=ana.player.player_id)).matches] == [
        match_id
    ]
    playing = await client.list_matches("playing", player_id=bea.player.player_id)
    assert [m.match_id for m in playing.matches] == [match_id]
    assert not (await client.list_matches("finished", player_id=bea.player.player_id)).matches
    assert match_id in [m.match_id for m in (await client.list_matches()).matches]

    await play_random_match([seat, other], seed=5)
    finished = await client.list_matches("finished", player_id=ana.player.player_id)
    assert [m.match_id for m in finished.matches] == [match_id] and finished.matches[0].rated


async def test_rotating_a_guests_token_refuses_every_earlier_one(client: MercadoClient) -> None:
    ana = await client.create_player("Ana")
    rotated = await client.rotate_player_token(ana.player_token)
    assert rotated.player.player_id == ana.player.player_id and rotated.player_token != ana.player_token
    assert (await client.get_player(token=rotated.player_token)).player_id == ana.player.player_id
    for call in (client.get_player(token=ana.player_token), client.rotate_player_token(ana.player_token)):
        assert_reason(await refusal(call), grpc.StatusCode.UNAUTHENTICATED)


async def test_a_rated_match_moves_both_ratings_and_the_leaderboard_pages_through_them(
    fresh: MercadoClient,
) -> None:
    client = fresh
    ana, bea = await client.create_player("Ana"), await client.create_player("Bea")
    match_id = await client.create_match(players=2, token=ana.player_token)
    seats = [await client.join(match_id, token=p.player_token) for p in (ana, bea)]
    await play_random_match(seats, seed=7)
    ranks = list((await client.view(match_id)).match.ranks)

    deadline = time.monotonic() + 10
    while (after := await client.get_player(token=ana.player_token)).rated_matches == 0:
        assert time.monotonic() < deadline, "the match was not rated"
        await asyncio.sleep(0.1)
    players = [after, await client.get_player(bea.player.player_id)]
    assert [p.rated_matches for p in players] == [1, 1]
    assert [p.wins for p in players] == [int(rank == 1) for rank in ranks]
    assert all(p.rating.sigma < ana.player.rating.sigma for p in players)  # less uncertain now
    if ranks[0] != ranks[1]:
        winner, loser = (players[0], players[1]) if ranks[0] == 1 else (players[1], players[0])
        assert winner.rating.mu > 25.0 > loser.rating.mu
        # A first loss reads as a newcomer's rating, not a negative one.
        assert loser.rating.display == 0.0 and loser.rating.mu - 3 * loser.rating.sigma < 0

    whole = await client.leaderboard(page_size=100)
    assert not whole.next_page_token
    assert [e.rank for e in whole.entries] == list(range(1, len(whole.entries) + 1))
    displays = [e.player.rating.display for e in whole.entries]
    assert displays == sorted(displays, reverse=True)
    ids = [e.player.player_id for e in whole.entries]
    assert {ana.player.player_id, bea.player.player_id} <= set(ids)
    # One at a time, the same ladder.
    paged: list[players_api.LeaderboardEntry] = []
    token = ""
    while True:
        page = await client.leaderboard(page_size=1, page_token=token)
        assert len(page.entries) <= 1
        paged += page.entries
        token = page.next_page_token
        if not token:
            break
    assert [(e.rank, e.player.player_id) for e in paged] == [
        (e.rank, e.player.player_id) for e in whole.entries
    ]


async def test_find_match_pairs_two_queued_players_and_each_plays_its_seat(fresh: MercadoClient) -> None:
    client = fresh
    ana, bea = await client.create_player("Ana"), await client.create_player("Bea")
    ana_queue = client.find_match(2, token=ana.player_token)
    first = await anext(ana_queue)
    assert first.WhichOneof("kind") == "queued"
    assert first.queued.queued_players == 1 and first.queued.rating_window > 0
    ana_rest = asyncio.create_task(collect(ana_queue))
    bea_updates = await asyncio.wait_for(collect(client.find_match(2, token=bea.player_token)), 20)
    ana_updates = [first, *await asyncio.wait_for(ana_rest, 20)]
    for updates in (ana_updates, bea_updates):
        # Queued now and then, then the match, and the stream ends.
        assert [u.WhichOneof("kind") for u in updates[:-1]] == ["queued"] * (len(updates) - 1)
        assert updates[-1].WhichOneof("kind") == "found"
    found = {"ana": ana_updates[-1].found, "bea": bea_updates[-1].found}
    assert found["ana"].match_id == found["bea"].match_id
    assert {found["ana"].seat, found["bea"].seat} == {0, 1}
    for name, player in (("ana", ana), ("bea", bea)):
        summary = found[name].match
        assert summary.match_id == found[name].match_id and summary.players == 2 and summary.rated
        assert summary.seats[found[name].seat].player_id == player.player.player_id
    # (Each summary is the match as that player's seat was taken: the first may still show the other
    # seat open.) Both seats are taken, by their players, and the match is under way.
    summary = (await client.view(found["ana"].match_id)).match
    assert summary.status == api.MATCH_STATUS_PLAYING
    by_seat = {s.seat: s.player_id for s in summary.seats}
    assert by_seat == {found["ana"].seat: ana.player.player_id, found["bea"].seat: bea.player.player_id}

    seats = [
        Seat(client, f.match_id, f.seat, p.player_token, f.seat_token)
        for f, p in ((found["ana"], ana), (found["bea"], bea))
    ]
    assert (await seats[0].view()).your_seat == found["ana"].seat
    assert (
        await Seat(client, summary.match_id, found["bea"].seat, found["bea"].seat_token).view()
    ).your_seat == (found["bea"].seat)
    await play_random_match(seats, seed=3)
    assert (await client.view(summary.match_id)).match.status == api.MATCH_STATUS_FINISHED


async def test_a_player_queues_once_and_closing_or_cancelling_leaves_the_queue(fresh: MercadoClient) -> None:
    client = fresh
    ana = await client.create_player("Ana")
    async with aclosing(client.find_match(3, token=ana.player_token)) as queue:
        assert (await anext(queue)).queued.queued_players == 1
        again = client.find_match(3, token=ana.player_token)
        assert_reason(await refusal(anext(again)), grpc.StatusCode.ALREADY_EXISTS)
    # Closed: queued again at once, alone.
    assert (await first_update(client, ana.player_token, 3)).queued.queued_players == 1

    # A task listening to the queue, cancelled (Ctrl-C): the same.
    listening = asyncio.Event()

    async def listen() -> None:
        async for _ in client.find_match(3, token=ana.player_token):
            listening.set()

    task = asyncio.create_task(listen())
    await asyncio.wait_for(listening.wait(), 10)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert (await first_update(client, ana.player_token, 3)).queued.queued_players == 1
    assert_reason(await refusal(anext(client.find_match(2, token=""))), grpc.StatusCode.UNAUTHENTICATED)


async def test_find_match_fills_the_seats_with_bots_after_the_wait_only_when_allowed(start: Start) -> None:
    server = start("--matchmaking-ai-wait", "1")
    async with MercadoClient(server.target, reconnect_seconds=10) as client:
        await announce_agent(client)
        ana = await client.create_player("Ana")
        # People only: still queued well after the wait.
        began = time.monotonic()
        async with aclosing(client.find_match(2, allow_ai=False, token=ana.player_token)) as queue:
            async for update in queue:
                assert update.WhichOneof("kind") == "queued"
                if time.monotonic() - began > 2.5:
                    break
        updates = await asyncio.wait_for(
            collect(client.find_match(3, allow_ai=True, token=ana.player_token)), 15
        )
        assert updates[-1].WhichOneof("kind") == "found"
        found = updates[-1].found
        bots = [s for s in found.match.seats if s.bot]
        assert len(bots) == 2 and found.match.players == 3
        assert not found.match.seats[found.seat].bot
        assert found.match.seats[found.seat].player_id == ana.player.player_id
        # An agent takes the bot seats, and the match plays.
        claimed = [await client.claim_bot_seat("robot", agent_key=AGENT_KEY) for _ in bots]
        assert {seat.match_id for seat, _ in claimed} == {found.match_id}
        state = await client.view(found.match_id, ana.player_token)
        assert state.match.status == api.MATCH_STATUS_PLAYING
        assert {s.player_id for s in state.match.seats if s.bot} <= {f"bot:{level}" for _, level in claimed}


async def test_without_anonymous_play_create_and_join_take_the_player_credential(start: Start) -> None:
    server: ServerProcess = start("--no-allow-anonymous")
    async with MercadoClient(server.target, reconnect_seconds=10) as client:
        assert_reason(await refusal(client.create_match(players=2)), grpc.StatusCode.UNAUTHENTICATED)
        ana = await client.create_player("Ana")
        match_id = await client.create_match(players=2, token=ana.player_token, unrated=True)
        assert_reason(await refusal(client.join(match_id, "bo")), grpc.StatusCode.UNAUTHENTICATED)
        seat = await client.join(match_id, "", token=ana.player_token)
        state = await seat.view()
        assert state.match.seats[seat.seat].player_id == ana.player.player_id
        assert state.match.status == api.MATCH_STATUS_WAITING and not state.match.rated


async def test_find_match_queues_again_after_the_server_restarts(start: Start) -> None:
    server = start()
    async with MercadoClient(server.target, reconnect_seconds=20) as client:
        ana, bea = await client.create_player("Ana"), await client.create_player("Bea")
        async with aclosing(client.find_match(2, token=ana.player_token)) as queue:
            assert (await anext(queue)).WhichOneof("kind") == "queued"
            await asyncio.to_thread(server.restart)  # a crash: the queue is gone with the process
            # Queued again on the new process (the guest token still names Ana), and matched.
            assert (await asyncio.wait_for(anext(queue), 15)).WhichOneof("kind") == "queued"
            bea_updates = asyncio.create_task(collect(client.find_match(2, token=bea.player_token)))
            rest = await asyncio.wait_for(collect(queue), 20)
        found = rest[-1].found
        assert found.match_id == (await asyncio.wait_for(bea_updates, 10))[-1].found.match_id
        assert found.match.seats[found.seat].player_id == ana.player.player_id
