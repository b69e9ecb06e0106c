"""What nodes (servers on one PostgreSQL database) share besides the matches themselves, end to end:
real processes, real PostgreSQL.

The matchmaking queue is one for all nodes: each counts the players queued on the others, a player
queues once whichever node it asks, and players queued on different nodes are matched together
(each player into one match only), each told by its own node with a seat token of its own; they
play through their own nodes and are rated once, as every node shows. A player token rotated
through one node is refused by the others within seconds. Keeping a match going: when
the node that held a match with a turn clock dies, another takes it over once it has gone unmoved
for --orphan-timeout, and its clocks run there, so the AI plays the turns nobody plays and the
match finishes. The AI agents: an agent connected to one node plays the bot seat of a match
created through another.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import asyncpg
import grpc
import pytest
from matchplay import assert_reason, bearer, refusal
from mercado.v1 import match_pb2 as api
from mercado.v1 import match_pb2_grpc as api_grpc
from mercado.v1 import players_pb2 as players_api
from mercado_client import MercadoClient
from nodes import (
    CALL_SECONDS,
    MATCH_SECONDS,
    Caller,
    ClientOf,
    Nodes,
    assert_played,
    eventually,
    logged,
    timely,
)
from server_process import AgentProcess, ServerProcess

from server.match.inputs import stand_in_request_id

pytestmark = pytest.mark.postgres

FindCall = Any  # a FindMatch call: a grpc.aio.UnaryStreamCall (grpc has no type hints)
TURN_SECONDS = 1  # the turn clock of a match left to the AI
ORPHAN_SECONDS = 1.0  # --orphan-timeout of the node that takes orphaned matches over
PLAYED_BEFORE = 30  # the moves of the orphaned match before its node dies
CLOCK_SLACK_MS = 50  # a timer may fire a little early; the database and the nodes share a clock


async def matched(client: MercadoClient, token: str) -> api.MatchFound:
    """Queue the player of ``token`` for a two-player match (no AI) until it is found."""
    async with contextlib.aclosing(client.find_match(players=2, token=token)) as updates:
        async for update in updates:
            if update.HasField("found"):
                return update.found
    raise AssertionError("the queue ended without a match")


async def test_players_queued_on_two_nodes_are_matched_together_and_play_through_their_own_nodes(
    nodes: Nodes, client_of: ClientOf
) -> None:
    one, two = nodes(2)
    clients = [client_of(one), client_of(two)]
    players = [
        await timely(client.create_player(name)) for client, name in zip(clients, ("Ana", "Bea"), strict=True)
    ]
    ids = [made.player.player_id for made in players]

    found = await timely(
        asyncio.gather(
            *(matched(client, made.player_token) for client, made in zip(clients, players, strict=True))
        )
    )

    match_id = found[0].match_id
    assert found[1].match_id == match_id
    assert {f.seat for f in found} == {0, 1}
    for mine, player_id in zip(found, ids, strict=True):
        # Told once every seat was taken, whichever node made the match.
        assert mine.match.status == api.MATCH_STATUS_PLAYING
        assert {s.player_id for s in mine.match.seats} == set(ids)
        assert mine.match.seats[mine.seat].player_id == player_id
    assert found[0].seat_token != found[1].seat_token
    # Each seat token, and each player's credential, acts for its seat on either node.
    for mine, made in zip(found, players, strict=True):
        for client in clients:
            for token in (mine.seat_token, made.player_token):
                assert (await timely(client.view(match_id, token))).your_seat == mine.seat

    # Each plays through its own node, with the seat token its node gave it.
    callers = [
        Caller(client, match_id, mine.seat, mine.seat_token, seed=n)
        for n, (client, mine) in enumerate(zip(clients, found, strict=True))
    ]
    await timely(asyncio.gather(*(caller.run() for caller in callers)), MATCH_SECONDS)
    replay = await timely(clients[0].replay(match_id))
    assert replay == await timely(clients[1].replay(match_id))
    assert_played(callers, replay)
    assert all(caller.acks for caller in callers)

    # The rated result, and each player's games, are the same on both nodes.
    async def rated_everywhere() -> bool:
        shown = [await client.get_player(player_id) for client in clients for player_id in ids]
        return all(player.rated_matches == 1 for player in shown)

    await eventually(rated_everywhere, "both players to be rated, on both nodes")
    for client in clients:
        for player_id in ids:
            games = (await timely(client.list_matches(player_id=player_id))).matches
            assert [(g.match_id, g.status) for g in games] == [(match_id, api.MATCH_STATUS_FINISHED)]


async def test_the_matchmaking_queue_is_one_for_every_node(nodes: Nodes, client_of: ClientOf) -> None:
    one, two = nodes(2)
    stubs = [client_of(one).stub, client_of(two).stub]
    ana, bea = [
        await timely(client_of(node).create_player(name)) for node, name in ((one, "Ana"), (two, "Bea"))
    ]
    four = api.FindMatchRequest(players=4)  # never made with two players: they stay queued

    def queue(stub: api_grpc.MatchServiceStub, made: players_api.CreatePlayerResponse) -> FindCall:
        return stub.FindMatch(four, metadata=bearer(made.player_token))

    async def shows(call: FindCall, queued: int) -> None:
        """Until the stream says ``queued`` players wait (it says so about once a second)."""
        deadline = time.monotonic() + 15.0
        while (update := await timely(call.read())).queued.queued_players != queued:
            assert update.HasField("queued"), update
            assert time.monotonic() < deadline, f"the queue never showed {queued} players"

    ana_on_one = queue(stubs[0], ana)
    bea_on_two = queue(stubs[1], bea)
    try:
        # Each node counts the player queued on the other.
        await shows(ana_on_one, 2)
        await shows(bea_on_two, 2)
        # A player queued on one node cannot queue again on another.
        error = await refusal(timely(queue(stubs[1], ana).read()))
        assert_reason(error, grpc.StatusCode.ALREADY_EXISTS)
        # Closing the stream on node one leaves the queue on node two too.
        ana_on_one.cancel()
        await shows(bea_on_two, 1)
    finally:
        ana_on_one.cancel()
        bea_on_two.cancel()


async def test_a_token_rotated_through_one_node_is_refused_by_the_others(
    nodes: Nodes, client_of: ClientOf
) -> None:
    one, two = nodes(2, "--rate-limit", "GetPlayer=off")  # asked again and again below
    stubs = [client_of(one).stub, client_of(two).stub]
    first = (await timely(client_of(one).create_player("Ana"))).player_token
    me = players_api.GetPlayerRequest()

    async def accepted(stub: api_grpc.MatchServiceStub, token: str) -> bool:
        try:
            await stub.GetPlayer(me, metadata=bearer(token))
        except grpc.aio.AioRpcError as error:
            assert_reason(error, grpc.StatusCode.UNAUTHENTICATED)
            assert "it has been replaced by a newer one" in (error.details() or "")
            return False
        return True

    async def refused_by_two() -> bool:
        return not await accepted(stubs[1], first)

    assert await accepted(stubs[1], first)  # node two knows the token's generation now
    rotate = players_api.RotatePlayerTokenRequest()
    second = (await timely(stubs[0].RotatePlayerToken(rotate, metadata=bearer(first)))).player_token
    assert not await accepted(stubs[0], first)
    await eventually(refused_by_two, "node two to refuse the replaced token")
    assert await accepted(stubs[1], second)
    # A token newer than the generation a node knows makes it read the generation again at once.
    third = (await timely(stubs[1].RotatePlayerToken(rotate, metadata=bearer(second)))).player_token
    assert await accepted(stubs[0], third)
    assert not await accepted(stubs[0], second)


async def test_players_queued_at_once_on_two_nodes_each_get_one_seat_in_one_match(
    nodes: Nodes, client_of: ClientOf
) -> None:
    one, two = nodes(2)
    clients = [client_of((one, two)[n % 2]) for n in range(6)]  # three players on each node
    players = [await timely(client.create_player(f"P{n}")) for n, client in enumerate(clients)]

    found = await timely(
        asyncio.gather(
            *(matched(client, made.player_token) for client, made in zip(clients, players, strict=True))
        )
    )

    by_match: dict[str, list[int]] = {}
    for n, mine in enumerate(found):
        by_match.setdefault(mine.match_id, []).append(n)
    assert sorted(len(group) for group in by_match.values()) == [2, 2, 2], by_match
    for match_id, group in by_match.items():
        assert sorted(found[n].seat for n in group) == [0, 1]
        seated = {seat.player_id for seat in found[group[0]].match.seats}
        assert seated == {players[n].player.player_id for n in group}
        for n in group:
            # The seat token its own node gave it acts for its seat on either node.
            for client in (clients[0], clients[1]):
                view = await timely(client.view(match_id, found[n].seat_token))
                assert view.your_seat == found[n].seat


async def stored_status(dsn: str, match_id: str) -> str:
    """The match's status, as the database holds it."""
    db = await asyncpg.connect(dsn, timeout=CALL_SECONDS)
    try:
        status: str = await db.fetchval("SELECT status FROM matches WHERE match_id = $1", match_id)
    finally:
        await db.close()
    return status


