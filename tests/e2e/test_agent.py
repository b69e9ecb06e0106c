"""The AI agent end to end: a real server, ``mercado ai`` as its own process, and a human client.

The agent claims the seats reserved for bots and plays them until the match
ends; the match's replay through the engine reproduces the result; SIGTERM
stops the agent cleanly.
"""

from __future__ import annotations

import asyncio
import random
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from matchplay import Connect, Received, announce_agent, random_player, replay_history
from mercado.v1 import match_pb2 as api
from mercado_client import MercadoClient, Seat
from mercado_client.wire import BOT_LEVEL_NAMES
from mercado_terminal.held import SeatFile
from positions import ROOT
from server_process import AgentProcess, ServerProcess, Start

from server.games.mercado import Options, new_game

MATCH_SECONDS = 120.0
# No update for this long while the match is unfinished: it waits for a move that never comes.
STALL_SECONDS = 20.0
CLAIM_SECONDS = 30.0


@pytest.fixture
def start_agent(own_server: ServerProcess, tmp_path: Path) -> Iterator[Callable[[], AgentProcess]]:
    """Starts agents against the test's own server; any still running at the end are killed."""
    started: list[AgentProcess] = []

    def start() -> AgentProcess:
        agent = AgentProcess(
            own_server.target, tmp_path / f"agent{len(started)}.log", tmp_path / "seats.json"
        )
        started.append(agent)
        return agent

    yield start
    for agent in started:
        agent.kill()


async def wait_for_claims(
    client: MercadoClient, match_id: str, seats: list[int], agent: AgentProcess
) -> None:
    """Until the agent has taken every one of ``seats``."""
    deadline = time.monotonic() + CLAIM_SECONDS
    while time.monotonic() < deadline:
        assert agent.process.poll() is None, f"the agent exited:\n{agent.tail()}"
        state = await client.view(match_id)
        if all(state.match.seats[s].taken for s in seats):
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"the agent did not claim seats {seats}:\n{agent.tail()}")


def seed_where(players: int, first: int) -> int:
    """A seed whose game starts with ``first`` to move."""
    return next(s for s in range(1000) if new_game(Options(players=players), s).current_player == first)


async def finish_and_check(
    client: MercadoClient, match_id: str, human: Received, players: int, bots: list[int], agent: AgentProcess
) -> None:
    """The match finished; the replay through the engine reproduces it; the bots played their turns."""
    final = human.views[-1]
    assert final.match.status == api.MATCH_STATUS_FINISHED
    replay = await client.replay(match_id)
    assert replay.players == players
    history = replay_history(replay)  # applies every logged action with the checked engine
    state, events = history[-1]
    assert state.is_terminal and state.result is not None
    assert events[-1]["type"] == "game_ended"
    result = final.view.mercado.result
    assert list(result.scores) == list(state.result.scores)
    assert list(result.ranks) == list(state.result.ranks)
    assert list(result.stands_on_market) == list(state.result.stands_on_market)
    played = {step.seat for step in replay.steps}
    assert set(bots) <= played, f"a bot seat never moved:\n{agent.tail()}"
    # The human's stream saw exactly the logged actions.
    seen = [u.action for u in human.updates if u.HasField("seat")]
    assert seen == [s.action for s in replay.steps][len(replay.steps) - len(seen) :]
    summary = (await client.view(match_id)).match
    for seat in bots:
        info = summary.seats[seat]
        assert info.taken and info.bot
        # Named as its level's player is on the leaderboard, whatever the agent calls itself.
        ladder_name = (await client.get_player(info.player_id)).display_name
        assert info.display_name == ladder_name == f"{BOT_LEVEL_NAMES[info.bot_level].capitalize()} AI"


async def play_human(seat: Seat, seed: int, agent: AgentProcess) -> Received:
    """Random legal moves for the human seat until the match ends; fails fast when the match stalls."""
    received = Received(seat.seat)
    task = asyncio.create_task(random_player(seat, random.Random(seed), received))
    began = last_change = time.monotonic()
    progress = -1
    try:
        while not task.done():
            await asyncio.wait({task}, timeout=0.5)
            now = time.monotonic()
            seen = len(received.updates) + len(received.responses)
            if seen != progress:
                progress, last_change = seen, now
            stalled = now - last_change > STALL_SECONDS
            if stalled or now - began > MATCH_SECONDS:
                view = await seat.view()
                raise AssertionError(
                    f"the match {'stalled' if stalled else 'did not finish'} at version {view.version} "
                    f"with seat {view.to_move} to move (status {view.match.status}):\n{agent.tail()}"
                )
        task.result()
    finally:
        task.cancel()
    return received


