from __future__ import annotations

import json

from click.testing import CliRunner

from server.bench.memory import LIVE_ACTIONS
from server.cli import main


def test_bench_memory_measures_matches_in_play_and_finished() -> None:
    args = ["bench", "memory", "--matches", "40"]
    result = CliRunner(mix_stderr=False).invoke(main, args, catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    results = json.loads(result.stdout)["results"]
    assert [r["players"] for r in results] == [2, 4]
    for figures in results:
        assert figures["matches"] == 40 and figures["live_match_actions"] == LIVE_ACTIONS
        # Played to their ends: a game lasts longer than the actions of a match in play.
        assert figures["finished_match_actions_mean"] > LIVE_ACTIONS
        # Forty matches grow the process by megabytes: every match holds its history.
        assert figures["kib_per_finished_match"] > figures["kib_per_live_match"] > 0
