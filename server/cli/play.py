"""``mercado play``: play a match in the terminal."""

from __future__ import annotations

import asyncio
import os
from typing import TYPE_CHECKING

import click

from .ai import BOT_LEVELS
from .connect import endpoint_options

if TYPE_CHECKING:
    from mercado_client import Endpoint


def default_name() -> str:
    return os.environ.get("USER") or "player"


def parse_bots(value: str | None) -> list[str]:
    levels = [level.strip().lower() for level in (value or "").split(",") if level.strip()]
    for level in levels:
        if level not in BOT_LEVELS:
            raise click.BadParameter(f"{level!r} is not one of {', '.join(BOT_LEVELS)}", param_hint="--bots")
    return levels


@click.command()
@endpoint_options
@click.option("--match", "match_id", help="Join this match instead of creating one.")
@click.option(
    "--seat", type=click.IntRange(0, 3), help="With --match: the seat to take (default: first open)."
)
@click.option("--name", default=default_name, help="Your display name (default: $USER).")
@click.option(
    "--players", type=click.IntRange(2, 4), help="New match: number of players [default: 2, or 1 + the bots]."
)
@click.option("--bots", help="New match: bot levels for the seats after yours, e.g. 'medium,hard'.")
@click.option(
    "--money", type=click.Choice(["public", "hidden"]), default="hidden", show_default=True, help="New match."
)
@click.option(
    "--seed",
    type=click.IntRange(min=0),
    help="New match: the set-up seed (default random; servers refuse it unless they allow chosen seeds).",
)
def play(
    server: Endpoint,
    match_id: str | None,
    seat: int | None,
    name: str,
    players: int | None,
    bots: str | None,
    money: str,
    seed: int | None,
) -> None:
    """Play Mercado de Lisboa in the terminal: create a match (or join one with --match) and play it."""
    from mercado_client.play import PlayOptions
    from mercado_client.play import play as run
    from rich.console import Console

    levels = parse_bots(bots)
    if match_id is None and seat is not None:
        raise click.BadParameter("--seat needs --match (a new match seats you at 0)", param_hint="--seat")
    if players is not None and len(levels) + 1 > players:
        raise click.BadParameter(
            f"{len(levels)} bots do not fit beside you in {players} seats", param_hint="--bots"
        )
    if len(levels) > 3:
        raise click.BadParameter("at most 3 bots", param_hint="--bots")
    options = PlayOptions(server, match_id, seat, name, players, levels, money, seed)
    try:
        status = asyncio.run(run(options, Console()))
    except KeyboardInterrupt:
        status = 130
    raise SystemExit(status)
