"""Ratings and matchmaking per game against a real server: a rated match of Oregano or Leilão moves its
players' ratings in that game alone, and that game's leaderboard lists them; players queued for a
game are matched in a match of it, never with players queued for another."""

from __future__ import annotations

import asyncio
import base64
import time
from collections.abc import AsyncIterator
from contextlib import aclosing

import grpc
import pytest
from matchplay import assert_reason, play_random_match, refusal
from mercado.v1 import match_pb2 as api
from mercado.v1 import players_pb2 as players_api
from mercado_client import MercadoClient
from openskill.models import PlackettLuce
from server_process import Start

pytestmark = pytest.mark.timeout(60)


async def rated_in(client: MercadoClient, player_id: str, game: str) -> players_api.Player:
    """The player's rating in ``game`` once a match of it was rated (ratings are written after the end)."""
    deadline = time.monotonic() + 10
    while (player := await client.get_player(player_id, game=game)).rated_matches == 0:
        assert time.monotonic() < deadline, "the match was not rated"
        await asyncio.sleep(0.1)
    return player


@pytest.mark.parametrize("game", ["oregano", "leilao"])
async def test_a_rated_match_moves_its_players_ratings_in_its_game_alone(start: Start, game: str) -> None:
    async with MercadoClient(start().target, reconnect_seconds=10) as client:
        ana, bea = await client.create_player("Ana"), await client.create_player("Bea")
        ids = [ana.player.player_id, bea.player.player_id]
        match_id = await client.create_match(players=2, game=game, token=ana.player_token)
        seats = [await client.join(match_id, token=p.player_token) for p in (ana, bea)]
        assert (await seats[0].view()).match.rated
        await play_random_match(seats, seed=11)
        ranks = list((await client.view(match_id)).match.ranks)

        model = PlackettLuce()
        expected = model.rate([[model.rating()] for _ in ids], ranks=[float(r) for r in ranks])
        rated = [await rated_in(client, ids[0], game), await client.get_player(ids[1], game=game)]
        for player, (rating,), rank in zip(rated, expected, ranks, strict=True):
            assert player.game == game
            assert (player.rated_matches, player.wins) == (1, int(rank == 1))
            assert player.rating.mu == pytest.approx(rating.mu)
            assert player.rating.sigma == pytest.approx(rating.sigma)
        assert await client.get_player(token=ana.player_token, game=game) == rated[0]
        # Mercado's ratings (the default game's) and the other game's are those of new players still.
        other = "leilao" if game == "oregano" else "oregano"
        for made in (ana, bea):
            for untouched in ("", "mercado", other):
                player = await client.get_player(made.player.player_id, game=untouched)
                assert player.game == (untouched or "mercado")
                assert (player.rating, player.rated_matches) == (made.player.rating, 0)

        # The game's leaderboard lists them, best first; page tokens page through that game's.
        board = await client.leaderboard(game=game)
        assert [e.rank for e in board.entries] == [1, 2] and not board.next_page_token
        assert {e.player.player_id for e in board.entries} == set(ids)
        assert all(e.player.game == game for e in board.entries)
        shown = [e.player.rating.display for e in board.entries]
        assert shown == sorted(shown, reverse=True)
        first = await client.leaderboard(page_size=1, game=game)
        second = await client.leaderboard(page_size=1, page_token=first.next_page_token, game=game)
        assert [(e.rank, e.player) for e in (*first.entries, *second.entries)] == [
            (e.rank, e.player) for e in board.entries
        ]
        assert not second.next_page_token
        # Nobody has played Mercado or the other game (the bots neither): their ladders are empty.
        assert not (await client.leaderboard()).entries
        assert not (await client.leaderboard(game=other)).entries
        # A page token of one game's leaderboard is no page of another's; one issued before ratings
        # were per game (no game in it) pages through Mercado's. An unknown game is refused.
        error = await refusal(client.leaderboard(page_size=1, page_token=first.next_page_token))
        assert_reason(error, grpc.StatusCode.INVALID_ARGUMENT)
        fields = base64.urlsafe_b64decode(first.next_page_token).decode().split(":")
        assert fields[-1] == game
        older = base64.urlsafe_b64encode(":".join(fields[:-1]).encode()).decode()
        assert not (await client.leaderboard(page_size=1, page_token=older)).entries
        error = await refusal(client.leaderboard(page_size=1, page_token=older, game=game))
        assert_reason(error, grpc.StatusCode.INVALID_ARGUMENT)
        for call in (client.get_player(ids[0], game="chess"), client.leaderboard(game="chess")):
            error = await refusal(call)
            assert_reason(error, grpc.StatusCode.INVALID_ARGUMENT)
            assert "unknown game" in (error.details() or "")


async def collect(updates: AsyncIterator[api.FindMatchUpdate]) -> list[api.FindMatchUpdate]:
    return [update async for update in updates]


async def test_players_queued_for_a_game_are_matched_in_it_and_never_with_anothers(start: Start) -> None:
    async with MercadoClient(start().target, reconnect_seconds=10) as client:
        ana, bea, ceu = [await client.create_player(name) for name in ("Ana", "Bea", "Ceu")]
        # Ceu queues first, for Mercado: the longest waiting, of the same rating and match size.
        async with aclosing(client.find_match(2, token=ceu.player_token)) as in_mercado:
            assert (await anext(in_mercado)).queued.queued_players == 1
            ana_queue = client.find_match(2, token=ana.player_token, game="leilao")
            first = await anext(ana_queue)
            assert first.queued.queued_players == 1  # Leilão's queue: Ceu waits in Mercado's
            ana_rest = asyncio.create_task(collect(ana_queue))
            bea_updates = await asyncio.wait_for(
                collect(client.find_match(2, token=bea.player_token, game="leilao")), 20
            )
            ana_updates = [first, *await asyncio.wait_for(ana_rest, 20)]
            found = [updates[-1].found for updates in (ana_updates, bea_updates)]
            assert found[0].match_id == found[1].match_id and {f.seat for f in found} == {0, 1}
            summary = (await client.view(found[0].match_id)).match
            assert summary.game == api.GAME_LEILAO and summary.WhichOneof("options") == "leilao"
            assert summary.status == api.MATCH_STATUS_PLAYING and summary.rated
            assert {s.player_id for s in summary.seats} == {ana.player.player_id, bea.player.player_id}
            # Ceu still waits, alone.
            for _ in range(2):
                update = await anext(in_mercado)
                assert update.HasField("queued") and update.queued.queued_players == 1
