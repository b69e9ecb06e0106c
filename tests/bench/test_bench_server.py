"""``mercado bench server`` end to end, with tiny parameters: a real server, one load-generating process."""

from __future__ import annotations

import json
from typing import Any

import pytest
from click.testing import CliRunner

from server.bench.postgres import available
from server.cli import main

KEYS = {
    "baseline_health_calls_per_second",
    "submit_actions_per_second",
    "ratio",
    "submit_latency_ms",
    "updates_delivered_per_second",
    "events_delivered_per_second",
    "matches_concurrent",
    "matches_finished",
    "server_peak_memory_mib",
    "duration_seconds",
    "grpcio_version",
}


def invoke(*options: str) -> tuple[dict[str, Any], str]:
    """``mercado bench server`` with 4 matches for 2 s from one load generator: its report, and stderr."""
    args = ["bench", "server", "--matches", "4", "--duration", "2", "--clients", "1", *options]
    result = CliRunner(mix_stderr=False).invoke(main, args, catch_exceptions=False)
    assert result.exit_code == 0, result.stdout + result.stderr
    report: dict[str, Any] = json.loads(result.stdout)
    return report, result.stderr


def bench_server(*options: str) -> dict[str, Any]:
    report, _ = invoke(*options)
    assert report.keys() >= KEYS
    return report


def test_bench_server_reports_every_figure() -> None:
    report = bench_server("--seed", "7")
    assert report["server"] == "mercado"
    assert report["nodes"] == 1
    assert report["baseline_health_calls_per_second"] > 0
    assert report["submit_actions_per_second"] > 0
    assert report["ratio"] > 0
    assert 0 < report["submit_latency_ms"]["p50"] <= report["submit_latency_ms"]["p99"]
    assert report["updates_delivered_per_second"] > 0
    assert report["events_delivered_per_second"] > 0
    assert report["matches_concurrent"] == 4
    assert report["server_peak_memory_mib"] > 0
    assert report["duration_seconds"] == 2
    assert report["submit_errors"] == 0
    assert report["stream_errors"] == 0
    assert report["seed"] == 7
    assert report["actions_persisted"] >= report["actions_accepted"] > 0
    # Both seats watch: every accepted action reaches two streams.
    assert report["updates_delivered_per_second"] >= report["submit_actions_per_second"]


def test_bench_server_paced_load_offers_the_rate() -> None:
    report = bench_server("--rate", "40")
    assert report["offered_actions_per_second"] == 40
    # Paced: no more than offered (a slot may start up to one interval early), and most of it.
    assert 20 <= report["submit_actions_per_second"] <= 44


def test_bench_server_floor_measures_the_server_that_plays_no_game() -> None:
    report = bench_server("--floor")
    assert report["server"] == "floor"
    assert report["submit_actions_per_second"] > 0
    assert report["updates_delivered_per_second"] >= report["submit_actions_per_second"]
    assert report["matches_finished"] > 0
    assert report["submit_errors"] == report["stream_errors"] == 0
    assert report["actions_persisted"] is None  # it writes nothing


def test_bench_server_beside_floor_measures_the_server_and_the_floor_in_turn() -> None:
    report, table = invoke("--beside-floor", "2", "--duration", "1", "--seed", "5")
    rounds = report["rounds"]
    assert [r["round"] for r in rounds] == [1, 2]
    for result in rounds:
        server, floor = result["server"], result["floor"]
        assert server.keys() >= KEYS and floor.keys() >= KEYS
        assert (server["server"], floor["server"]) == ("mercado", "floor")
        assert server["seed"] == floor["seed"] == 5
        assert server["actions_persisted"] >= server["actions_accepted"] > 0
        assert floor["submit_actions_per_second"] > 0
        expected = server["submit_actions_per_second"] / floor["submit_actions_per_second"]
        assert result["actions_per_second_of_floor"] == round(expected, 3)
        expected = server["server_cpu_ms_per_action"] / floor["server_cpu_ms_per_action"]
        assert result["cpu_per_action_of_floor"] == round(expected, 3)
    fractions = [r["actions_per_second_of_floor"] for r in rounds]
    assert report["median_actions_per_second_of_floor"] == round(sum(fractions) / 2, 3)
    # The same figures as a table on stderr: a row per round, then the medians.
    rows = [line.split(" | ") for line in table.splitlines() if line.startswith(("| 1 ", "| 2 ", "| median"))]
    assert [row[0] for row in rows] == ["| 1", "| 2", "| median"]
    assert [row[-2] for row in rows] == [
        f"{value:.3f}" for value in [*fractions, report["median_actions_per_second_of_floor"]]
    ]


