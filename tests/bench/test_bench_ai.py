"""``mercado bench ai``: its report, and a move's iterations searched by 1 and 2 worker processes."""

from __future__ import annotations

import json
import pstats
from pathlib import Path

from click.testing import CliRunner

from ai.mcts import SearchConfig
from ai.parallel import Decision
from server.bench.ai import PHASES, by_workers, position_after
from server.cli import main
from server.games.mercado import player_view


def test_two_workers_search_twice_the_iterations_of_a_budgeted_move() -> None:
    states = [position_after(n, 3) for n in PHASES.values()]
    config = SearchConfig(iterations=50)
    decisions = [
        Decision("mercado", player_view(s, s.current_player), config, 3, list(s.coins)) for s in states
    ]
    report = by_workers(decisions, (1, 2))
    assert report["1"]["iterations_per_move"] == 50
    assert report["2"]["iterations_per_move"] == 100
    for figures in report.values():
        assert figures["seconds_per_move"] > 0 and figures["iterations_per_second"] > 0


def test_the_command_reports_each_level_by_workers() -> None:
    args = ["bench", "ai", "--seconds", "0.1", "--level", "easy", "--workers", "1", "--workers", "2"]
    result = CliRunner(mix_stderr=False).invoke(main, args, catch_exceptions=False)
    assert result.exit_code == 0, result.stdout + result.stderr
    report = json.loads(result.stdout)
    assert report["machine"]["cores"] >= 1 and report["machine"]["load_average"] >= 0
    assert report["seconds_per_move"].keys() == {"easy"}
    assert report["by_workers"]["easy"].keys() == {"1", "2"}
    for figures in report["by_workers"]["easy"].values():
        assert figures.keys() == {"seconds_per_move", "iterations_per_move", "iterations_per_second"}
        assert 0 < figures["iterations_per_move"] <= 2 * 80  # the time cap may cut a loaded machine's short


def test_the_profile_says_which_code_a_search_spent_its_time_in(tmp_path: Path) -> None:
    profile = tmp_path / "leilao.prof"
    args = ["bench", "ai", "--game", "leilao", "--seconds", "0.2", "--level", "easy", "--workers", "1"]
    result = CliRunner(mix_stderr=False).invoke(
        main, [*args, "--profile", str(profile)], catch_exceptions=False
    )
    assert result.exit_code == 0, result.stdout + result.stderr
    report = json.loads(result.stdout)["profile"]
    assert pstats.Stats(str(profile)).total_calls > 0  # type: ignore[attr-defined]
    assert report["seconds"] > 0
    assert abs(sum(report["by_file"].values()) - 1) < 0.02  # every file's share, rounded
    # The search and the game's rules, named from the repository's root, are where a search works.
    assert {"ai/ismcts.py", "server/games/leilao/rules.py"} <= report["by_file"].keys()
    shares = [function["share"] for function in report["functions"]]
    assert shares == sorted(shares, reverse=True) and all(f["calls"] > 0 for f in report["functions"])
