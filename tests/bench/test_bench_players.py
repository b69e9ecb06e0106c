"""``mercado bench players`` end to end, with a few players at a fast pace: a real server, the Go load
generator (built on first use), and boardgame.io and the server that plays no game under the same players."""

from __future__ import annotations

import json
from typing import Any

import pytest
from click.testing import CliRunner

from server.bench.postgres import available
from server.cli import main

FIGURES = {
    "players",
    "connections",
    "players_following",
    "players_between_matches",
    "players_failing",
    "errors",
    "submits_per_second",
    "submit_latency_ms",
    "propagation_latency_ms",
    "stream_open_latency_ms",
    "server_rss_mib",
    "server_rss_kib_per_player",
    "server_cpu_cores_used",
    "server_cpu_ms_per_player_minute",
    "load_cpu_cores_used",
    "load_cpu_ms_per_player_minute",
    "duration_seconds",
}


def bench_players(*options: str) -> dict[str, Any]:
    """``mercado bench players`` with 20 players acting about every half second, 4 s measured."""
    args = ["bench", "players", "--players", "20", "--pace", "0.5", "--duration", "4", *options]
    result = CliRunner(mix_stderr=False).invoke(main, args, catch_exceptions=False)
    assert result.exit_code == 0, result.stdout + result.stderr
    report: dict[str, Any] = json.loads(result.stdout)
    assert report.keys() >= FIGURES
    return report


def served_every_player(report: dict[str, Any]) -> None:
    assert report["players"] == 20
    assert report["errors"] == {} and report["errors_before_window"] == {}
    assert report["players_failing"] == 0
    assert report["players_following"] + report["players_between_matches"] == 20
    submits, propagation = report["submit_latency_ms"], report["propagation_latency_ms"]
    # Each of about 10 tables acts every half second or so.
    assert report["submits_per_second"] >= 5
    assert 0 < submits["p50"] <= submits["p99"] <= submits["max"]
    assert 0 <= propagation["p50"] <= propagation["p99"] <= propagation["max"]
    assert propagation["count"] > 0
    assert report["stream_open_latency_ms"]["count"] >= 20  # every player opened its stream
    assert report["server_rss_mib"] > 0
    assert report["server_cpu_cores_used"] > 0 and report["server_cpu_ms_per_player_minute"] > 0
    assert report["load_cpu_cores_used"] > 0 and report["load_cpu_ms_per_player_minute"] > 0


def test_bench_players_reports_every_figure() -> None:
    report = bench_players("--seed", "3")
    served_every_player(report)
    assert report["server"] == "mercado"
    assert report["connections"] == 20  # a connection each
    assert report["tables"] == 10 and report["table_sizes"] == [2]
    assert report["games"] == ["mercado"]
    assert report["pace_seconds"] == 0.5
    assert report["duration_seconds"] == 4
    assert report["database"] == "sqlite" and report["workers"] == 1
    assert report["seed"] == 3
    # What the players and their matches added to the server, and what it started with.
    assert report["server_rss_mib"] > report["server_rss_mib_at_start"] > 0


def test_bench_players_mixes_table_sizes_games_shared_connections_and_player_tokens() -> None:
    options = ["--sizes", "2,3,4", "--game", "leilao", "--game", "oregano", "--per-connection", "2"]
    report = bench_players(*options, "--credential", "player")
    served_every_player(report)
    assert report["credential"] == "player"
    assert report["connections"] == 10
    assert report["table_sizes"] == [2, 3, 4] and report["games"] == ["leilao", "oregano"]
    assert report["tables"] == 7  # 2 + 3 + 4 + 2 + 3 + 4 + 2


