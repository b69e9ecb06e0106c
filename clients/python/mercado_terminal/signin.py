"""The player ``mercado play`` signs in as: the guest player kept for the server (``players.py``), or
the one kept under ``--as NAME`` (someone else at the same computer), checked with it, or created
when there is none; and how the terminal shows it, with its rating.
"""

from __future__ import annotations

from dataclasses import dataclass

import grpc
from mercado.v1 import players_pb2 as players_api
from mercado_client.client import MercadoClient
from mercado_client.text import printable
from rich.console import Console
from rich.markup import escape
from rich.text import Text

from .common import PlayOptions, error_line
from .held import DataFileError
from .players import PlayerFile, SavedPlayer
from .players import default_path as default_players_path


@dataclass
class Identity:
    """The player this terminal plays as on the server: its kept credential and its profile."""

    saved: SavedPlayer
    profile: players_api.Player

    @property
    def player_id(self) -> str:
        return self.saved.player_id

    @property
    def token(self) -> str:
        return self.saved.token

    @property
    def name(self) -> str:
        return self.profile.display_name or self.saved.name


def rating_text(player: players_api.Player) -> str:
    """A player's display rating in one decimal: '12.3'."""
    return f"{player.rating.display:.1f}"


def player_line(player: players_api.Player) -> Text:
    """'ada · rating 12.3 · 5 rated matches, 2 wins'."""
    matches = player.rated_matches
    record = f"{matches} rated match{'es' if matches != 1 else ''}"
    if matches:
        record += f", {player.wins} win{'s' if player.wins != 1 else ''}"
    return Text.assemble(
        (printable(player.display_name), "bold"),
        " · rating ",
        (rating_text(player), "bold cyan"),
        (f" · {record}", "dim"),
    )


async def sign_in(
    client: MercadoClient, players: PlayerFile, options: PlayOptions, console: Console, create: bool
) -> Identity | None:
    """The guest player kept for the server (under ``options.kept_as``), checked with it, with its
    rating in ``options.game``; with ``create``, a new one (named ``options.name``) when none is kept
    or the server no longer knows it. None without one, and on a server that has no players (it plays
    anonymously then)."""
    server = options.server.target
    saved = players.player(server, options.kept_as)
    if saved is not None:
        try:
            return Identity(saved, await client.get_player(token=saved.token, game=options.game))
        except grpc.aio.AioRpcError as error:
            if error.code() == grpc.StatusCode.UNIMPLEMENTED:
                return None
            if error.code() not in (grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.NOT_FOUND):
                raise
            if not create:
                return None
            name = escape(printable(saved.name))
            console.print(
                f"[yellow]the guest player {name} kept for this server is unknown to it[/] "
                f"({error_line(error)}): signing in as a new one"
            )
    elif not create:
        return None
    try:
        created = await client.create_player(options.name)
    except grpc.aio.AioRpcError as error:
        if error.code() != grpc.StatusCode.UNIMPLEMENTED:
            raise
        console.print("[dim]this server has no players: playing anonymously[/]")
        return None
    mine = SavedPlayer(
        server, created.player.player_id, created.player_token, created.player.display_name, options.kept_as
    )
    try:
        kept = players.keep(mine, replacing=saved)
    except (DataFileError, OSError) as error:
        reason = escape(str(error))
        console.print(
            f"[bold red]this player cannot be kept[/] (its rating is lost after this game): {reason}"
        )
        return Identity(mine, created.player)
    if kept != mine:  # another terminal signed in first: be the player it kept
        return Identity(kept, await client.get_player(token=kept.token, game=options.game))
    kept_as = f" as {printable(options.kept_as)}" if options.kept_as else ""
    console.print(
        Text.assemble(
            "new guest player ",
            (printable(mine.name), "bold"),
            f" on server {options.server}, kept{kept_as} in {players.path}",
        ),
        highlight=False,
        soft_wrap=True,
    )
    return Identity(mine, created.player)


def introduce(identity: Identity, options: PlayOptions, console: Console) -> None:
    console.print(Text.assemble("playing as ", player_line(identity.profile)), highlight=False)
    if options.name_given and options.name != identity.name:
        name = escape(printable(identity.name))
        path = escape(str(options.players_file or default_players_path(options.seats_file)))
        console.print(
            f"[dim](--name names a new guest player only: this terminal plays as {name} on this server, "
            f"and someone else at it with --as NAME; its player file is {path})[/]",
            highlight=False,
        )
