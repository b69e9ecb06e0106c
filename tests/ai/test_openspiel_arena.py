"""OpenSpiel's bots as arena seats: legal, deciding from the view alone, and ``mercado arena`` with them."""

from __future__ import annotations

import json
import random
import subprocess
import sys

import pytest
from aiplay import interesting_positions
from click.testing import CliRunner

from ai.bots import make_bot
from server.cli import main
from server.games.mercado import RULES, legal_actions, player_view

BOTS = ["openspiel-ismcts:10", "openspiel-mcts:10"]


@pytest.mark.parametrize("name", BOTS)
def test_openspiel_bots_choose_legal_actions(name: str) -> None:
    for players, seed in ((2, 1), (3, 2), (4, 3)):
        for n, state in enumerate(interesting_positions(players, seed)[::2]):
            seat = state.current_player
            action = make_bot(name, n).choose(player_view(state, seat), list(state.coins))
            assert action in legal_actions(state), f"{name}: {action}"


@pytest.mark.parametrize("name", BOTS)
def test_openspiel_bots_decide_from_the_view_alone(name: str) -> None:
    state = interesting_positions(2, 5)[2]
    seat = state.current_player
    twin = RULES.sample(state, seat, random.Random(1))  # the hidden parts drawn afresh
    assert twin.bag != state.bag
    view, twin_view = player_view(state, seat), player_view(twin, seat)
    assert view == twin_view
    coins = list(state.coins)
    assert make_bot(name, 4).choose(view, coins) is make_bot(name, 4).choose(twin_view, coins)


@pytest.mark.parametrize(
    "bad", ["openspiel-ismcts", "openspiel-ismcts:0", "openspiel-ismcts:x", "openspiel-go:5"]
)
def test_unknown_openspiel_bots_are_refused(bad: str) -> None:
    with pytest.raises(ValueError, match="openspiel-ismcts:N"):
        make_bot(bad)


def test_mercado_arena_seats_openspiel_ismcts() -> None:
    args = ["arena", "--games", "1", "--jobs", "1", "--bots", "openspiel-ismcts:20,random", "--json"]
    result = CliRunner(mix_stderr=False).invoke(main, args)
    assert result.exit_code == 0, result.stderr + result.output
    report = json.loads(result.stdout)
    seats = {row["bot"]: row["seats_played"] for row in report["results"]}
    assert seats == {"openspiel-ismcts:20": 1, "random": 1}


def test_an_arena_without_openspiel_bots_does_not_load_openspiel() -> None:
    code = (
        "import sys; from ai.arena import play_game; play_game(['greedy', 'random'], 2, 0, 0); "
        "print(sorted(m for m in ('pyspiel', 'open_spiel', 'numpy') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
