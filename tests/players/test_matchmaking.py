"""Matchmaking's grouping: close ratings first, a window that widens with waiting, bots when allowed."""

from __future__ import annotations

import random

from server.players.matchmaking import WINDOW_MAX, WINDOW_START, Seeker, group, window

BOTS = {"easy": 18.0, "medium": 26.0, "hard": 33.0}


def seeker(
    name: str,
    rating: float,
    since: float = 0.0,
    players: int = 2,
    allow_ai: bool = False,
    game: str = "mercado",
) -> Seeker:
    return Seeker(name, name, rating, players, allow_ai, since, game)


def names(groups: list) -> list[list[str]]:  # type: ignore[type-arg]
    return [sorted(s.player_id for s in g.seekers) for g in groups]


def test_the_window_starts_narrow_and_widens_with_waiting_up_to_anyone() -> None:
    assert window(0) == WINDOW_START
    assert window(5) > window(1) > window(0)
    assert window(10_000) == WINDOW_MAX


def test_players_within_the_window_are_paired_and_the_closest_go_together() -> None:
    queue = [seeker("a", 25.0), seeker("b", 26.0), seeker("c", 40.0), seeker("d", 25.5)]
    assert names(group(queue, now=0.0, ai_wait=15, bot_ratings={})) == [["a", "d"]]


def test_players_too_far_apart_wait_until_their_windows_widen() -> None:
    queue = [seeker("a", 20.0), seeker("b", 30.0)]
    assert group(queue, now=0.0, ai_wait=15, bot_ratings={}) == []
    # 10 apart: both windows must reach 10.
    wait = next(t for t in range(100) if window(t) >= 10)
    assert group(queue, now=wait - 1, ai_wait=99, bot_ratings={}) == []
    assert names(group(queue, now=wait, ai_wait=99, bot_ratings={})) == [["a", "b"]]


def test_a_newcomer_does_not_pull_in_someone_whose_window_is_still_narrow() -> None:
    # "a" waited long (wide window), "b" just came and is far from "a": not yet.
    queue = [seeker("a", 20.0, since=0.0), seeker("b", 28.0, since=30.0)]
    assert group(queue, now=30.0, ai_wait=99, bot_ratings={}) == []


def test_the_longest_waiting_player_is_served_first() -> None:
    queue = [seeker("new", 25.0, since=9.0), seeker("old", 25.2, since=0.0), seeker("mid", 24.9, since=5.0)]
    (pair,) = group(queue, now=10.0, ai_wait=99, bot_ratings={})
    assert "old" in [s.player_id for s in pair.seekers]


def test_matches_are_made_per_player_count() -> None:
    queue = [
        seeker("a", 25, players=3),
        seeker("b", 25, players=3),
        seeker("c", 25, players=2),
        seeker("d", 25, players=3),
    ]
    groups = group(queue, now=0.0, ai_wait=99, bot_ratings={})
    assert names(groups) == [["a", "b", "d"]]


def test_matches_are_made_per_game() -> None:
    queue = [
        seeker("a", 25, game="leilao"),
        seeker("b", 25),
        seeker("c", 25, game="oregano"),
        seeker("d", 25.5, game="leilao"),
    ]
    groups = group(queue, now=0.0, ai_wait=99, bot_ratings={})
    assert names(groups) == [["a", "d"]] and groups[0].game == "leilao"


def test_bots_fill_a_match_with_their_ratings_in_its_game() -> None:
    lonely = [seeker("a", 32.0, allow_ai=True, game="leilao"), seeker("b", 32.0, allow_ai=True)]
    in_leilao = {"easy": 31.0, "medium": 25.0, "hard": 20.0}
    (match,) = group(lonely, now=15.0, ai_wait=15, bot_ratings={"leilao": in_leilao})
    assert names([match]) == [["a"]] and match.bots == ["easy"] and match.game == "leilao"
    matches = group(lonely, now=15.0, ai_wait=15, bot_ratings={"leilao": in_leilao, "mercado": BOTS})
    assert [(m.game, m.bots) for m in matches] == [("leilao", ["easy"]), ("mercado", ["hard"])]


def test_no_player_is_ever_in_two_matches() -> None:
    rng = random.Random(7)
    games = ["mercado", "oregano", "leilao"]
    queue = [
        seeker(
            f"p{i}",
            rng.gauss(25, 8),
            since=rng.uniform(0, 60),
            players=rng.choice([2, 3, 4]),
            allow_ai=rng.random() < 0.3,
            game=rng.choice(games),
        )
        for i in range(400)
    ]
    groups = group(queue, now=60.0, ai_wait=15, bot_ratings={game: BOTS for game in games})
    seated = [s.player_id for g in groups for s in g.seekers]
    assert len(seated) == len(set(seated))
    for g in groups:
        assert len(g.seekers) + len(g.bots) == g.seekers[0].players
        assert all((s.game, s.players) == (g.game, g.seekers[0].players) for s in g.seekers)
        assert g.spread <= min(s.window(60.0) for s in g.seekers)


def test_bots_fill_a_match_only_for_a_player_who_allows_them_after_the_wait() -> None:
    lonely = seeker("a", 32.0, allow_ai=True)
    assert group([lonely], now=14.0, ai_wait=15, bot_ratings={"mercado": BOTS}) == []
    (match,) = group([lonely], now=15.0, ai_wait=15, bot_ratings={"mercado": BOTS})
    assert names([match]) == [["a"]] and match.bots == ["hard"]  # the level closest to 32
    refuses = seeker("b", 32.0, allow_ai=False)
    assert group([refuses], now=100.0, ai_wait=15, bot_ratings={"mercado": BOTS}) == []


def test_a_player_who_allows_ai_is_matched_with_people_close_to_it_before_bots() -> None:
    queue = [
        seeker("a", 20.0, players=3, allow_ai=True),
        seeker("b", 21.0, players=3, allow_ai=True),
        seeker("c", 50.0, players=3, allow_ai=True, since=20.0),
    ]
    (match,) = group(queue, now=20.0, ai_wait=15, bot_ratings={"mercado": BOTS})
    assert names([match]) == [["a", "b"]] and match.bots == ["easy"]
