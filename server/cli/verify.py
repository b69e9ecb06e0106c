"""``mercado verify``: check that a finished match was fair (mercado_terminal.verify)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

import click

from .connect import endpoint_options

if TYPE_CHECKING:
    from mercado.v1 import match_pb2 as api
    from mercado_client import Endpoint

EXIT_UNFAIR, EXIT_FAILED = 1, 2


@click.command()
@endpoint_options
@click.argument("match_id")
@click.option(
    "--commitment",
    metavar="HEX",
    help="The seed commitment shown when the match was played (mercado play prints it at the start).",
)
def verify(server: Endpoint, match_id: str, commitment: str | None) -> None:
    """Check a finished match: its seed is the one committed to before the first move, and its replay
    through the rules is legal throughout and ends with the server's result.

    Exits 0 when it is, 1 when it is not (saying why), 2 when the match cannot be fetched.
    """
    import grpc
    from mercado_terminal.verify import final_scores, verify_replay

    async def fetch() -> tuple[api.Replay, api.MatchState]:
        async with server.connect(reconnect_seconds=10) as client:
            return await client.replay(match_id), await client.view(match_id)

    try:
        replay, final = asyncio.run(fetch())
    except grpc.aio.AioRpcError as error:
        click.echo(
            f"cannot fetch match {match_id}: {error.details()} [{error.code().name.lower()}]", err=True
        )
        raise SystemExit(EXIT_FAILED) from None
    verdict = verify_replay(replay, commitment, final_scores(final))
    if verdict.fair:
        scores = ", ".join(map(str, verdict.scores))
        click.echo(f"match {match_id} is fair: the revealed seed matches its commitment,")
        click.echo(f"and its {verdict.actions} actions replay legally to the final scores {scores}.")
        if commitment is None:
            click.echo(
                "(Give --commitment, as shown when the match began, to check it was not changed since.)"
            )
        return
    click.echo(f"match {match_id} cannot be shown fair:")
    for problem in verdict.problems:
        click.echo(f"- {problem}")
    raise SystemExit(EXIT_UNFAIR)