def test_bench_players_restarts_the_server_and_every_player_comes_back() -> None:
    report = bench_players("--restart", "--restart-window", "10")
    served_every_player(report)
    restart = report["restart"]
    assert restart["window_seconds"] == 10
    assert restart["down_seconds"] > 0
    # The stopped server ends every stream with UNAVAILABLE, and every player opens it again.
    assert set(restart["errors_while_down"]["StreamEvents"]) == {"UNAVAILABLE"}
    assert restart["most_players_failing"] == 20
    assert restart["recovered_after_seconds"] is not None
    assert restart["stream_open_latency_ms"]["count"] >= 20
    assert restart["submit_latency_ms"]["count"] > 0


@pytest.mark.postgres
def test_bench_players_on_two_workers_sharing_postgresql() -> None:
    reason = available()
    if reason is not None:
        pytest.skip(f"PostgreSQL is not available: {reason}")
    report = bench_players("--db", "postgres", "--workers", "2")
    served_every_player(report)
    assert (report["database"], report["workers"]) == ("postgresql", 2)
    assert report["database_cpu_cores_used"] > 0


def knee(*options: str) -> dict[str, Any]:
    args = ["bench", "players", "--knee", "--runs", "1", "--pace", "0.5", "--duration", "2", *options]
    result = CliRunner(mix_stderr=False).invoke(main, args)
    assert result.exit_code == 0, result.stdout + result.stderr
    report: dict[str, Any] = json.loads(result.stdout)
    return report


def test_bench_players_knee_doubles_the_players_up_to_the_most_asked() -> None:
    # Bounds no run misses on a loaded machine: every count passes, doubling to the most asked.
    generous = ["--knee-submit-p99", "60000", "--knee-propagation-p99", "60000"]
    report = knee("--players", "4", "--knee-max", "8", *generous)
    assert [tried["players"] for tried in report["tried"]] == [4, 8]
    assert all(tried["passes"] and tried["every_run_served"] for tried in report["tried"])
    assert report["knee_players"] == 8
    assert report["criteria"]["submit_p99_ms_below"] == 60000
    assert report["criteria"]["propagation_p99_ms_below"] == 60000


def test_bench_players_knee_halves_the_players_that_fail() -> None:
    # Bounds no run meets: the first count fails, then half of it, and no count is served.
    report = knee("--players", "4", "--knee-submit-p99", "0.000001")
    assert [tried["players"] for tried in report["tried"]] == [2, 4]
    assert not any(tried["passes"] for tried in report["tried"])
    assert report["knee_players"] is None


@pytest.mark.parametrize(
    ("options", "complaint"),
    [
        (["--workers", "2"], "--workers above 1 needs PostgreSQL"),
        (["--peer", "boardgameio", "--db", "postgres"], "--peer runs boardgame.io in memory"),
        (["--peer", "boardgameio", "--restart"], "--peer runs boardgame.io in memory"),
        (["--knee", "--db", "postgresql://bench@127.0.0.1/bench"], "--knee runs each count on a fresh"),
        (["--floor", "--sizes", "2,3"], "--floor serves 2-player Mercado tables"),
        (["--floor", "--game", "leilao"], "--floor serves 2-player Mercado tables"),
        (["--floor", "--peer", "boardgameio"], "--floor serves 2-player Mercado tables"),
    ],
)
def test_bench_players_refuses_what_it_cannot_run(options: list[str], complaint: str) -> None:
    result = CliRunner(mix_stderr=False).invoke(main, ["bench", "players", *options])
    assert result.exit_code == 2
    assert complaint in result.stderr


@pytest.mark.slow  # installs boardgame.io (npm ci) on first use
def test_bench_players_serves_the_same_players_with_boardgame_io() -> None:
    report = bench_players("--peer", "boardgameio")
    served_every_player(report)
    assert report["server"] == "boardgame.io 0.50.2"
    assert report["database"] == "memory"
    assert report["games"] == ["market"]


def test_bench_players_serves_the_same_players_with_the_server_that_plays_no_game() -> None:
    report = bench_players("--floor")
    served_every_player(report)
    assert report["server"] == "floor (no game, no database)"
    assert report["database"] == "none"
    assert report["games"] == ["mercado"] and report["table_sizes"] == [2]
