"""``mercado bench peer`` end to end, with tiny parameters: boardgame.io's server, one load process."""

from __future__ import annotations

import json
from typing import Any

import pytest
from click.testing import CliRunner

from server.cli import main

pytestmark = pytest.mark.slow  # installs boardgame.io (npm ci) on first use


def bench_peer(*options: str) -> dict[str, Any]:
    args = ["bench", "peer", "--matches", "4", "--duration", "2", "--clients", "1", *options]
    result = CliRunner(mix_stderr=False).invoke(main, args, catch_exceptions=False)
    assert result.exit_code == 0, result.stdout + result.stderr
    report: dict[str, Any] = json.loads(result.stdout)
    return report


def test_bench_peer_plays_boardgame_io_in_memory() -> None:
    report = bench_peer()
    assert report["server"] == "boardgame.io 0.50.2"
    assert report["storage"] == "memory"
    assert report["moves_per_second"] > 0
    assert report["server_cpu_ms_per_move"] > 0
    assert 0 < report["move_latency_ms"]["p50"] <= report["move_latency_ms"]["p99"]
    # Both seats watch: every move reaches two sockets.
    assert report["updates_delivered_per_second"] >= report["moves_per_second"]
    assert report["matches_finished"] > 0  # and are replaced: a game is 48 moves
    assert report["matches_started"] > report["matches_finished"]
    assert report["load_errors"] == 0
    assert report["files_stored"] == 0
    assert report["server_peak_memory_mib"] > 0


def test_bench_peer_disk_storage_writes_the_matches() -> None:
    report = bench_peer("--storage", "disk")
    assert report["storage"] == "disk"
    assert report["moves_per_second"] > 0
    assert report["files_stored"] >= report["matches_started"]  # a state and a metadata file a match
    assert report["load_errors"] == 0
