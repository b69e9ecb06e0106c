"""``mercado bench matchmaking``: the pure grouping over a simulated queue, and its figures."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from server.bench.matchmaking import bot_means, percentile, simulate
from server.cli import main
from server.players.matchmaking import TICK_SECONDS, WINDOW_MAX, Seeker, window
from server.players.ratings import save_ratings
from server.store.records import BOT, DEFAULT_MU, PlayerRecord

BOTS = {"easy": 20.0, "medium": 25.0, "hard": 30.0}


def bench(*options: str) -> dict[str, Any]:
    result = CliRunner().invoke(main, ["bench", "matchmaking", *options], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    report: dict[str, Any] = json.loads(result.output)
    return report


def check_sane(report: dict[str, Any]) -> None:
    """What holds of any run."""
    assert report["players_matched"] + report["players_unmatched"] == report["players"]
    sizes = report["matches_by_size"]
    assert sum(sizes.values()) == report["matches"]
    assert report["matches_with_bots"] <= report["matches"]
    assert 0.0 <= report["matched_with_bots_share"] <= 1.0
    wait = report["seconds_to_match"]
    assert 0.0 <= wait["median"] <= wait["p99"] <= wait["max"]
    spread = report["rating_spread"]
    assert 0.0 <= spread["mean"] <= spread["max"] <= spread["window_max"] == WINDOW_MAX
    grouping = report["grouping"]
    assert grouping["wall_seconds"] > 0 and grouping["ticks"] > 0
    assert 0 < grouping["peak_queue"] <= report["players"]
    assert grouping["longest_tick_ms"] / 1000 <= grouping["wall_seconds"]


def test_every_player_who_allows_bots_is_matched_by_the_ai_wait() -> None:
    report = bench(
        "--players", "300", "--span", "20", "--allow-ai-share", "1", "--ai-wait", "5", "--seed", "3"
    )
    check_sane(report)
    assert report["players_matched"] == 300 and report["players_unmatched"] == 0
    # Bots fill a seat at the first tick after the AI wait, at the latest.
    assert report["seconds_to_match"]["max"] <= 5 + TICK_SECONDS + 1e-9
    assert set(report["matches_by_size"]) == {"2"}
    assert report["seed"] == 3 and report["size"] == "2"


def test_without_bots_only_people_are_matched() -> None:
    report = bench("--players", "200", "--allow-ai-share", "0", "--seed", "5")
    check_sane(report)
    assert report["matches_with_bots"] == 0 and report["matched_with_bots_share"] == 0
    assert report["players_matched"] == 2 * report["matches"]
    assert report["players_unmatched"] <= 1  # two left would match once their windows are wide enough


def test_a_mix_of_sizes_is_seeded() -> None:
    report = bench("--players", "150", "--size", "mix", "--allow-ai-share", "0.3", "--seed", "9")
    check_sane(report)
    assert set(report["matches_by_size"]) <= {"2", "3", "4"}
    seats = sum(int(size) * n for size, n in report["matches_by_size"].items())
    assert seats >= report["players_matched"]  # bots take the other seats
    again = bench("--players", "150", "--size", "mix", "--allow-ai-share", "0.3", "--seed", "9")
    del report["grouping"], again["grouping"]  # wall time differs; the rest is the seed's
    assert again == report


def test_the_bots_come_from_a_ratings_file(tmp_path: Path) -> None:
    path = tmp_path / "ratings.json"
    save_ratings(path, {"bot:hard": PlayerRecord("bot:hard", BOT, "AI (hard)", mu=31.5, sigma=1.0)}, 10)
    report = bench("--players", "20", "--bot-ratings", str(path))
    unrated = dict.fromkeys(("easy", "medium", "hard", "expert"), DEFAULT_MU)
    assert report["bot_ratings"] == {**unrated, "hard": 31.5}
    assert bot_means(None) == unrated
    path.write_text("{}", encoding="utf-8")
    result = CliRunner().invoke(main, ["bench", "matchmaking", "--bot-ratings", str(path)])
    assert result.exit_code == 2 and "not a ratings file" in result.output


# --- the simulation, on queues small enough to follow by hand ------------------------------------------


def seeker(name: str, rating: float, since: float, players: int = 2, allow_ai: bool = False) -> Seeker:
    return Seeker(name, name, rating, players, allow_ai, since)


def test_two_close_players_are_matched_at_once() -> None:
    made, left, cost = simulate([seeker("a", 25, 0.0), seeker("b", 26, 0.0)], 15.0, BOTS)
    assert left == [] and cost["ticks"] == 1 and cost["peak_queue"] == 2
    [(at, found)] = made
    assert at == 0.0 and {s.player_id for s in found.seekers} == {"a", "b"} and found.bots == []


def test_players_far_apart_wait_until_both_windows_reach_each_other() -> None:
    made, left, _ = simulate([seeker("a", 20, 0.0), seeker("b", 30, 1.0)], 60.0, BOTS)
    [(at, found)] = made
    # b's window (the narrower) must reach 10: at 8 s of waiting, on the ticker's quarter seconds.
    assert window(at - 1.0) >= 10 > window(at - 1.0 - TICK_SECONDS)
    assert at == 9.0 and found.spread == 10 and left == []


def test_a_lone_player_who_allows_bots_gets_them_after_the_wait() -> None:
    made, left, _ = simulate([seeker("a", 29, 2.0, players=3, allow_ai=True)], 4.0, BOTS)
    [(at, found)] = made
    assert at == 6.0 and found.bots == ["hard", "hard"] and left == []


def test_a_player_no_one_can_join_is_left_and_the_simulation_ends() -> None:
    arriving = [seeker("a", 25, 0.0), seeker("b", 25, 0.5, players=3), seeker("c", 80, 0.5, players=3)]
    made, left, cost = simulate(arriving, 15.0, {})
    assert made == [] and {s.player_id for s in left} == {"a", "b", "c"}
    # Ended at the tick where the last to come had waited long enough for the widest window.
    last_tick = cost["ticks"] - 1
    assert window(last_tick * TICK_SECONDS - 0.5) == WINDOW_MAX
    assert window((last_tick - 1) * TICK_SECONDS - 0.5) < WINDOW_MAX


def test_the_ticker_restarts_with_the_next_player_into_an_empty_queue() -> None:
    arriving = [seeker("a", 25, 0.0), seeker("b", 25, 0.1), seeker("c", 25, 10.03), seeker("d", 25, 10.03)]
    made, _, cost = simulate(arriving, 15.0, BOTS)
    assert [at for at, _ in made] == [0.25, 10.03]
    assert cost["ticks"] == 3


@pytest.mark.parametrize(("fraction", "expected"), [(0.5, 2.0), (0.99, 4.0), (0.0, 1.0)])
def test_percentile_is_nearest_rank(fraction: float, expected: float) -> None:
    assert percentile([4.0, 1.0, 3.0, 2.0], fraction) == expected
    assert percentile([], fraction) == 0.0
