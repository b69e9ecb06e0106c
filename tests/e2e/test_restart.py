"""A server killed with SIGKILL and restarted on the same database loses nothing it acknowledged."""

from __future__ import annotations

import asyncio
import random
import uuid
from collections.abc import AsyncIterator

import pytest
from matchplay import Connect, announce_agent, mover, play_random_match, replay_history, seated_match
from mercado.v1 import match_pb2 as api
from mercado_client import MercadoClient, Seat
from server_process import AGENT_KEY, ServerProcess

from server.games.mercado import player_view
from server.rpc.wires.mercado import view_message

FOLLOW_SECONDS = 20.0
RESTART_WINDOW_SECONDS = 5.0  # a client's reconnect window that a server's restart fits in


async def collect(updates: AsyncIterator[api.MatchUpdate], into: list[api.MatchUpdate], until: int) -> None:
    """Gather the actions' updates until version ``until`` (or the stream's end); a stream's first
    message, where the match stands (again after each reconnection), is not one."""
    async for update in updates:
        if not update.HasField("action"):
            continue
        into.append(update)
        if update.version >= until:
            break


def action_versions(updates: list[api.MatchUpdate]) -> list[int]:
    return [u.version for u in updates if u.HasField("seat")]


async def drive(seats: list[Seat], rng: random.Random, acks: list[tuple[int, api.Action]], stop: int) -> None:
    """Random moves, one at a time, until ``stop`` are acknowledged; every call rides out a restart."""
    while len(acks) < stop:
        seat, state = await mover(seats)
        action = rng.choice(list(state.legal_actions))
        response = await seat.submit(action, state.version, uuid.uuid4().hex)
        acks.append((response.version, action))


async def views(watcher: MercadoClient, seats: list[Seat]) -> list[bytes]:
    """What everyone sees, but for the turn's deadline (a restart starts the turn again)."""
    states = [await s.view() for s in seats] + [await watcher.view(seats[0].match_id)]
    for state in states:
        state.match.ClearField("deadline_unix_ms")
    return [s.SerializeToString(deterministic=True) for s in states]


async def restart(server: ServerProcess) -> None:
    await asyncio.to_thread(server.restart)


async def test_restart_keeps_views_tokens_and_streams(
    own_server: ServerProcess, connect_own: Connect
) -> None:
    match_id, seats = await seated_match(connect_own, 3, seed=201)
    watcher = connect_own()
    spectator: list[api.MatchUpdate] = []
    seat_updates: list[api.MatchUpdate] = []
    following = [
        asyncio.create_task(collect(watcher.follow(match_id), spectator, until=10**6)),
        asyncio.create_task(collect(seats[1].follow(), seat_updates, until=10**6)),
    ]
    acks: list[tuple[int, api.Action]] = []
    await drive(seats, random.Random(1), acks, stop=12)
    before = await views(watcher, seats)

    await restart(own_server)

    # Nothing acknowledged was lost; every caller sees exactly what it saw.
    after = await views(watcher, seats)
    assert api.MatchState.FromString(after[-1]).version == len(acks) == 12
    assert after == before
    # The seat tokens still act; the streams resume where they were, without gaps or repeats.
    received = await play_random_match(seats, seed=201)
    assert all(r.responses or r.updates for r in received.values())
    await asyncio.wait_for(asyncio.gather(*following), FOLLOW_SECONDS)
    final = (await watcher.view(match_id)).version
    assert action_versions(spectator) == list(range(1, final + 1))
    assert action_versions(seat_updates) == list(range(1, final + 1))
    assert all(u.state.your_seat == 1 for u in seat_updates)
    assert all(not u.state.HasField("your_seat") for u in spectator)

    history = replay_history(await watcher.replay(match_id))
    assert [u.action for u in spectator[:12]] == [a for _, a in acks]
    for update in spectator:
        assert update.state.view.mercado == view_message(player_view(history[update.version][0], None))


