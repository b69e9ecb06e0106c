"""``mercado arena --rate``: the arena's games fed into the ladder's OpenSkill ratings, and the file."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from click.testing import CliRunner

import ai.arena_report
from ai.arena import GameOutcome, distinct_seats, mcts_level
from ai.mcts import win_shares
from server.cli import main
from server.cli.ai import arena_player_id, rate_games
from server.players.ratings import load_ratings, rate
from server.store.records import BOT, DEFAULT_SIGMA, PlayerRecord


def replayed(outcomes: list[GameOutcome], start: dict[str, tuple[float, float]]) -> dict[str, PlayerRecord]:
    """The games' ranks fed into ``rate`` by hand, game by game."""
    ladder = {p: PlayerRecord(p, BOT, p, mu=mu, sigma=sigma) for p, (mu, sigma) in start.items()}
    for outcome in outcomes:
        ids = [arena_player_id(bot) for bot in outcome.bots]
        seats = [ladder.get(p, PlayerRecord(p, BOT, p)) for p in ids]
        for player in rate(seats, list(outcome.ranks)):
            ladder[player.player_id] = player
    return ladder


@pytest.fixture
def played(monkeypatch: pytest.MonkeyPatch) -> list[list[GameOutcome]]:
    """The games of each arena the test runs (in-process, --jobs 1), as run_arena got them."""
    runs: list[list[GameOutcome]] = []
    play = ai.arena_report.play_games

    def spy(*args: object) -> list[GameOutcome]:
        outcomes = play(*args)  # type: ignore[arg-type]
        runs.append(outcomes)
        return outcomes

    monkeypatch.setattr(ai.arena_report, "play_games", spy)
    return runs


def arena(*args: str) -> tuple[int, str, str]:
    result = CliRunner(mix_stderr=False).invoke(main, ["arena", "--jobs", "1", *args])
    return result.exit_code, result.stdout, result.stderr


def test_player_ids_are_the_ladders() -> None:
    assert [arena_player_id(b) for b in ("mcts:easy", "mcts:medium", "mcts:hard")] == [
        "bot:easy",
        "bot:medium",
        "bot:hard",
    ]
    assert arena_player_id("greedy") == "greedy" and arena_player_id("random") == "random"
    assert mcts_level("mcts:hard") == "hard" and mcts_level("greedy") is None
    assert mcts_level("mcts:nightmare") is None


def test_distinct_seats() -> None:
    assert distinct_seats(["greedy", "random"], 2)
    assert not distinct_seats(["greedy", "random"], 3)  # random fills two seats
    assert distinct_seats(["mcts:easy", "greedy", "random", "mcts:medium"], 4)
    assert not distinct_seats(["greedy", "greedy"], 2)


def test_rate_games_shares_tied_ranks_and_keeps_players_not_playing() -> None:
    outcomes = [
        GameOutcome(1, ("a", "b", "c"), (5, 5, 2), (0, 0, -3), tuple(win_shares((1, 1, 3))), (1, 1, 3)),
        GameOutcome(2, ("c", "a", "b"), (9, 3, 1), (6, -6, -8), tuple(win_shares((1, 2, 3))), (1, 2, 3)),
    ]
    start = {"a": (30.0, 5.0), "bot:hard": (40.0, 2.0)}
    ladder = rate_games(outcomes, start)
    assert set(ladder) == {"a", "b", "c", "bot:hard"}
    assert ladder["bot:hard"].mu == 40.0 and ladder["bot:hard"].rated_matches == 0
    expected = replayed(outcomes, start)
    for player, record in ladder.items():
        assert math.isclose(record.mu, expected[player].mu) and math.isclose(
            record.sigma, expected[player].sigma
        )
    assert (ladder["a"].wins, ladder["b"].wins, ladder["c"].wins) == (1, 1, 1)  # a shared first counts
    # The tie is rated as a tie, not as the seat order.
    untied = [GameOutcome(1, ("a", "b", "c"), (5, 5, 2), (0, 0, -3), (1.0, 0.0, 0.0), (1, 2, 3))]
    tied, ordered = rate_games(outcomes[:1], start), rate_games(untied, start)
    assert [(tied[p].mu, tied[p].sigma) for p in "ab"] != [(ordered[p].mu, ordered[p].sigma) for p in "ab"]