@pytest.mark.parametrize(
    "options", [["--floor"], ["--db", "postgres"], ["--profile", "server.prof"], ["--nodes", "2"]]
)
def test_bench_server_beside_floor_refuses_what_it_cannot_measure(options: list[str]) -> None:
    args = ["bench", "server", "--beside-floor", "2", *options]
    result = CliRunner(mix_stderr=False).invoke(main, args)
    assert result.exit_code == 2
    assert "floor" in result.stderr


@pytest.mark.postgres
def test_bench_server_on_postgres_measures_sqlite_one_node_and_several() -> None:
    reason = available()
    if reason is not None:
        pytest.skip(f"PostgreSQL is not available: {reason}")
    report, table = invoke("--db", "postgres", "--nodes", "2", "--seed", "3")
    assert report["seed"] == 3
    assert report["matches_concurrent"] == 4
    configurations = report["configurations"]
    assert [(c["database"], c["nodes"]) for c in configurations] == [
        ("sqlite", 1),
        ("sqlite", 2),
        ("postgresql", 1),
        ("postgresql", 2),
    ]
    for config in configurations:
        assert config.keys() >= KEYS
        assert config["baseline_health_calls_per_second"] > 0
        assert config["submit_actions_per_second"] > 0
        assert 0 < config["submit_latency_ms"]["p50"] <= config["submit_latency_ms"]["p99"]
        assert config["updates_delivered_per_second"] >= config["submit_actions_per_second"]
        assert config["events_delivered_per_second"] > 0
        assert config["server_cpu_ms_per_action"] > 0
        assert config["server_peak_memory_mib"] > 0
        assert config["submit_errors"] == config["stream_errors"] == 0
        assert config["actions_persisted"] >= config["actions_accepted"] > 0
        if config["database"] == "sqlite":
            assert config["database_cpu_ms_per_action"] is None  # SQLite runs inside the server
        else:
            assert config["database_cpu_ms_per_action"] > 0
    # The same figures as a table on stderr, one row per configuration.
    rows = [line for line in table.splitlines() if line.startswith("| ") and "node" in line]
    assert [row.split(" | ")[0] for row in rows] == [
        "| SQLite, 1 node",
        "| SQLite, 2 nodes, a file each",
        "| PostgreSQL, 1 node",
        "| PostgreSQL, 2 nodes",
    ]
    # The last column: what a node would serve with a core of its own, by its CPU per action.
    for row, config in zip(rows, configurations, strict=True):
        assert row.split(" | ")[-1] == f"{1000 / config['server_cpu_ms_per_action']:,.0f} |"


def test_bench_server_nodes_on_sqlite_share_nothing() -> None:
    report = bench_server("--nodes", "2", "--seed", "5")
    assert report["nodes"] == 2
    assert report["submit_actions_per_second"] > 0
    assert report["submit_errors"] == report["stream_errors"] == 0
    assert report["updates_delivered_per_second"] >= report["submit_actions_per_second"]
    # Each node wrote its own matches' actions to its own file; every accepted one is in one of them.
    assert report["actions_persisted"] >= report["actions_accepted"] > 0


def test_bench_server_floor_has_no_nodes() -> None:
    args = ["bench", "server", "--floor", "--nodes", "2"]
    result = CliRunner(mix_stderr=False).invoke(main, args)
    assert result.exit_code == 2
    assert "floor" in result.stderr
