"""Ratings: OpenSkill Plackett-Luce from final ranks, and which matches count."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from openskill.models import PlackettLuce

from server.games.mercado import Options
from server.match.records import AI, FORFEITED, LEFT, MatchRecord, SeatRecord
from server.players.ratings import final_ranks, load_ratings, rate, save_ratings, unrated_because
from server.store.records import GUEST, PlayerRecord


def player(number: int, mu: float = 25.0, sigma: float = 25 / 3) -> PlayerRecord:
    return PlayerRecord(f"{number:032x}", GUEST, f"p{number}", 0, mu, sigma)


@pytest.mark.parametrize(
    "ranks",
    [[1, 2], [1, 1], [2, 1, 3], [1, 1, 3], [1, 2, 3, 4], [2, 2, 1, 4], [1, 1, 1, 1]],
)
def test_ratings_move_as_openskill_computes_them(ranks: list[int]) -> None:
    players = [player(i, mu=20.0 + 3 * i, sigma=8.0 - i) for i in range(len(ranks))]
    after = rate(players, ranks)
    model = PlackettLuce()
    expected = model.rate(
        [[model.rating(mu=p.mu, sigma=p.sigma)] for p in players], ranks=[float(r) for r in ranks]
    )
    for new, (team,) in zip(after, expected, strict=True):
        assert new.mu == pytest.approx(team.mu)
        assert new.sigma == pytest.approx(team.sigma)
        assert new.display_rating == pytest.approx(team.mu - 3 * team.sigma)
    assert [p.rated_matches for p in after] == [1] * len(ranks)
    assert [p.wins for p in after] == [int(rank == 1) for rank in ranks]


def test_the_winner_gains_and_the_loser_loses() -> None:
    winner, loser = rate([player(1), player(2)], [1, 2])
    assert winner.mu > 25 > loser.mu
    assert winner.sigma < 25 / 3 and loser.sigma < 25 / 3


def record(**changes: object) -> MatchRecord:
    seats = [
        SeatRecord(0, player_id="a" * 32, token_hash="x"),
        SeatRecord(1, player_id="b" * 32, token_hash="y"),
    ]
    base = MatchRecord("0" * 32, Options(players=2), 1, 0, seats)
    return replace(base, **changes)  # type: ignore[arg-type]


def test_a_match_of_two_players_with_a_drawn_seed_counts() -> None:
    assert unrated_because(record(), [10, 10]) is None


@pytest.mark.parametrize(
    ("changes", "reason"),
    [
        ({"unrated": True}, "created unrated"),
        ({"hot_seat": True}, "hot-seat"),
        ({"seed_chosen": True}, "seed was chosen"),
    ],
)
def test_what_the_creator_chose_makes_a_match_unrated(changes: dict[str, object], reason: str) -> None:
    why = unrated_because(record(**changes), [10, 10])
    assert why is not None and reason in why


def test_an_anonymous_seat_or_one_player_twice_makes_a_match_unrated() -> None:
    anonymous = record(
        seats=[SeatRecord(0, player_id="a" * 32, token_hash="x"), SeatRecord(1, token_hash="y")]
    )
    assert "anonymous" in (unrated_because(anonymous, [5, 5]) or "")
    twice = record(
        seats=[
            SeatRecord(0, player_id="a" * 32, token_hash="x"),
            SeatRecord(1, player_id="a" * 32, token_hash="y"),
        ]
    )
    assert "two seats" in (unrated_because(twice, [5, 5]) or "")
    # A bot level is one player: the same level in two seats is one player twice.
    bots = record(
        seats=[
            SeatRecord(0, "easy", player_id="bot:easy", token_hash="x"),
            SeatRecord(1, "easy", player_id="bot:easy", token_hash="y"),
        ]
    )
    assert "two seats" in (unrated_because(bots, [5, 5]) or "")
    # Open seats of a waiting match can still be taken by players.
    waiting = record(seats=[SeatRecord(0, player_id="a" * 32, token_hash="x"), SeatRecord(1)])
    assert unrated_because(waiting, None) is None


def test_the_ai_playing_more_than_half_of_a_seats_turns_makes_it_unrated() -> None:
    seats = [
        SeatRecord(0, player_id="a" * 32, token_hash="x", played_by=AI, ai_turns=5),
        SeatRecord(1, player_id="b" * 32, token_hash="y"),
    ]
    assert unrated_because(record(seats=seats), [10, 10]) is None  # half: still rated
    seats[0] = replace(seats[0], ai_turns=6)
    assert "seat 0" in (unrated_because(record(seats=seats), [10, 10]) or "")
    assert unrated_because(record(seats=seats), None) is None  # before the end: it may still count


def test_seats_that_left_or_forfeited_are_ranked_last_and_the_match_still_counts() -> None:
    seats = [
        SeatRecord(0, player_id="a" * 32, token_hash="x", played_by=LEFT, ai_turns=0),
        SeatRecord(1, player_id="b" * 32, token_hash="y"),
        SeatRecord(2, player_id="c" * 32, token_hash="z", played_by=FORFEITED),
        SeatRecord(3, player_id="d" * 32, token_hash="w"),
    ]
    match = record(seats=seats, options=Options(players=4))
    assert unrated_because(match, [9, 9, 9, 9]) is None
    assert final_ranks(match, [1, 3, 2, 4]) == [3, 1, 3, 2]


def test_a_ratings_file_round_trips(tmp_path: Path) -> None:
    path = tmp_path / "ratings.json"
    rated = {"bot:easy": player(1, 21.5, 1.25), "bot:hard": player(2, 30.0, 0.9)}
    save_ratings(path, rated, games=40)
    assert load_ratings(path) == {"bot:easy": (21.5, 1.25), "bot:hard": (30.0, 0.9)}
    path.write_text('{"ratings": {"bot:easy": {"mu": 1}}}')
    with pytest.raises(ValueError, match="not a ratings file"):
        load_ratings(path)
    path.write_text('{"ratings": {"bot:easy": {"mu": 1, "sigma": -1}}}')
    with pytest.raises(ValueError, match="out of range"):
        load_ratings(path)
