"""Ratings nobody can farm, against a real server: a player who goes idle is ranked last, as one who
left is, and the match still counts for the others; a second account that joins and gives up, at
once or after its opening, hands its opponent no rating."""

from __future__ import annotations

import asyncio
import random
import time
import uuid
from typing import Any

import grpc
import pytest
from matchplay import play_random_match
from mercado.v1 import match_pb2 as api
from mercado.v1 import players_pb2 as players_api
from mercado_client import MercadoClient, Seat
from nodes import logged
from openskill.models import PlackettLuce
from server_process import ServerProcess, Start

from server.games.registry import game_named
from server.players.ratings import NEW_PLAYER_MATCHES

pytestmark = pytest.mark.timeout(240)

OPENING = game_named("mercado").opening_actions
# A seat that stops moving is played by the AI once its turn's 3 s and its 5 s of reserve have run out.
IDLE_CLOCK = api.TimeControl(turn_seconds=3, reserve_seconds=5)
SETTLE_SECONDS = 30.0  # for a finished match's rating to be decided (in the background)
MATCH_SECONDS = 90.0
STALE = (grpc.StatusCode.ABORTED, grpc.StatusCode.FAILED_PRECONDITION)  # the stream brings what is next

Account = players_api.CreatePlayerResponse


async def seated(
    client: MercadoClient, accounts: tuple[Account, Account], clock: api.TimeControl | None
) -> list[Seat]:
    """A Mercado match of the two accounts, created by the first, each in its seat."""
    match_id = await client.create_match(players=2, clock=clock, token=accounts[0].player_token)
    return [await client.join(match_id, token=account.player_token) for account in accounts]


async def move(seat: Seat, state: api.MatchState, rng: random.Random) -> bool:
    """A random legal move for ``seat``; False if the match had moved on meanwhile."""
    try:
        await seat.submit(rng.choice(list(state.legal_actions)), state.version, uuid.uuid4().hex)
    except grpc.aio.AioRpcError as error:
        if error.code() not in STALE:
            raise
        return False
    return True


async def play_out(seat: Seat, rng: random.Random) -> api.MatchState:
    """Random moves on every turn of ``seat`` until the match ends; where it ended."""
    async for update in seat.follow():
        if update.state.match.status == api.MATCH_STATUS_PLAYING and update.state.legal_actions:
            await move(seat, update.state, rng)
    return await seat.view()


async def opening(seat: Seat, rng: random.Random) -> None:
    """Random moves on the first turns of ``seat``, as many as its game's opening: then it stops."""
    made = 0
    async for update in seat.follow():
        if update.state.legal_actions:
            made += await move(seat, update.state, rng)
        if made == OPENING:
            return


async def decision(server: ServerProcess, match_id: str) -> dict[str, Any]:
    """The server's log record of whether a finished match counted, once it is decided."""
    deadline = time.monotonic() + SETTLE_SECONDS
    while True:
        found = [
            r
            for m in ("match rated", "match unrated")
            for r in logged(server, m)
            if r["match_id"] == match_id
        ]
        if found:
            return found[0]
        assert time.monotonic() < deadline, "the match's rating was not decided"
        await asyncio.sleep(0.1)


async def rated(client: MercadoClient, account: Account, matches: int) -> players_api.Player:
    """The account's Mercado rating once ``matches`` of its matches were rated."""
    deadline = time.monotonic() + SETTLE_SECONDS
    while (player := await client.get_player(account.player.player_id)).rated_matches < matches:
        assert time.monotonic() < deadline, f"{player.display_name} has {player.rated_matches} rated matches"
        await asyncio.sleep(0.1)
    return player


