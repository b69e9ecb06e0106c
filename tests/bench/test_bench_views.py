"""``mercado bench views`` end to end, with few calls: real servers, a throwaway PostgreSQL cluster."""

from __future__ import annotations

import json
from typing import Any

import pytest
from click.testing import CliRunner

from server.bench.postgres import available
from server.cli import main

pytestmark = pytest.mark.postgres


def test_bench_views_reports_a_view_on_sqlite_and_on_postgresql_current_and_behind() -> None:
    reason = available()
    if reason is not None:
        pytest.skip(f"PostgreSQL is not available: {reason}")
    args = ["bench", "views", "--calls", "20"]
    result = CliRunner(mix_stderr=False).invoke(main, args, catch_exceptions=False)
    assert result.exit_code == 0, result.stdout + result.stderr
    report: dict[str, Any] = json.loads(result.stdout)
    assert report["calls"] == 20
    measured = [
        report["sqlite_one_server"],
        report["postgresql_two_servers_match_current"],
        report["postgresql_two_servers_after_a_move_through_the_other"],
    ]
    for figures in measured:
        assert 0 < figures["latency_ms"]["p50"] <= figures["latency_ms"]["p99"]
        assert figures["server_cpu_ms_per_call"] >= 0
    assert "database_cpu_ms_per_call" not in measured[0]
    assert measured[1]["database_cpu_ms_per_call"] >= 0
    assert report["read_your_writes"].keys() == {"latency_ms_p50", "server_cpu_ms_per_call"}