async def stored_moves(dsn: str, match_id: str) -> list[tuple[int, str, int]]:
    """The (version, request id, when it was stored in ms) of each of the match's actions."""
    db = await asyncpg.connect(dsn, timeout=CALL_SECONDS)
    try:
        rows = await db.fetch(
            "SELECT version, request_id, stored_ms FROM actions WHERE match_id = $1 ORDER BY version",
            match_id,
        )
    finally:
        await db.close()
    return [(row["version"], row["request_id"], row["stored_ms"]) for row in rows]


async def test_a_match_whose_node_died_is_taken_over_by_another_and_finished_by_the_ai(
    nodes: Nodes, client_of: ClientOf, postgres_dsn: str
) -> None:
    # Each node looks for orphaned matches whenever it sweeps, which it does every quarter of its
    # shortest expiry: here every quarter of a second (no match has a bot seat).
    a, b = nodes(2, "--orphan-timeout", str(ORPHAN_SECONDS), "--bot-seat-timeout", "1")
    clock = api.TimeControl(turn_seconds=TURN_SECONDS, reserve_seconds=0, on_timeout=api.ON_TIMEOUT_AI)
    match_id = await timely(client_of(a).create_match(players=2, seed=311, clock=clock))
    seats = [await timely(client_of(a).join(match_id, name)) for name in ("ana", "bo")]
    # Most of the match through node A, each move well within its turn (the AI plays the rest).
    for version in range(PLAYED_BEFORE):
        state = await timely(seats[(await timely(seats[0].view())).to_move].view())
        assert state.version == version and state.match.status == api.MATCH_STATUS_PLAYING
        assert state.match.HasField("deadline_unix_ms")
        await timely(seats[state.to_move].submit(state.legal_actions[0], version, uuid.uuid4().hex))

    await asyncio.to_thread(a.kill)

    # Nobody comes back: no client asks node B for the match (which would have B read it, and run
    # its clock, anyway). The database alone shows how it goes on.
    async def finished() -> bool:
        return await stored_status(postgres_dsn, match_id) == "finished"

    await eventually(finished, "the orphaned match to finish", MATCH_SECONDS)

    # Every move since node A died is the AI's, standing in for the seats whose time ran out...
    moves = await stored_moves(postgres_dsn, match_id)
    played, stand_in = moves[:PLAYED_BEFORE], moves[PLAYED_BEFORE:]
    assert stand_in, "the match ended before node A died"
    assert [request_id for _, request_id, _ in stand_in] == [stand_in_request_id(v) for v, _, _ in stand_in]
    # ...the first once the match had gone unmoved for the orphan timeout, then its turn for its time.
    waited_ms = stand_in[0][2] - played[-1][2]
    assert waited_ms >= (ORPHAN_SECONDS + TURN_SECONDS) * 1000 - CLOCK_SLACK_MS, waited_ms
    replay = await timely(client_of(b).replay(match_id))
    assert [step.version for step in replay.steps] == [version for version, _, _ in moves]
    final = await timely(client_of(b).view(match_id))
    assert final.match.status == api.MATCH_STATUS_FINISHED
    assert [seat.played_by_ai for seat in final.match.seats] == [True, True]
    # Node B's clocks ran out both seats' turns: the match was in its hands.
    timed_out = [r for r in logged(b, "seat timed out") if r.get("match_id") == match_id]
    assert sorted(r["seat"] for r in timed_out) == [0, 1]


