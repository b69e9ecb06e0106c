"""``mercado play``: play a match in the terminal."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
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
    "--seat",
    type=click.IntRange(1, 4),
    help="With --match: the seat to take, 1 to 4 (default: the first open). With --resume: the seat held.",
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
@click.option(
    "--resume",
    "resume",
    is_flag=False,
    flag_value="",
    default=None,
    metavar="[MATCH_ID]",
    help="Resume a game whose seat this computer holds: this match, or choose from a list of them.",
)
@click.option(
    "--seats-file",
    type=click.Path(dir_okay=False, path_type=Path),
    envvar="MERCADO_SEATS_FILE",
    show_envvar=True,
    help="Where the seats you hold are kept, to resume them  [default: the user's data directory]",
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
    resume: str | None,
    seats_file: Path | None,
) -> None:
    """Play Mercado de Lisboa in the terminal: create a match (or join one with --match) and play it.

    Every seat you take is kept (with its secret token) until its match ends: after
    Ctrl-C or a closed terminal, `mercado play --resume` takes the game up again.
    """
    from mercado_client.play import PlayOptions
    from mercado_client.play import play as run
    from rich.console import Console

    levels = parse_bots(bots)
    if resume is not None:
        given = [
            option
            for option, value in (
                ("--match", match_id),
                ("--players", players),
                ("--bots", bots),
                ("--seed", seed),
            )
            if value is not None
        ]
        if given:
            raise click.BadParameter(
                f"--resume takes up a held game: no {', '.join(given)}", param_hint="--resume"
            )
    if match_id is None and resume is None and seat is not None:
        raise click.BadParameter(
            "--seat needs --match or --resume (a new match seats you at seat 1)", param_hint="--seat"
        )
    if players is not None and len(levels) + 1 > players:
        raise click.BadParameter(
            f"{len(levels)} bots do not fit beside you in {players} seats", param_hint="--bots"
        )
    if len(levels) > 3:
        raise click.BadParameter("at most 3 bots", param_hint="--bots")
    options = PlayOptions(
        server,
        match_id,
        None if seat is None else seat - 1,  # people count seats from 1, the API from 0
        name,
        players,
        levels,
        money,
        seed,
        resume=resume,
        seats_file=seats_file,
    )
    try:
        status = asyncio.run(run(options, Console()))
    except KeyboardInterrupt:
        status = 130
    raise SystemExit(status)