async def test_kills_during_play_lose_no_acknowledged_action(
    own_server: ServerProcess, connect_own: Connect
) -> None:
    match_id, seats = await seated_match(connect_own, 2, seed=202)
    watcher = connect_own()
    spectator: list[api.MatchUpdate] = []
    acks: list[tuple[int, api.Action]] = []
    stop = 24
    follower = asyncio.create_task(collect(watcher.follow(match_id), spectator, until=stop))
    driver = asyncio.create_task(drive(seats, random.Random(2), acks, stop))

    # Kill the server twice while the driver keeps submitting.
    for at in (4, 14):
        while len(acks) < at or not spectator:
            if driver.done():
                await driver  # it failed: say why
            await asyncio.sleep(0.001)
        await restart(own_server)
    await asyncio.wait_for(driver, FOLLOW_SECONDS)
    await asyncio.wait_for(follower, FOLLOW_SECONDS)

    assert [v for v, _ in acks] == list(range(1, stop + 1))
    assert (await watcher.view(match_id)).version == stop
    assert action_versions(spectator) == list(range(1, stop + 1))
    assert [u.action for u in spectator] == [a for _, a in acks]
    # A fresh follower after the restarts reads the same log.
    fresh: list[api.MatchUpdate] = []
    await collect(connect_own().follow(match_id), fresh, until=stop)
    assert [u.action for u in fresh] == [a for _, a in acks]


async def test_a_retry_after_a_restart_returns_the_first_result(
    own_server: ServerProcess, connect_own: Connect
) -> None:
    match_id, seats = await seated_match(connect_own, 2, seed=203)
    watcher = connect_own()
    seat, state = await mover(seats)
    request_id = uuid.uuid4().hex
    first = await seat.submit(state.legal_actions[0], state.version, request_id)

    await restart(own_server)

    again = await seat.submit(state.legal_actions[0], state.version, request_id)
    assert again.version == first.version == 1
    assert list(again.events) == list(first.events)
    # The same state; only the turn's deadline moved: the turn began again with the restart.
    assert again.state.match.deadline_unix_ms >= first.state.match.deadline_unix_ms
    again.state.match.ClearField("deadline_unix_ms")
    first.state.match.ClearField("deadline_unix_ms")
    assert again.state == first.state
    assert (await watcher.view(match_id)).version == 1


async def test_a_join_sent_while_the_server_restarts_takes_one_seat_once_it_is_back(
    own_server: ServerProcess, connect_own: Connect
) -> None:
    client = connect_own(RESTART_WINDOW_SECONDS * 4)
    match_id = await client.create_match(players=3)
    await asyncio.to_thread(own_server.kill)
    # The client's join is retried, under its request id, until the server answers.
    joining = asyncio.ensure_future(client.join(match_id, "ada"))
    await asyncio.to_thread(own_server.start)
    joined = await asyncio.wait_for(joining, FOLLOW_SECONDS)
    assert joined.seat == 0
    seats = (await client.view(match_id)).match.seats
    assert [seat.taken for seat in seats] == [True, False, False]


async def test_seats_and_finished_matches_survive_a_restart(
    own_server: ServerProcess, connect_own: Connect
) -> None:
    client = connect_own()
    await announce_agent(client)
    waiting = await client.create_match(players=2, seats=[None, "hard"])
    joined = await client.join(waiting, "early")
    finished, seats = await seated_match(connect_own, 2, seed=204)
    await play_random_match(seats, seed=204)
    replay = await client.replay(finished)
    listing = await client.list_matches(page_size=100)

    await restart(own_server)

    assert await client.list_matches(page_size=100) == listing
    assert await client.replay(finished) == replay
    assert (await joined.view()).your_seat == joined.seat
    bot, level = await client.claim_bot_seat("agent", ["hard"], agent_key=AGENT_KEY)
    assert (bot.match_id, bot.seat, level) == (waiting, 1, "hard")
    assert (await bot.view()).match.status == api.MATCH_STATUS_PLAYING


@pytest.mark.slow  # waits out the reconnect window twice
async def test_an_idle_follower_reconnects_after_a_restart(
    own_server: ServerProcess, connect_own: Connect
) -> None:
    """The reconnect window counts from the failure, not from when the quiet stream was opened."""
    match_id, seats = await seated_match(connect_own, 2, seed=205)
    # The window must outlast a restart (a few seconds on a loaded machine); the quiet spells outlast it.
    watcher = connect_own(reconnect_seconds=RESTART_WINDOW_SECONDS)
    updates: list[api.MatchUpdate] = []
    follower = asyncio.create_task(collect(watcher.follow(match_id), updates, until=1))
    for _ in range(2):  # the second time, the stream it quietly reconnected is the one that breaks
        await asyncio.sleep(RESTART_WINDOW_SECONDS + 0.5)  # longer than the window, with nothing to send
        await restart(own_server)
    seat, state = await mover(seats)
    await seat.submit(state.legal_actions[0], state.version, uuid.uuid4().hex)
    await asyncio.wait_for(follower, FOLLOW_SECONDS)
    assert action_versions(updates) == [1]