@pytest.mark.parametrize("first", [0, 1], ids=["human-first", "bot-first"])
async def test_agent_plays_a_two_player_match_joined_before_its_claim(
    connect_own: Connect, start_agent: Callable[[], AgentProcess], first: int
) -> None:
    client = connect_own()
    seed = seed_where(2, first)
    await announce_agent(client)  # as the agent will, once started
    match_id = await client.create_match(players=2, seats=[None, "easy"], seed=seed)
    human = await client.join(match_id, "human")
    assert human.seat == 0
    agent = start_agent()
    await wait_for_claims(client, match_id, [1], agent)
    received = await play_human(human, seed, agent)
    await finish_and_check(client, match_id, received, 2, [1], agent)
    messages = await wait_until_logged(agent, "match over")
    assert agent.stop() == 0, agent.tail()
    assert "seat claimed" in messages


@pytest.mark.parametrize("first", [0, 1], ids=["human-first", "bot-first"])
async def test_agent_plays_a_seat_it_claimed_before_the_human_joined(
    connect_own: Connect, start_agent: Callable[[], AgentProcess], first: int
) -> None:
    """The usual order: a player creates a match with a bot, the running agent claims it, the player joins."""
    client = connect_own()
    agent = start_agent()
    seed = seed_where(2, first)
    await announce_agent(client)  # as the agent will, once started
    match_id = await client.create_match(players=2, seats=[None, "easy"], seed=seed)
    await wait_for_claims(client, match_id, [1], agent)
    # The human takes a moment to join: long enough for the agent to have looked at its seat.
    await asyncio.sleep(1.5)
    human = await client.join(match_id, "human", seat=0)
    received = await play_human(human, seed, agent)
    await finish_and_check(client, match_id, received, 2, [1], agent)
    assert agent.stop() == 0, agent.tail()


async def test_one_agent_plays_two_bot_seats_of_a_three_player_match(
    connect_own: Connect, start_agent: Callable[[], AgentProcess]
) -> None:
    client = connect_own()
    # The human moves first: the agent claims one seat at a time, and a bot to move before the second
    # claim would meet the waiting-match refusal that test_agent_plays_a_seat_it_claimed_before... covers.
    seed = seed_where(3, 0)
    await announce_agent(client)  # as the agent will, once started
    match_id = await client.create_match(players=3, seats=[None, "easy", "easy"], seed=seed)
    human = await client.join(match_id, "human")
    agent = start_agent()
    await wait_for_claims(client, match_id, [1, 2], agent)
    received = await play_human(human, seed, agent)
    await finish_and_check(client, match_id, received, 3, [1, 2], agent)
    claims = [r for r in agent.records() if r.get("message") == "seat claimed"]
    assert sorted(r["seat"] for r in claims) == [1, 2]  # type: ignore[type-var]
    assert agent.stop() == 0, agent.tail()


async def test_agent_exits_on_sigterm_while_idle(start_agent: Callable[[], AgentProcess]) -> None:
    agent = start_agent()
    await wait_until_logged(agent, "agent started")
    began = time.monotonic()
    assert agent.stop() == 0, agent.tail()
    assert time.monotonic() - began < 10


async def test_agent_resumes_its_match_after_the_server_is_killed(
    own_server: ServerProcess, connect_own: Connect, start_agent: Callable[[], AgentProcess]
) -> None:
    """SIGKILL the server mid-match and restart it: the agent reconnects, resumes, and finishes the match."""
    client = connect_own()
    seed = seed_where(2, 0)
    await announce_agent(client)  # as the agent will, once started
    match_id = await client.create_match(players=2, seats=[None, "easy"], seed=seed)
    human = await client.join(match_id, "human")
    agent = start_agent()
    await wait_for_claims(client, match_id, [1], agent)
    playing = asyncio.create_task(play_human(human, seed, agent))
    deadline = time.monotonic() + MATCH_SECONDS
    while (await client.view(match_id)).version < 8:
        assert not playing.done() and time.monotonic() < deadline, agent.tail()
        await asyncio.sleep(0.05)
    await asyncio.to_thread(own_server.restart)
    received = await playing
    await finish_and_check(client, match_id, received, 2, [1], agent)
    bot_moves_after_restart = [
        s for s in (await client.replay(match_id)).steps if s.seat == 1 and s.version > 8
    ]
    assert bot_moves_after_restart, agent.tail()
    assert "match abandoned" not in agent.messages()
    assert agent.stop() == 0, agent.tail()