@pytest.fixture
def agent_on(tmp_path: Path) -> Iterator[Callable[[ServerProcess], AgentProcess]]:
    """``agent_on(node)``: an AI agent connected to ``node``, killed after the test if still running."""
    started: list[AgentProcess] = []

    def start(node: ServerProcess) -> AgentProcess:
        directory = tmp_path / f"agent{len(started)}"
        directory.mkdir()
        args = ["--max-matches", "4", "--workers", "1"]
        started.append(AgentProcess(node.target, directory / "agent.log", directory / "seats.json", args))
        return started[-1]

    yield start
    for agent in started:
        agent.kill()


async def test_an_agent_on_one_node_plays_the_bot_seat_of_a_match_made_through_another(
    nodes: Nodes, client_of: ClientOf, agent_on: Callable[[ServerProcess], AgentProcess]
) -> None:
    # A node hears of the agents of the others when it sweeps: every quarter of its bot seat
    # timeout, here every second.
    a, b = nodes(2, "--bot-seat-timeout", "4")
    agent = agent_on(a)
    through_b = client_of(b)

    # Node B accepts a bot seat once it has heard, through the database, of the agent on node A.
    async def created() -> str | None:
        try:
            return await through_b.create_match(players=2, seats=[None, "easy"], seed=312)
        except grpc.aio.AioRpcError as error:
            if error.code() != grpc.StatusCode.FAILED_PRECONDITION or "no AI agent" not in (
                error.details() or ""
            ):
                raise
            return None

    deadline = time.monotonic() + 15.0
    while (match_id := await timely(created())) is None:
        assert agent.process.poll() is None, f"the agent exited:\n{agent.tail()}"
        assert time.monotonic() < deadline, f"node B never heard of the agent:\n{agent.tail()}"
        await asyncio.sleep(0.1)
    human = await timely(through_b.join(match_id, "human"))
    assert human.seat == 0

    async def bot_seated() -> bool:
        return (await through_b.view(match_id)).match.seats[1].taken

    await eventually(bot_seated, "the agent to claim the bot seat")
    caller = Caller.of(human, seed=3)
    await timely(caller.run(), MATCH_SECONDS)

    replay = await timely(client_of(a).replay(match_id))
    assert replay == await timely(through_b.replay(match_id))
    # The human's stream carried every move; its own are the replay's seat 0 moves, the rest the agent's.
    assert caller.versions == [step.version for step in replay.steps]
    assert caller.acks == [(step.version, step.action) for step in replay.steps if step.seat == 0]
    assert any(step.seat == 1 for step in replay.steps)
    assert caller.updates[-1].state.match.status == api.MATCH_STATUS_FINISHED
    summary = caller.updates[-1].state.match
    assert summary.seats[1].bot and summary.seats[1].player_id == "bot:easy"
    assert not summary.seats[1].played_by_ai  # the agent played it, not a stand-in
    assert agent.stop() == 0, agent.tail()
    # The agent claimed and played the seat through node A, the only node it knows.
    told = {(r.get("message"), r.get("match_id"), r.get("seat")) for r in agent.records()}
    assert {("seat claimed", match_id, 1), ("match over", match_id, 1)} <= told, agent.tail()
