"""``mercado bench predict``: a whole match against a real server's stand-in, and its figures."""

from __future__ import annotations

import json

from click.testing import CliRunner

from server.cli import main


def test_the_command_reports_each_way_s_rate_over_a_whole_match() -> None:
    args = ["bench", "predict", "--game", "leilao", "--level", "easy", "--samples", "1", "--seed", "5"]
    result = CliRunner(mix_stderr=False).invoke(main, args, catch_exceptions=False)
    assert result.exit_code == 0, result.stdout + result.stderr
    report = json.loads(result.stdout)
    assert (report["game"], report["level"], report["matches"], report["samples"]) == ("leilao", "easy", 1, 1)
    assert report["sealed_choices"] >= 5  # a match of at most 20 rounds: a bid a round, and re-bids
    for way in ("same_seed", "most_frequent"):
        assert 0 <= report[way]["predicted"] <= report["sealed_choices"]
        low, high = report[way]["rate"]["ci95"]
        assert low <= report[way]["rate"]["mean"] <= high
