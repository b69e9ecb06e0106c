"""``mercado rules``: any game's rules on JSON positions (docs/positions.md)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, NoReturn

import click

from server.games.registry import GAMES, AnyGame, game_named, game_of_position

EXIT_REFUSED = 2


def _refuse(reason: str) -> NoReturn:
    """One line on stderr, nothing on stdout, exit status 2."""
    click.echo(reason, err=True)
    sys.exit(EXIT_REFUSED)


class DuplicateKey(ValueError):
    pass


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object, refused if it names a key twice: which of the two was meant is anybody's guess
    (a market square would silently lose one of its two contents)."""
    data: dict[str, Any] = {}
    for key, value in pairs:
        if key in data:
            raise DuplicateKey(key)
        data[key] = value
    return data


def _loads(text: str, what: str) -> Any:
    """JSON text, objects without duplicate keys; raises JSONDecodeError when it is not JSON."""
    try:
        return json.loads(text, object_pairs_hook=_object)
    except DuplicateKey as error:
        _refuse(f"{what} names the key {error.args[0]!r} twice")


def _read_json(source: str, what: str) -> Any:
    try:
        text = sys.stdin.read() if source == "-" else Path(source).read_text(encoding="utf-8")
    except OSError as error:
        _refuse(f"cannot read {what} {source!r}: {error.strerror}")
    except UnicodeDecodeError:
        _refuse(f"{what} {source!r} is not UTF-8 text")
    try:
        return _loads(text, what)
    except json.JSONDecodeError as error:
        _refuse(f"{what} is not valid JSON: {error.msg} at line {error.lineno} column {error.colno}")


def _print(data: Any) -> None:
    click.echo(json.dumps(data))


def _position(source: str) -> tuple[AnyGame, Any]:
    """The game and the state of the position in ``source``; refused if it is not a valid one."""
    data = _read_json(source, "position")
    try:
        game = game_of_position(data)
        return game, game.position_from_json(data)
    except ValueError as error:
        _refuse(f"invalid position: {error}")


def _seat(game: AnyGame, state: Any, seat: int | None) -> int:
    """``seat``, or the one seat to move; refused when several are and none was named."""
    if seat is not None:
        return seat
    movers = sorted(game.to_move(state))
    if len(movers) > 1:
        _refuse(f"seats {', '.join(map(str, movers))} are to move: name one with --seat")
    if not movers:
        _refuse("illegal action: the game is over")
    return movers[0]


SEAT = click.option(
    "--seat", type=click.IntRange(min=0), default=None, help="The seat acting; default: the one to move."
)


@click.group()
def rules() -> None:
    """Set up, list legal actions and apply actions on JSON positions of any game."""


@rules.command()
@click.option("--game", "game_name", type=click.Choice(list(GAMES)), default="mercado", show_default=True)
@click.option("--players", type=click.IntRange(2, 4), default=2, show_default=True)
@click.option("--seed", type=click.IntRange(min=0), required=True)
@click.option(
    "--option",
    "options",
    multiple=True,
    metavar="NAME=VALUE",
    help="A rule option of the game (its page: docs/rules.md, docs/oregano.md, docs/leilao.md),"
    " VALUE as JSON or a bare word; repeatable.",
)
@click.option("--money", type=click.Choice(["public", "hidden"]), default=None, help="Mercado: money option.")
@click.option(
    "--face-down-counts-as-available/--face-down-not-available",
    default=None,
    help="Mercado: whether end trigger 1 counts face-down restaurant squares as available.",
)
def new(
    game_name: str,
    players: int,
    seed: int,
    options: tuple[str, ...],
    money: str | None,
    face_down_counts_as_available: bool | None,
) -> None:
    """Print a freshly set-up position."""
    game = game_named(game_name)
    chosen: dict[str, Any] = {"players": players}
    for option in options:
        name, equals, value = option.partition("=")
        if not equals or not name:
            _refuse(f"--option {option!r} is not NAME=VALUE")
        try:
            chosen[name] = json.loads(value)
        except json.JSONDecodeError:
            chosen[name] = value  # a bare word: a string
    mercado_flags = {"money": money, "face_down_counts_as_available": face_down_counts_as_available}
    for name, flag in mercado_flags.items():
        if flag is not None:
            if game.name != "mercado":
                _refuse(f"--{name.replace('_', '-')} is an option of mercado, not of {game.name}")
            chosen[name] = flag
    try:
        state = game.new_game(game.options(chosen), seed)
    except ValueError as error:
        _refuse(f"invalid options: {error}")
    _print(game.position_to_json(state))


@rules.command()
@click.argument("position_file")
@SEAT
def legal(position_file: str, seat: int | None) -> None:
    """Print every legal action in POSITION_FILE ('-' for stdin) of the seat to move."""
    game, state = _position(position_file)
    if seat is None and not game.to_move(state):
        actions = []  # the game is over
    else:
        actions = game.legal_actions(state, _seat(game, state, seat))
    _print([game.action_to_json(action) for action in actions])


@rules.command(name="apply")
@click.argument("position_file")
@click.argument("action_json")
@SEAT
def apply_command(position_file: str, action_json: str, seat: int | None) -> None:
    """Apply ACTION_JSON (JSON text, or a file holding it) to POSITION_FILE for the seat to move."""
    game, state = _position(position_file)
    try:
        raw = _loads(action_json, "action")
    except json.JSONDecodeError as error:
        if not Path(action_json).is_file():
            _refuse(f"action is neither valid JSON ({error.msg}) nor a file")
        raw = _read_json(action_json, "action")
    try:
        action = game.action_from_json(raw)
    except ValueError as error:
        _refuse(f"invalid action: {error}")
    acting = _seat(game, state, seat)
    try:
        events = game.apply(state, acting, action)
    except ValueError as error:
        _refuse(f"illegal action: {error}")
    _print({"position": game.position_to_json(state), "events": events})
