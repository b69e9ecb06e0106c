"""The arena: rotating seats, pooled per-bot statistics, sound intervals, and ``mercado arena``."""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from ai.arena import GameOutcome, estimate, play_game, rate_estimate, seating, summarize
from ai.mcts import win_shares
from server.cli import main
from server.games.mercado import Options, apply, new_game, player_view

# --- seating -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
def test_each_bot_occupies_each_seat_equally_often(players: int) -> None:
    bots = [f"bot{n}" for n in range(players)]
    for rounds in (1, 3):
        games = rounds * players
        tally = Counter(
            (seat, name) for g in range(games) for seat, name in enumerate(seating(bots, players, g))
        )
        assert tally == Counter({(seat, name): rounds for seat in range(players) for name in bots})


@pytest.mark.parametrize("players", [2, 3, 4])
def test_no_bot_keeps_the_first_seat(players: int) -> None:
    bots = ["greedy", "random"]
    first = {seating(bots, players, g)[0] for g in range(players)}
    assert first == {"greedy", "random"}
    assert seating(bots, players, 0)[0] == "greedy"
    assert seating(bots, players, 1)[0] != "greedy"


def test_the_last_bot_fills_missing_seats() -> None:
    assert seating(["a", "b"], 4, 0) == ["a", "b", "b", "b"]
    assert seating(["a"], 3, 0) == ["a", "a", "a"]
    assert seating(["a", "b", "c"], 3, 0) == ["a", "b", "c"]
    for game in range(8):
        line = seating(["a", "b"], 4, game)
        assert sorted(line) == ["a", "b", "b", "b"]
        assert line.index("a") == (-game) % 4
    # Over a full rotation the filling bot sits in each seat three times, the other once.
    tally = Counter((seat, name) for g in range(4) for seat, name in enumerate(seating(["a", "b"], 4, g)))
    assert all(tally[(seat, "a")] == 1 and tally[(seat, "b")] == 3 for seat in range(4))


# --- games ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("players", "game"), [(2, 0), (2, 1), (3, 2), (4, 1)])
def test_play_game_reports_a_finished_game(players: int, game: int) -> None:
    bots = ["greedy", "random"]
    outcome = play_game(bots, players, seed=40 + game, game=game)
    assert outcome.bots == tuple(seating(bots, players, game))
    assert outcome.seed == 40 + game
    assert len(outcome.scores) == len(outcome.margins) == len(outcome.wins) == players
    assert math.isclose(sum(outcome.wins), 1.0)
    best = max(outcome.scores)
    for p, score in enumerate(outcome.scores):
        assert outcome.margins[p] == score - max(s for q, s in enumerate(outcome.scores) if q != p)
        if outcome.wins[p] > 0:
            assert score == best
    # Seeded: the same game again is the same game.
    assert play_game(bots, players, seed=40 + game, game=game) == outcome


def test_play_game_with_public_money_and_a_single_bot_name() -> None:
    outcome = play_game(["random"], 2, seed=3, game=0, money="public")
    assert outcome.bots == ("random", "random")
    assert math.isclose(sum(outcome.wins), 1.0)
    assert all(0.0 <= w <= 1.0 for w in outcome.wins)


def test_shared_first_place_splits_the_win() -> None:
    assert win_shares((1, 1, 3)) == [0.5, 0.5, 0.0]
    assert win_shares((1, 1, 1)) == [1 / 3, 1 / 3, 1 / 3]
    outcomes = [
        GameOutcome(1, ("a", "b", "c"), (5, 5, 2), (0, 0, -3), tuple(win_shares((1, 1, 3)))),
        GameOutcome(2, ("c", "a", "b"), (3, 3, 3), (0, 0, 0), tuple(win_shares((1, 1, 1)))),
    ]
    for outcome in outcomes:
        assert math.isclose(sum(outcome.wins), 1.0)
    rates = {s.bot: s.win_rate.mean for s in summarize(outcomes)}
    assert math.isclose(rates["a"], (0.5 + 1 / 3) / 2)
    assert math.isclose(rates["c"], (0.0 + 1 / 3) / 2)


def test_the_engine_agrees_with_a_game_outcome() -> None:
    """play_game's scores are those of the same seeded game replayed with the same bots' choices."""
    from ai.bots import make_bot
    from ai.observation import CoinTracker

    seed, players = 9, 3
    outcome = play_game(["greedy", "random"], players, seed=seed, game=1)
    names = seating(["greedy", "random"], players, 1)
    state = new_game(Options(players=players, money="hidden"), seed)
    bots = [make_bot(name, seed * 31 + p) for p, name in enumerate(names)]
    trackers = [CoinTracker(players) for _ in range(players)]
    while not state.is_terminal:
        actor = state.current_player
        view = player_view(state, actor)
        action = bots[actor].choose(view, trackers[actor].completed(view)["coins"])
        apply(state, action)
        for seat, tracker in enumerate(trackers):
            tracker.observe(player_view(state, seat), actor, action)
    assert state.result is not None
    assert outcome.scores == state.result.scores


# --- statistics ----------------------------------------------------------------------------------------


def outcome(seed: int, bots: tuple[str, ...], scores: tuple[int, ...]) -> GameOutcome:
    best = max(scores)
    winners = scores.count(best)
    return GameOutcome(
        seed=seed,
        bots=bots,
        scores=scores,
        margins=tuple(s - max(o for q, o in enumerate(scores) if q != p) for p, s in enumerate(scores)),
        wins=tuple(1.0 / winners if s == best else 0.0 for s in scores),
    )


