"""``mercado arena --round-robin``: every pair of bots, their OpenSkill ratings and win-rate matrix."""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

import ai.round_robin_report
from ai.arena import GameOutcome
from ai.round_robin import pairings, play_round_robin
from server.cli import main
from server.players.ratings import load_game_ratings, load_ratings, rate
from server.store.records import BOT, DEFAULT_SIGMA, PlayerRecord

CHEAP = ["random", "greedy", "mcts:easy"]


@pytest.fixture
def played(monkeypatch: pytest.MonkeyPatch) -> list[list[GameOutcome]]:
    """The games of each round robin the test runs, in the order they were rated."""
    runs: list[list[GameOutcome]] = []

    def spy(*args: object) -> list[GameOutcome]:
        outcomes = play_round_robin(*args)  # type: ignore[arg-type]
        runs.append(outcomes)
        return outcomes

    monkeypatch.setattr(ai.round_robin_report, "play_round_robin", spy)
    return runs


def arena(*args: str) -> tuple[int, str, str]:
    result = CliRunner(mix_stderr=False).invoke(main, ["arena", "--round-robin", *args])
    return result.exit_code, result.stdout, result.stderr


def rated_by_hand(outcomes: list[GameOutcome]) -> dict[str, PlayerRecord]:
    """Every bot from a newcomer's rating, the games fed into the server's ``rate`` one by one."""
    ladder: dict[str, PlayerRecord] = {}
    for outcome in outcomes:
        seats = [ladder.get(bot, PlayerRecord(bot, BOT, bot)) for bot in outcome.bots]
        ladder.update((p.player_id, p) for p in rate(seats, list(outcome.ranks)))
    return ladder


def test_pairings_are_every_unordered_pair_once() -> None:
    assert pairings(["a", "b", "c", "d"]) == [
        ("a", "b"),
        ("a", "c"),
        ("a", "d"),
        ("b", "c"),
        ("b", "d"),
        ("c", "d"),
    ]
    assert pairings(["a", "b"]) == [("a", "b")]


def test_a_round_robin_plays_every_pair_and_rates_every_bot(
    tmp_path: Path, played: list[list[GameOutcome]]
) -> None:
    report_path, plot = tmp_path / "report.json", tmp_path / "ratings.png"
    code, out, err = arena(
        "--bots", ",".join(CHEAP), "--games", "2", "--seed", "7", "--jobs", "1",
        "--plot", str(plot), "--json-out", str(report_path),
    )  # fmt: skip
    assert code == 0, err
    assert "ratings" in out and "win rate of the row's bot" in out
    (outcomes,) = played
    # Every pair twice, each bot first once, and every game with its own seed from --seed.
    assert Counter(frozenset(o.bots) for o in outcomes) == {frozenset(p): 2 for p in pairings(CHEAP)}
    assert Counter(o.bots for o in outcomes) == {p: 1 for a, b in pairings(CHEAP) for p in ((a, b), (b, a))}
    assert sorted(o.seed for o in outcomes) == list(range(7, 13))
    # Rated in rounds: each pair's first game, then each pair's second.
    assert [frozenset(o.bots) for o in outcomes[:3]] == [frozenset(p) for p in pairings(CHEAP)]

    report = json.loads(report_path.read_text(encoding="utf-8"))
    assert (report["round_robin"], report["games_per_pair"], report["games"]) == (True, 2, 6)
    expected = rated_by_hand(outcomes)
    ratings = {row["player"]: row for row in report["ratings"]}
    assert set(ratings) == set(CHEAP)
    for bot, row in ratings.items():
        assert math.isclose(row["mu"], expected[bot].mu, abs_tol=1e-4)
        assert math.isclose(row["sigma"], expected[bot].sigma, abs_tol=1e-4)
        assert row["ci95"] == pytest.approx(
            [row["mu"] - 1.96 * row["sigma"], row["mu"] + 1.96 * row["sigma"]], abs=1e-3
        )
        assert row["display"] == pytest.approx(row["mu"] - 3 * row["sigma"], abs=1e-3)
        assert row["games"] == 4 and row["wins"] == expected[bot].wins
        assert row["sigma"] < DEFAULT_SIGMA
    # With seed 7 random won one game of four (a tie broken its way), the others two or more: it is last.
    assert ratings["random"]["wins"] == 1
    assert min(ratings["greedy"]["wins"], ratings["mcts:easy"]["wins"]) >= 2
    assert all(ratings["random"]["mu"] < row["mu"] for bot, row in ratings.items() if bot != "random")

    matrix = {(h["bot"], h["opponent"]): h for h in report["matrix"]}
    assert len(matrix) == 6
    for (bot, opponent), cell in matrix.items():
        games = [o for o in outcomes if set(o.bots) == {bot, opponent}]
        assert cell["games"] == 2
        assert cell["win_rate"]["mean"] == sum(o.wins[o.bots.index(bot)] for o in games) / 2
        assert cell["win_rate"]["mean"] + matrix[(opponent, bot)]["win_rate"]["mean"] == pytest.approx(1)
        low, high = cell["win_rate"]["ci95"]
        assert 0 <= low <= cell["win_rate"]["mean"] <= high <= 1
    assert {r["bot"] for r in report["results"]} == set(CHEAP)
    assert plot.read_bytes().startswith(b"\x89PNG")