async def test_a_player_who_goes_idle_is_ranked_last_and_the_opponents_win_counts(start: Start) -> None:
    server = start()
    async with MercadoClient(server.target, reconnect_seconds=10) as client:
        ana, bea = await client.create_player("Ana"), await client.create_player("Bea")
        for number in range(NEW_PLAYER_MATCHES):  # both play out enough matches to be new no more
            await play_random_match(await seated(client, (ana, bea), None), seed=number)
        before = [await rated(client, account, NEW_PLAYER_MATCHES) for account in (ana, bea)]

        # Bea plays her opening, then stops: her time runs out and the AI plays her turns from then on.
        ana_seat, bea_seat = await seated(client, (ana, bea), IDLE_CLOCK)
        rng = random.Random(4)
        final, _ = await asyncio.wait_for(
            asyncio.gather(play_out(ana_seat, rng), opening(bea_seat, rng)), MATCH_SECONDS
        )
        assert final.match.status == api.MATCH_STATUS_FINISHED
        bea_info = final.match.seats[bea_seat.seat]
        assert bea_info.played_by_ai and not bea_info.left and not bea_info.forfeited
        steps = (await client.replay(ana_seat.match_id)).steps
        assert sum(step.seat == bea_seat.seat for step in steps) > 2 * OPENING  # the AI played most

        # Whatever the AI scored for her, she is ranked last, and Ana's win counts.
        assert (await decision(server, ana_seat.match_id))["message"] == "match rated"
        assert final.match.rated
        after = [await rated(client, account, NEW_PLAYER_MATCHES + 1) for account in (ana, bea)]
        model = PlackettLuce()
        expected = model.rate(
            [[model.rating(mu=p.rating.mu, sigma=p.rating.sigma)] for p in before], ranks=[1, 2]
        )
        for player, earlier, (rating,) in zip(after, before, expected, strict=True):
            assert (player.rating.mu, player.rating.sigma) == (
                pytest.approx(rating.mu),
                pytest.approx(rating.sigma),
            )
            assert player.wins == earlier.wins + (player.player_id == ana.player.player_id)
        assert after[0].rating.display > before[0].rating.display
        assert after[1].rating.mu < before[1].rating.mu


async def test_three_puppets_that_join_and_leave_at_once_give_their_farmer_nothing(start: Start) -> None:
    server = start()
    async with MercadoClient(server.target, reconnect_seconds=10) as client:
        farmer = await client.create_player("Farmer")
        for number in range(3):
            puppet = await client.create_player(f"Puppet {number}")
            mine, theirs = await seated(client, (farmer, puppet), None)
            await theirs.leave()
            final = await asyncio.wait_for(play_out(mine, random.Random(number)), MATCH_SECONDS)
            assert final.match.status == api.MATCH_STATUS_FINISHED and not final.match.rated
            decided = await decision(server, mine.match_id)
            assert decided["message"] == "match unrated"
            assert decided["reason"] == f"seat 1 gave up before making its first {OPENING} moves"
        player = await client.get_player(farmer.player.player_id)
        assert (player.rating, player.rated_matches, player.wins) == (farmer.player.rating, 0, 0)


async def test_new_puppets_that_give_up_after_their_opening_give_their_farmer_nothing(start: Start) -> None:
    server = start()
    async with MercadoClient(server.target, reconnect_seconds=10) as client:
        farmer = await client.create_player("Farmer")
        for number, leaves in enumerate((True, False, True)):  # leaves, or goes idle, after its opening
            puppet = await client.create_player(f"Puppet {number}")
            mine, theirs = await seated(client, (farmer, puppet), IDLE_CLOCK)
            rng = random.Random(number)
            farming = asyncio.create_task(play_out(mine, rng))
            await asyncio.wait_for(opening(theirs, rng), MATCH_SECONDS)
            if leaves:
                await theirs.leave()
            final = await asyncio.wait_for(farming, MATCH_SECONDS)
            assert final.match.status == api.MATCH_STATUS_FINISHED and final.match.rated
            assert (await decision(server, mine.match_id))["message"] == "match rated"
            # The puppet is ranked last and pays for it; the farmer gains nothing from it.
            lost = await rated(client, puppet, 1)
            assert lost.wins == 0 and lost.rating.mu < puppet.player.rating.mu
        player = await client.get_player(farmer.player.player_id)
        assert (player.rating, player.rated_matches, player.wins) == (farmer.player.rating, 0, 0)
