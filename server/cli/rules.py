"""``mercado rules``: the engine on JSON positions (POSITION.md)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, NoReturn

import click

from server.games.mercado import (
    Options,
    RulesError,
    action_from_json,
    apply,
    legal_actions,
    new_game,
    position,
)

EXIT_REFUSED = 2


def _refuse(reason: str) -> NoReturn:
    """One line on stderr, nothing on stdout, exit status 2."""
    click.echo(reason, err=True)
    sys.exit(EXIT_REFUSED)


def _read_json(source: str, what: str) -> Any:
    try:
        text = sys.stdin.read() if source == "-" else Path(source).read_text(encoding="utf-8")
    except OSError as error:
        _refuse(f"cannot read {what} {source!r}: {error.strerror}")
    except UnicodeDecodeError:
        _refuse(f"{what} {source!r} is not UTF-8 text")
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        _refuse(f"{what} is not valid JSON: {error.msg} at line {error.lineno} column {error.colno}")


def _print(data: Any) -> None:
    click.echo(json.dumps(data))


@click.group()
def rules() -> None:
    """Set up, list legal actions and apply actions on JSON positions."""


@rules.command()
@click.option("--players", type=click.IntRange(2, 4), default=2, show_default=True)
@click.option("--seed", type=click.IntRange(min=0), required=True)
@click.option("--money", type=click.Choice(["public", "hidden"]), default="hidden", show_default=True)
@click.option(
    "--face-down-counts-as-available/--face-down-not-available",
    default=True,
    show_default=True,
    help="Whether end trigger 1 counts face-down restaurant squares as available.",
)
def new(players: int, seed: int, money: str, face_down_counts_as_available: bool) -> None:
    """Print a freshly set-up position."""
    options = Options(players, money, face_down_counts_as_available)  # type: ignore[arg-type]
    _print(position.to_json(new_game(options, seed)))


@rules.command()
@click.argument("position_file")
def legal(position_file: str) -> None:
    """Print every legal action in POSITION_FILE ('-' for stdin)."""
    try:
        state = position.from_json(_read_json(position_file, "position"))
    except RulesError as error:
        _refuse(f"invalid position: {error.reason}")
    _print([action.to_json() for action in legal_actions(state)])


@rules.command(name="apply")
@click.argument("position_file")
@click.argument("action_json")
def apply_command(position_file: str, action_json: str) -> None:
    """Apply ACTION_JSON (JSON text, or a file holding it) to POSITION_FILE."""
    try:
        state = position.from_json(_read_json(position_file, "position"))
    except RulesError as error:
        _refuse(f"invalid position: {error.reason}")
    try:
        raw = json.loads(action_json)
    except json.JSONDecodeError as error:
        if not Path(action_json).is_file():
            _refuse(f"action is neither valid JSON ({error.msg}) nor a file")
        raw = _read_json(action_json, "action")
    try:
        action = action_from_json(raw)
    except RulesError as error:
        _refuse(f"invalid action: {error.reason}")
    try:
        events = apply(state, action)
    except RulesError as error:
        _refuse(f"illegal action: {error.reason}")
    _print({"position": position.to_json(state), "events": events})
