"""``mercado bench failover`` end to end, on its shortest schedule: one fault (a server killed and
started again), one match of each game, real servers, a throwaway PostgreSQL cluster. The checks
themselves are tested on a schedule with every fault in tests/e2e/test_faults.py."""

from __future__ import annotations

import json
from typing import Any

import pytest
from click.testing import CliRunner

from server.bench.postgres import available
from server.cli import main

pytestmark = [pytest.mark.postgres, pytest.mark.slow]


def test_bench_failover_reports_the_faults_each_check_and_the_longest_stand_still() -> None:
    reason = available()
    if reason is not None:
        pytest.skip(f"PostgreSQL is not available: {reason}")
    args = ["bench", "failover", "--duration", "10", "--every", "10", "--matches", "1"]
    result = CliRunner(mix_stderr=False).invoke(main, args, catch_exceptions=False)
    assert result.exit_code == 0, result.stdout + result.stderr
    report: dict[str, Any] = json.loads(result.stdout)
    assert report["faults"] == {"node_kills": 1}
    assert report["held"], report["checks"]
    assert sorted(report["play"]["matches"]) == ["leilao", "mercado", "oregano"]
    assert report["checks"]["matches_finished"]["longest_still_seconds"] >= 0
