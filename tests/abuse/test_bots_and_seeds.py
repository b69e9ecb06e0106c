"""Nobody but the operator's agent takes a bot seat, and nobody knows a match's set-up in advance:
chosen seeds are refused, and every match is provably fair (a seed commitment, then the reveal)."""

from __future__ import annotations

import subprocess
import sys

import grpc
from matchplay import announce_agent, assert_reason, bearer, play_random_match, refusal, seated_match
from mercado.v1 import match_pb2 as api
from mercado_client import MercadoClient, seed_commitment
from mercado_terminal.verify import verify_replay
from positions import ROOT
from server_process import AGENT_KEY, Start

Code = grpc.StatusCode


async def test_a_bot_seat_needs_the_agent_key(start: Start) -> None:
    server = start()
    async with MercadoClient(server.target) as client:
        await announce_agent(client)
        match_id = await client.create_match(players=2, seats=[None, "easy"])
        human = await client.join(match_id, "ada")
        claim = api.ClaimBotSeatRequest(agent_name="impostor")
        for metadata in (None, bearer("wrong-key-0123456789"), bearer(human.token), bearer(AGENT_KEY[:-1])):
            error = await refusal(client.stub.ClaimBotSeat(claim, metadata=metadata))
            assert_reason(error, Code.PERMISSION_DENIED)
        assert not (await human.view()).match.seats[1].taken
        bot, level = await client.claim_bot_seat("mercado-ai", agent_key=AGENT_KEY)
        assert (bot.match_id, bot.seat, level) == (match_id, 1, "easy")


async def test_a_server_without_an_agent_key_has_no_bot_seats(start: Start) -> None:
    server = start(agent_key=None)
    async with MercadoClient(server.target) as client:
        error = await refusal(client.create_match(players=2, seats=[None, "easy"]))
        assert_reason(error, Code.FAILED_PRECONDITION)
        error = await refusal(client.stub.ClaimBotSeat(api.ClaimBotSeatRequest(), metadata=bearer(AGENT_KEY)))
        assert_reason(error, Code.PERMISSION_DENIED)


def test_a_short_agent_key_is_refused_at_start(start: Start) -> None:
    command = [
        sys.executable,
        "-m",
        "server",
        "serve",
        "--port",
        "0",
        "--web-port",
        "-1",
        "--agent-key",
        "short",
    ]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "at least 16 characters" in done.stderr


async def test_a_chosen_seed_is_refused(start: Start) -> None:
    server = start(chosen_seeds=False)
    async with MercadoClient(server.target) as client:
        error = await refusal(client.create_match(players=2, seed=8))
        assert_reason(error, Code.PERMISSION_DENIED)
        assert (await client.list_matches()).matches == []
        drawn = await client.view(await client.create_match(players=2))
        assert not drawn.match.seed_chosen and len(drawn.match.seed_commitment) == 64


async def test_every_seat_sees_that_a_seed_was_chosen(start: Start) -> None:
    server = start()  # tests and research: chosen seeds allowed
    clients: list[MercadoClient] = []

    def connect() -> MercadoClient:
        clients.append(MercadoClient(server.target))
        return clients[-1]

    match_id, seats = await seated_match(connect, 3, seed=41)
    for seat in seats:
        assert (await seat.view()).match.seed_chosen
    listed = await clients[0].list_matches()
    assert [m.seed_chosen for m in listed.matches if m.match_id == match_id] == [True]
    for client in clients:
        await client.close()


async def test_a_match_is_provably_fair(start: Start) -> None:
    server = start(chosen_seeds=False)
    clients: list[MercadoClient] = []

    def connect() -> MercadoClient:
        clients.append(MercadoClient(server.target))
        return clients[-1]

    match_id, seats = await seated_match(connect, 2)
    published = (await seats[0].view()).match.seed_commitment
    assert (await seats[1].view()).match.seed_commitment == published
    await play_random_match(seats, seed=3)
    replay = await clients[0].replay(match_id)
    final = await clients[0].view(match_id)
    assert final.match.seed_commitment == published  # unchanged from creation to the end
    assert seed_commitment(replay.seed, replay.seed_salt) == published
    verdict = verify_replay(replay, published, final.view.mercado.result)
    assert verdict.fair, verdict.problems
    assert verdict.actions == len(replay.steps) == final.version
    assert verdict.scores == list(final.view.mercado.result.scores)

    # A server that changed the seed after the fact, or reported another result, is caught.
    tampered = api.Replay()
    tampered.CopyFrom(replay)
    tampered.seed += 1
    assert "do not match the seed commitment" in " ".join(verify_replay(tampered, published).problems)
    assert not verify_replay(replay, "0" * 64).fair
    other = api.MatchState()
    other.CopyFrom(final)
    other.view.mercado.result.scores[0] += 1
    assert not verify_replay(replay, published, other.view.mercado.result).fair
    shortened = api.Replay()
    shortened.CopyFrom(replay)
    del shortened.steps[-1]
    assert not verify_replay(shortened, published).fair

    # And the command line says so.
    verify = [sys.executable, "-m", "server", "verify", "--server", server.target, match_id]
    done = subprocess.run([*verify, "--commitment", published], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0 and "is fair" in done.stdout, done.stdout + done.stderr
    done = subprocess.run([*verify, "--commitment", "ab" * 32], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 1 and "not the one published" in done.stdout
    for client in clients:
        await client.close()