def test_an_agent_with_a_wrong_key_stops_and_says_why(server: ServerProcess) -> None:
    command = [
        sys.executable,
        "-m",
        "server",
        "ai",
        "--server",
        server.target,
        "--agent-key",
        "not-the-key-0123",
    ]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines()[-1] == (
        "Error: claiming a bot seat takes this server's agent key as the bearer token (check --agent-key)"
    )


async def test_an_agent_started_again_resumes_the_seats_it_held(
    connect_own: Connect, start_agent: Callable[[], AgentProcess]
) -> None:
    client = connect_own()
    first = start_agent()
    await wait_until_logged(first, "agent started")
    seed = seed_where(2, 0)
    match_id = await client.create_match(players=2, seats=[None, "easy"], seed=seed)
    human = await client.join(match_id, "human")
    await wait_for_claims(client, match_id, [1], first)
    playing = asyncio.create_task(play_human(human, seed, first))
    deadline = time.monotonic() + MATCH_SECONDS
    while (await client.view(match_id)).version < 6:
        assert not playing.done() and time.monotonic() < deadline, first.tail()
        await asyncio.sleep(0.05)
    first.kill()
    second = start_agent()  # the same seat file: it resumes the seat without claiming anything
    received = await playing
    await finish_and_check(client, match_id, received, 2, [1], second)
    messages = await wait_until_logged(second, "match over")
    assert "seat claimed" not in messages
    assert second.stop() == 0, second.tail()


async def wait_until_logged(agent: AgentProcess, message: str) -> list[object]:
    """Until the agent has logged ``message`` (``agent started``: its first heartbeat; ``match over``:
    it may see a match end after the human's client did); returns every message it logged."""
    deadline = time.monotonic() + CLAIM_SECONDS
    while message not in (messages := agent.messages()):
        assert agent.process.poll() is None and time.monotonic() < deadline, agent.tail()
        await asyncio.sleep(0.05)
    return messages


@pytest.mark.parametrize("game", ["oregano", "leilao"])
async def test_agent_plays_every_game(
    connect_own: Connect, start_agent: Callable[[], AgentProcess], game: str
) -> None:
    """Another game's bot seat, from its view alone: in Leilão both seats bid at once, in any order."""
    client = connect_own()
    await announce_agent(client)  # as the agent will, once started
    match_id = await client.create_match(players=2, seats=[None, "easy"], seed=5, game=game)
    human = await client.join(match_id, "human")
    agent = start_agent()
    await wait_for_claims(client, match_id, [1], agent)
    received = await play_human(human, 5, agent)
    assert received.views[-1].match.status == api.MATCH_STATUS_FINISHED
    replay = await client.replay(match_id)
    assert {step.seat for step in replay.steps} == {0, 1}, agent.tail()
    await wait_until_logged(agent, "match over")
    assert agent.stop() == 0, agent.tail()


async def test_an_agent_let_go_of_a_quiet_clockless_match_forgets_it_and_the_server_plays_on(
    start: Start, tmp_path: Path
) -> None:
    """With no clock, a human who stays quiet keeps no agent busy: the agent is let go after
    ``--agent-wait``, forgets the seat, and the server's AI answers when the human comes back."""
    server = start("--agent-wait", "1")
    agent = AgentProcess(
        server.target, tmp_path / "agent.log", tmp_path / "seats.json", ["--max-matches", "1"]
    )
    try:
        client = MercadoClient(server.target)
        await wait_until_logged(agent, "agent started")
        seed = seed_where(2, 0)
        no_clock = api.TimeControl(turn_seconds=0)
        match_id = await client.create_match(players=2, seats=[None, "easy"], seed=seed, clock=no_clock)
        human = await client.join(match_id, "human")
        await wait_for_claims(client, match_id, [1], agent)
        await wait_until_logged(agent, "seat handed to the server")
        assert SeatFile(tmp_path / "seats.json").held(server.target) == []
        assert (await client.view(match_id)).match.seats[1].played_by_ai
        # Its seat is free for another match at once.
        other = await client.create_match(players=2, seats=[None, "easy"], seed=seed, clock=no_clock)
        await wait_for_claims(client, other, [1], agent)
        state = await human.view()
        while 0 in state.seats_to_move:  # its turn may take several actions
            await human.submit(state.legal_actions[0], state.version, f"back{state.version}")
            state = await human.view()
        deadline = time.monotonic() + MATCH_SECONDS
        while (await human.view()).version == state.version:
            assert time.monotonic() < deadline, "the server's AI did not move"
            await asyncio.sleep(0.1)
        await client.close()
        assert agent.stop() == 0, agent.tail()
    finally:
        agent.kill()
