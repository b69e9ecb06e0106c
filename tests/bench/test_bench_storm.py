from __future__ import annotations

import json

from click.testing import CliRunner

from server.cli import main


def test_bench_storm_reports_memory_at_start_after_and_settled() -> None:
    args = ["bench", "storm", "--streams", "300"]
    result = CliRunner(mix_stderr=False).invoke(main, args, catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["memory_at_start_mib"] > 0
    [storm] = report["storms"]
    assert storm["streams"] == 300 and storm["connections"] >= 1
    assert storm["memory_after_mib"] > 0 and storm["memory_settled_mib"] > 0
    assert storm["settled_growth"].endswith("%")
