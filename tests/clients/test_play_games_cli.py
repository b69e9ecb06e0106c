"""``mercado play --game``: which options go with it, checked before connecting."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from server.cli import main


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--game", "chess"], "'chess' is not one of mercado, oregano, leilao"),
        (
            ["--game", "oregano", "--match", "0" * 32],
            "--game is for a new match: a joined match plays its own",
        ),
        (["--resume", "--game", "leilao"], "--resume takes up a held game: no --game"),
    ],
)
def test_game_options_are_checked_before_connecting(arguments: list[str], message: str) -> None:
    result = CliRunner().invoke(main, ["play", "--server", "127.0.0.1:1", *arguments])
    assert result.exit_code == 2
    assert message in " ".join(result.output.split())


@pytest.mark.parametrize("game", ["oregano", "leilao"])
def test_a_new_match_of_any_game_tries_the_server(game: str) -> None:
    result = CliRunner().invoke(main, ["play", "--server", "127.0.0.1:1", "--game", game, "--bots", "easy"])
    assert result.exit_code == 1
    assert result.output.startswith("cannot start:")
