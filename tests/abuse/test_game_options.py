"""Every numeric option of every game is bounded by its rules page: beyond it, INVALID_ARGUMENT with the
allowed range, and no match is made."""

from __future__ import annotations

import grpc
import pytest
from matchplay import assert_reason, refusal
from mercado.v1 import leilao_pb2, oregano_pb2
from mercado.v1 import match_pb2 as api
from mercado_client import MercadoClient
from server_process import ServerProcess

LARGEST = 2**32 - 1  # the largest a uint32 field carries


def oregano(players: int = 2, **options: int) -> api.CreateMatchRequest:
    return api.CreateMatchRequest(
        game=api.GAME_OREGANO, players=players, oregano=oregano_pb2.OreganoOptions(**options)
    )


@pytest.mark.parametrize(
    ("request_", "allowed"),
    [
        (oregano(round_limit=LARGEST), "options.round_limit must be an integer from 1 to 30"),
        (oregano(round_limit=31), "options.round_limit must be an integer from 1 to 30"),
        (
            oregano(stock_end_from_round=LARGEST),
            "options.stock_end_from_round must be an integer from 1 to 30",
        ),
        (oregano(strategy_draw=LARGEST), "options.strategy_draw must be 2 or 3"),
        (oregano(players=LARGEST), "options.players must be 2, 3 or 4"),
        (api.CreateMatchRequest(players=LARGEST), "options.players must be 2, 3 or 4"),
        (
            api.CreateMatchRequest(game=api.GAME_LEILAO, players=5, leilao=leilao_pb2.LeilaoOptions()),
            "players",
        ),
    ],
    ids=[
        "oregano-round-limit",
        "oregano-round-31",
        "oregano-stock-end",
        "oregano-draw",
        "oregano-players",
        "mercado-players",
        "leilao-players",
    ],
)
async def test_a_numeric_option_beyond_its_rules_is_refused_with_the_range(
    server: ServerProcess, request_: api.CreateMatchRequest, allowed: str
) -> None:
    async with MercadoClient(server.target) as client:
        listed = len((await client.stub.ListMatches(api.ListMatchesRequest(page_size=100))).matches)
        error = await refusal(client.stub.CreateMatch(request_))
        assert_reason(error, grpc.StatusCode.INVALID_ARGUMENT)
        assert allowed in error.details(), error.details()
        assert len((await client.stub.ListMatches(api.ListMatchesRequest(page_size=100))).matches) == listed


async def test_the_longest_oregano_match_its_rules_allow_is_made(server: ServerProcess) -> None:
    async with MercadoClient(server.target) as client:
        created = await client.stub.CreateMatch(oregano(round_limit=30, stock_end_from_round=30))
        assert created.match.oregano.round_limit == 30
