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
@click.option(
    "--name",
    help="Your display name (default: $USER): the name of the guest player created the first time you "
    "play on a server.",
)
@click.option(
    "--as",
    "kept_as",
    metavar="NAME",
    help="Play as another guest player of this computer, kept under NAME (and named NAME when it is "
    "created, unless --name says otherwise): a friend playing on the same computer.",
)
@click.option(
    "--players",
    type=click.IntRange(2, 4),
    help="New match or --quick: number of players [default: 2, or 1 + the bots].",
)
@click.option(
    "--game",
    help="New match or --quick: the game, e.g. oregano or leilao  [default: mercado]",
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
@click.option("--unrated", is_flag=True, help="New match: never rated, whoever plays.")
@click.option(
    "--quick",
    is_flag=True,
    help="Matchmaking: queue for a match against players of a close rating and play it.",
)
@click.option(
    "--allow-ai/--no-allow-ai",
    default=None,
    help="With --quick: bots may fill the seats nobody takes after a while  [default: allow]",
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
@click.option(
    "--players-file",
    type=click.Path(dir_okay=False, path_type=Path),
    envvar="MERCADO_PLAYERS_FILE",
    show_envvar=True,
    help="Where your guest player of each server is kept  [default: beside the seat file]",
)
def play(
    server: Endpoint,
    match_id: str | None,
    seat: int | None,
    name: str | None,
    kept_as: str | None,
    players: int | None,
    bots: str | None,
    game: str | None,
    money: str,
    seed: int | None,
    unrated: bool,
    quick: bool,
    allow_ai: bool | None,
    resume: str | None,
    seats_file: Path | None,
    players_file: Path | None,
) -> None:
    """Play Mercado de Lisboa, Oregano or Leilão (--game) in the terminal: create a match (or join
    one with --match, or queue for one with --quick) and play it.

    You play as a guest player of the server, created the first time (named --name) and kept
    (with its secret token) for the next times, so that your rating follows you. Every seat you
    take is kept until its match ends: after Ctrl-C or a closed terminal, `mercado play --resume`
    takes the game up again. Someone else playing on the same computer plays as a player of their
    own with --as NAME.
    """
    from mercado_terminal.boards import BOARDS
    from mercado_terminal.common import PlayOptions
    from mercado_terminal.play import play as run
    from rich.console import Console

    levels = parse_bots(bots)
    if game is not None and game not in BOARDS:  # a game the terminal can draw
        raise click.BadParameter(f"{game!r} is not one of {', '.join(BOARDS)}", param_hint="--game")
    if quick:
        given = [
            option
            for option, value in (
                ("--match", match_id),
                ("--seat", seat),
                ("--bots", bots),
                ("--seed", seed),
                ("--resume", resume),
                ("--unrated", unrated or None),
            )
            if value is not None
        ]
        if given:
            raise click.BadParameter(
                f"--quick queues for a match the server makes: no {', '.join(given)}", param_hint="--quick"
            )
    elif allow_ai is not None:
        raise click.BadParameter("--allow-ai and --no-allow-ai go with --quick", param_hint="--allow-ai")
    if resume is not None:
        given = [
            option
            for option, value in (
                ("--match", match_id),
                ("--players", players),
                ("--bots", bots),
                ("--seed", seed),
                ("--unrated", unrated or None),
                ("--game", game),
            )
            if value is not None
        ]
        if given:
            raise click.BadParameter(
                f"--resume takes up a held game: no {', '.join(given)}", param_hint="--resume"
            )
    if match_id is not None and game is not None:
        raise click.BadParameter(
            "--game is for a new match: a joined match plays its own game", param_hint="--game"
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
    if kept_as is not None and not kept_as.strip():
        raise click.BadParameter("name the player, e.g. --as bea", param_hint="--as")
    options = PlayOptions(
        server,
        match_id,
        None if seat is None else seat - 1,  # people count seats from 1, the API from 0
        name or kept_as or default_name(),
        players,
        levels,
        money,
        seed,
        resume=resume,
        seats_file=seats_file,
        players_file=players_file,
        name_given=name is not None,
        unrated=unrated,
        quick=quick,
        allow_ai=allow_ai is not False,
        game=game or "mercado",
        kept_as=(kept_as or "").strip(),
    )
    try:
        status = asyncio.run(run(options, Console()))
    except KeyboardInterrupt:
        status = 130
    raise SystemExit(status)
