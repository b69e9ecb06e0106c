from __future__ import annotations

import json

from click.testing import CliRunner

from server.cli import main


def test_bench_actions_measures_submitting_and_rendering_per_action() -> None:
    args = ["bench", "actions", "--matches", "4", "--actions", "300"]
    result = CliRunner(mix_stderr=False).invoke(main, args, catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    results = json.loads(result.stdout)["results"]
    assert [r["players"] for r in results] == [2, 4]
    for figures in results:
        # More actions than four games last: finished matches are replaced by new ones.
        assert figures["actions"] == 300 and figures["matches"] == 4
        assert figures["submit_cpu_us_per_action"] > 0 and figures["render_cpu_us_per_action"] > 0
        total = figures["submit_cpu_us_per_action"] + figures["render_cpu_us_per_action"]
        assert abs(figures["cpu_us_per_action"] - total) < 0.2
        # The SQLite writer's thread works too: the event loop's share is part of the process's.
        assert 0 < figures["event_loop_cpu_us_per_action"] <= figures["cpu_us_per_action"]