def test_summarize_pools_the_seats_of_the_same_bot() -> None:
    outcomes = [
        outcome(0, ("greedy", "random", "random"), (10, 4, 2)),
        outcome(1, ("random", "random", "greedy"), (9, 3, 5)),
        outcome(2, ("random", "greedy", "random"), (1, 6, 6)),
    ]
    summaries = {s.bot: s for s in summarize(outcomes)}
    assert list(summaries) == ["greedy", "random"]  # in order of first appearance
    greedy, random_ = summaries["greedy"], summaries["random"]
    assert greedy.seats_played == 3 and random_.seats_played == 6
    assert math.isclose(greedy.win_rate.mean, (1 + 0 + 0.5) / 3)
    assert math.isclose(random_.win_rate.mean, (0 + 0 + 1 + 0 + 0 + 0.5) / 6)
    assert math.isclose(greedy.score.mean, (10 + 5 + 6) / 3)
    assert math.isclose(random_.score.mean, (4 + 2 + 9 + 3 + 1 + 6) / 6)
    assert math.isclose(greedy.margin.mean, (6 - 4 + 0) / 3)
    # Every seat's win share is counted once: the pooled win rates weigh back to one win per game.
    total = sum(s.win_rate.mean * s.seats_played for s in summaries.values())
    assert math.isclose(total, len(outcomes))
    report = greedy.to_json()
    assert report["bot"] == "greedy" and report["seats_played"] == 3
    assert set(report) == {"bot", "seats_played", "win_rate", "score", "margin", "choices"}


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([0.0, 1.0, 0.5, 1 / 3, 0.25]), min_size=1, max_size=300))
def test_wilson_interval_is_within_unit_range_and_contains_the_mean(values: list[float]) -> None:
    rate = rate_estimate(values)
    assert math.isclose(rate.mean, sum(values) / len(values))
    assert 0.0 <= rate.low <= rate.mean + 1e-12
    assert rate.mean - 1e-12 <= rate.high <= 1.0


def test_wilson_interval_known_values() -> None:
    # 5 of 10: the Wilson 95% interval is about [0.237, 0.763].
    half = rate_estimate([1.0] * 5 + [0.0] * 5)
    assert math.isclose(half.low, 0.2366, abs_tol=1e-3) and math.isclose(half.high, 0.7634, abs_tol=1e-3)
    # All wins: the upper end is 1 but the lower end is well below it (unlike a normal interval).
    wins = rate_estimate([1.0] * 10)
    assert wins.high == 1.0 and 0.65 < wins.low < 0.75
    losses = rate_estimate([0.0] * 10)
    assert losses.low == 0.0 and 0.25 < losses.high < 0.35
    # More games, narrower interval.
    wide, narrow = rate_estimate([1.0, 0.0] * 5), rate_estimate([1.0, 0.0] * 500)
    assert narrow.high - narrow.low < wide.high - wide.low


def test_normal_estimate() -> None:
    single = estimate([3.0])
    assert (single.mean, single.low, single.high) == (3.0, 3.0, 3.0)
    e = estimate([1.0, 2.0, 3.0, 4.0])
    assert e.mean == 2.5 and e.low < 2.5 < e.high
    assert math.isclose(e.high - e.mean, 1.96 * math.sqrt(5 / 3) / 2)
    assert estimate([2.0, 2.0]).to_json() == {"mean": 2.0, "ci95": [2.0, 2.0]}


# --- the command ---------------------------------------------------------------------------------------


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # matplotlib's use of pyparsing
def test_arena_command_writes_a_plot_and_json(tmp_path: Path) -> None:
    plot, report = tmp_path / "out.png", tmp_path / "out.json"
    args = ["arena", "--games", "4", "--bots", "greedy,random", "--jobs", "1"]
    result = CliRunner(mix_stderr=False).invoke(
        main, [*args, "--plot", str(plot), "--json-out", str(report), "--json"]
    )
    assert result.exit_code == 0, result.stderr + result.output
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert plot.stat().st_size > 1000
    data = json.loads(report.read_text(encoding="utf-8"))
    assert json.loads(result.stdout) == data
    assert "greedy" in result.stderr  # the table, out of the JSON's way
    assert data["games"] == 4 and data["players"] == 2 and data["bots"] == ["greedy", "random"]
    results = {r["bot"]: r for r in data["results"]}
    assert set(results) == {"greedy", "random"}
    assert all(r["seats_played"] == 4 for r in results.values())
    assert math.isclose(sum(r["win_rate"]["mean"] for r in results.values()), 1.0, abs_tol=1e-3)
    for r in results.values():
        low, high = r["win_rate"]["ci95"]
        assert 0.0 <= low <= r["win_rate"]["mean"] <= high <= 1.0


def test_arena_prints_only_its_table_unless_asked_for_json() -> None:
    result = CliRunner(mix_stderr=False).invoke(
        main, ["arena", "--games", "2", "--bots", "greedy,random", "--jobs", "1"]
    )
    assert result.exit_code == 0, result.stderr
    assert "greedy" in result.stdout and "{" not in result.stdout


def test_arena_command_refuses_an_unknown_bot(tmp_path: Path) -> None:
    report = tmp_path / "out.json"
    args = ["arena", "--games", "1", "--bots", "greedy,nobody", "--jobs", "1", "--json-out", str(report)]
    result = CliRunner(mix_stderr=False).invoke(main, args)
    assert result.exit_code == 2
    assert "nobody" in result.stderr
    assert not report.exists()


def test_summarize_lists_each_bot_once_when_it_holds_several_seats() -> None:
    outcome = GameOutcome(
        seed=1,
        bots=("a", "b", "b", "b"),
        scores=(9, 1, 2, 3),
        margins=(6, -8, -7, -6),
        wins=(1.0, 0.0, 0.0, 0.0),
    )
    summaries = summarize([outcome])
    assert [s.bot for s in summaries] == ["a", "b"]
    assert summaries[1].seats_played == 3