def test_rate_games_refuses_a_player_in_two_seats() -> None:
    twice = GameOutcome(3, ("greedy", "greedy"), (4, 2), (2, -2), (1.0, 0.0), (1, 2))
    with pytest.raises(ValueError, match="twice"):
        rate_games([twice], {})


def test_arena_rates_its_games_into_a_file_the_server_reads(
    tmp_path: Path, played: list[list[GameOutcome]]
) -> None:
    path, report = tmp_path / "ratings.json", tmp_path / "report.json"
    bots = "mcts:easy,greedy,random"
    code, out, err = arena(
        "--players", "3", "--games", "3", "--bots", bots, "--rate", str(path), "--json-out", str(report)
    )
    assert code == 0, err
    assert "ratings" in out and "bot:easy" in out  # the table, after the arena's
    outcomes = played[0]
    assert len(outcomes) == 3 and all(len(o.ranks) == 3 for o in outcomes)

    ratings = load_ratings(path)  # the file round-trips
    assert set(ratings) == {"bot:easy", "greedy", "random"}
    assert json.loads(path.read_text(encoding="utf-8"))["games"] == 3
    expected = replayed(outcomes, {})
    for player, (mu, sigma) in ratings.items():
        assert math.isclose(mu, expected[player].mu) and math.isclose(sigma, expected[player].sigma)
        assert sigma < DEFAULT_SIGMA  # every bot played every game

    rows = {row["player"]: row for row in json.loads(report.read_text(encoding="utf-8"))["ratings"]}
    assert set(rows) == set(ratings)
    assert all(row["games"] == 3 for row in rows.values())
    wins = {bot: sum(o.ranks[o.bots.index(bot)] == 1 for o in outcomes) for bot in bots.split(",")}
    assert {arena_player_id(bot): n for bot, n in wins.items()} == {p: r["wins"] for p, r in rows.items()}
    # What the games must show: a bot that won every game alone is rated above the others.
    for bot, n in wins.items():
        if n == len(outcomes) and all(sorted(o.ranks)[:2] == [1, 2] for o in outcomes):
            best = arena_player_id(bot)
            assert all(ratings[best][0] > mu for p, (mu, _) in ratings.items() if p != best)

    # A second arena goes on from the file: its players from their ratings, the others kept.
    code, _, err = arena("--games", "2", "--bots", "greedy,random", "--rate", str(path))
    assert code == 0, err
    after = load_ratings(path)
    assert after["bot:easy"] == ratings["bot:easy"]
    assert json.loads(path.read_text(encoding="utf-8"))["games"] == 5
    again = replayed(played[1], ratings)
    for player in ("greedy", "random"):
        assert math.isclose(after[player][0], again[player].mu)
        assert math.isclose(after[player][1], again[player].sigma)


def test_arena_refuses_to_rate_a_bot_holding_two_seats(tmp_path: Path) -> None:
    path = tmp_path / "ratings.json"
    code, _, err = arena("--players", "3", "--games", "1", "--bots", "greedy,random", "--rate", str(path))
    assert code == 2 and "--rate" in err
    assert not path.exists()


def test_arena_refuses_a_file_that_is_not_ratings(tmp_path: Path, played: list[list[GameOutcome]]) -> None:
    path = tmp_path / "ratings.json"
    path.write_text('{"not": "ratings"}\n', encoding="utf-8")
    code, _, err = arena("--games", "1", "--bots", "greedy,random", "--rate", str(path))
    assert code == 2 and "not a ratings file" in err
    assert played == []  # refused before playing
    assert path.read_text(encoding="utf-8") == '{"not": "ratings"}\n'


def test_arena_without_rate_reports_no_ratings(tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    code, out, err = arena("--games", "1", "--bots", "greedy,random", "--json-out", str(report))
    assert code == 0, err
    assert "ratings" not in json.loads(report.read_text(encoding="utf-8"))
    assert "mu" not in out