def test_ratings_do_not_depend_on_the_order_games_finished(tmp_path: Path) -> None:
    reports = []
    for jobs in ("1", "2"):
        code, out, err = arena("--bots", "random,greedy,mcts:easy", "--games", "1", "--jobs", jobs, "--json")
        assert code == 0, err
        reports.append(json.loads(out))
    assert reports[0] == reports[1]


def test_rate_writes_the_levels_ratings_for_the_server(tmp_path: Path) -> None:
    path, report_path = tmp_path / "bot-ratings.json", tmp_path / "report.json"
    path.write_text('{"ratings": {"greedy": {"mu": 1.0, "sigma": 1.0}}, "games": 99}\n', encoding="utf-8")
    code, _, err = arena(
        "--bots", "random,mcts:easy", "--games", "2", "--jobs", "1",
        "--rate", str(path), "--json-out", str(report_path),
    )  # fmt: skip
    assert code == 0, err
    ratings = load_ratings(path)  # what mercado serve --bot-ratings reads
    assert set(ratings) == {"bot:easy"}  # written anew: the levels only, as the ladder's players
    assert json.loads(path.read_text(encoding="utf-8"))["games"] == 2
    row = next(
        r
        for r in json.loads(report_path.read_text(encoding="utf-8"))["ratings"]
        if r["player"] == "mcts:easy"
    )
    assert ratings["bot:easy"] == pytest.approx((row["mu"], row["sigma"]), abs=1e-4)


@pytest.mark.parametrize(
    ("args", "hint"),
    [
        (["--bots", "random,greedy", "--players", "3"], "--players"),
        (["--bots", "random,greedy,random"], "--bots"),
        (["--bots", "greedy"], "--bots"),
        (["--bots", "random,greedy", "--rate", "{tmp}/r.json"], "--rate"),
        (["--bots", "random,mcts:easy", "--rate", "{tmp}/missing/r.json"], "--rate"),
    ],
)
def test_a_round_robin_that_cannot_be_is_refused_before_playing(
    tmp_path: Path, played: list[list[GameOutcome]], args: list[str], hint: str
) -> None:
    code, _, err = arena("--games", "1", *(arg.format(tmp=tmp_path) for arg in args))
    assert code == 2 and hint in err
    assert played == [] and not (tmp_path / "r.json").exists()


def test_a_round_robin_of_another_game_rates_its_levels_for_that_game_s_ladder(tmp_path: Path) -> None:
    path = tmp_path / "oregano.json"  # as in ai/bot-ratings/, which mercado serve --bot-ratings reads
    code, out, err = arena(
        "--game", "oregano", "--bots", "random,mcts:easy", "--games", "2", "--jobs", "1", "--json",
        "--rate", str(path),
    )  # fmt: skip
    assert code == 0, err
    report = json.loads(out)
    assert report["game"] == "oregano" and report["games"] == 2
    assert [cell["games"] for cell in report["matrix"]] == [2, 2]
    assert load_game_ratings(tmp_path)["oregano"].keys() == {"bot:easy"}
