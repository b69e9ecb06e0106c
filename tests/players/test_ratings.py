"""Ratings: OpenSkill Plackett-Luce from final ranks, and which matches count: a seat that gave up
(left, forfeited, or went idle) is ranked last, a match that was not played counts for nobody, and a
new player who gave up hands nobody a win."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from openskill.models import PlackettLuce

from server.games.leilao import RULES as LEILAO
from server.games.mercado import Options, legal_actions
from server.games.registry import GAMES
from server.match.inputs import stand_in_request_id
from server.match.match import restore
from server.match.records import AI, FORFEITED, LEFT, OWNER, MatchRecord, SeatRecord
from server.players.ratings import (
    NEW_PLAYER_MATCHES,
    Played,
    final_ranks,
    load_ratings,
    played,
    rate,
    rated_players,
    save_ratings,
    unrated_because,
)
from server.store.records import GUEST, PlayerRecord

FULL = Played([10, 10], [10, 10])  # two seats that each played their ten turns


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
    assert unrated_because(record(), FULL) is None


@pytest.mark.parametrize(
    ("changes", "reason"),
    [
        ({"unrated": True}, "created unrated"),
        ({"hot_seat": True}, "hot-seat"),
        ({"seed_chosen": True}, "seed was chosen"),
    ],
)
def test_what_the_creator_chose_makes_a_match_unrated(changes: dict[str, object], reason: str) -> None:
    why = unrated_because(record(**changes), FULL)
    assert why is not None and reason in why


def test_an_anonymous_seat_or_one_player_twice_makes_a_match_unrated() -> None:
    anonymous = record(
        seats=[SeatRecord(0, player_id="a" * 32, token_hash="x"), SeatRecord(1, token_hash="y")]
    )
    assert "anonymous" in (unrated_because(anonymous, FULL) or "")
    twice = record(
        seats=[
            SeatRecord(0, player_id="a" * 32, token_hash="x"),
            SeatRecord(1, player_id="a" * 32, token_hash="y"),
        ]
    )
    assert "two seats" in (unrated_because(twice, FULL) or "")
    # A bot level is one player: the same level in two seats is one player twice.
    bots = record(
        seats=[
            SeatRecord(0, "easy", player_id="bot:easy", token_hash="x"),
            SeatRecord(1, "easy", player_id="bot:easy", token_hash="y"),
        ]
    )
    assert "two seats" in (unrated_because(bots, FULL) or "")
    # Open seats of a waiting match can still be taken by players.
    waiting = record(seats=[SeatRecord(0, player_id="a" * 32, token_hash="x"), SeatRecord(1)])
    assert unrated_because(waiting, None) is None


def test_a_seat_the_ai_played_more_than_half_of_is_ranked_last_and_the_match_still_counts() -> None:
    seats = [
        SeatRecord(0, player_id="a" * 32, token_hash="x", played_by=AI, ai_turns=5),
        SeatRecord(1, player_id="b" * 32, token_hash="y"),
    ]
    assert unrated_because(record(seats=seats), FULL) is None
    assert final_ranks(record(seats=seats), [1, 2], FULL.turns) == [1, 2]  # half: it played
    # Idle for six of its ten turns (it took the seat back since: it gave up all the same).
    seats[0] = replace(seats[0], ai_turns=6, played_by=OWNER)
    idle = Played([10, 10], [4, 10])
    assert unrated_because(record(seats=seats), idle) is None
    assert final_ranks(record(seats=seats), [1, 2], idle.turns) == [2, 1]
    # Unless every seat went idle: nobody played it.
    seats[1] = replace(seats[1], played_by=AI, ai_turns=9)
    assert "every seat gave up" in (unrated_because(record(seats=seats), Played([10, 10], [4, 1])) or "")
    assert unrated_because(record(seats=seats), None) is None  # before the end: it may still count


def test_seats_that_left_or_forfeited_are_ranked_last_and_the_match_still_counts() -> None:
    seats = [
        SeatRecord(0, player_id="a" * 32, token_hash="x", played_by=LEFT, ai_turns=0),
        SeatRecord(1, player_id="b" * 32, token_hash="y"),
        SeatRecord(2, player_id="c" * 32, token_hash="z", played_by=FORFEITED),
        SeatRecord(3, player_id="d" * 32, token_hash="w"),
    ]
    match = record(seats=seats, options=Options(players=4))
    play = Played([9, 9, 9, 9], [3, 9, 4, 9])
    assert unrated_because(match, play) is None
    assert final_ranks(match, [1, 3, 2, 4], play.turns) == [3, 1, 3, 2]
    every = record(seats=[replace(seat, played_by=LEFT) for seat in seats], options=Options(players=4))
    assert "every seat gave up" in (unrated_because(every, play) or "")


GIVEN_UP = [{"played_by": LEFT}, {"played_by": FORFEITED}, {"played_by": AI, "ai_turns": 11}]  # of 20 turns


@pytest.mark.parametrize("given_up", GIVEN_UP)
@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_seat_that_gave_up_before_its_opening_makes_the_match_unrated(
    game: str, given_up: dict[str, object]
) -> None:
    opening = GAMES[game].opening_actions
    assert opening >= 3
    seats = [
        replace(SeatRecord(0, player_id="a" * 32, token_hash="x"), **given_up),  # type: ignore[arg-type]
        SeatRecord(1, player_id="b" * 32, token_hash="y"),
    ]
    match = record(seats=seats, game=game)
    why = unrated_because(match, Played([20, 20], [opening - 1, 20]))
    assert why == f"seat 0 gave up before making its first {opening} moves"
    assert unrated_because(match, Played([20, 20], [opening, 20])) is None


def test_the_actions_a_seat_made_itself_are_those_the_stand_in_did_not_make() -> None:
    match = restore(record(seats=[SeatRecord(0, token_hash="x"), SeatRecord(1, token_hash="y")]), [])
    by_the_ai = {3, 5}  # the versions the AI made, standing in
    for version in range(1, 8):
        seat, action = match.state.current_player, legal_actions(match.state)[0]
        request_id = stand_in_request_id(version) if version in by_the_ai else f"move-{version}"
        match.record_action(
            seat, action, request_id, match.state, match.rules.apply(match.state, seat, action)
        )
    turns = [sum(a.seat == seat for a in match.actions) for seat in (0, 1)]
    own = [sum(a.seat == seat and a.version not in by_the_ai for a in match.actions) for seat in (0, 1)]
    assert played(match) == Played(turns, own) and sum(own) == 5


def established(number: int, **changes: object) -> PlayerRecord:
    return replace(player(number), rated_matches=NEW_PLAYER_MATCHES, **changes)  # type: ignore[arg-type]


def test_a_new_player_who_gave_up_loses_but_hands_nobody_a_win() -> None:
    seats = [
        SeatRecord(0, player_id="a" * 32, token_hash="x"),
        SeatRecord(1, player_id="b" * 32, token_hash="y", played_by=LEFT),
    ]
    match = record(seats=seats)
    play = Played([20, 20], [20, GAMES["mercado"].opening_actions + 5])
    assert unrated_because(match, play) is None
    farmer, puppet = established(1), player(2)
    # The AI played the puppet's seat on to a win: it is ranked last all the same, and pays for it.
    (lost,) = rated_players(match, [farmer, puppet], [2, 1], play)
    assert lost == rate([farmer, puppet], [1, 2])[1]
    assert lost.player_id == puppet.player_id and lost.mu < puppet.mu and lost.rated_matches == 1
    # Once the player who gave up is no longer new, a win over it counts.
    puppet = replace(puppet, rated_matches=NEW_PLAYER_MATCHES)
    assert rated_players(match, [farmer, puppet], [2, 1], play) == rate([farmer, puppet], [1, 2])


def test_the_others_are_rated_among_themselves_when_a_new_player_gave_up() -> None:
    seats = [
        SeatRecord(0, player_id="a" * 32, token_hash="x"),
        SeatRecord(1, player_id="b" * 32, token_hash="y", played_by=AI, ai_turns=12),
        SeatRecord(2, player_id="c" * 32, token_hash="z"),
        SeatRecord(3, player_id="d" * 32, token_hash="w", played_by=LEFT),
    ]
    match = record(seats=seats, options=Options(players=4))
    play = Played([20] * 4, [20, 8, 20, 10])
    players = [established(1), player(2), established(3), established(4, mu=30.0)]
    after = rated_players(match, players, [2, 1, 4, 3], play)
    # Both seats that gave up are last (tied): seat 1 (new, idle) is rated so against all; seats 0, 2
    # and 3 (which left, but is no longer new) by their ranks among themselves.
    assert final_ranks(match, [2, 1, 4, 3], play.turns) == [1, 3, 2, 3]
    assert after == [rate(players, [1, 3, 2, 3])[1], *rate([players[0], players[2], players[3]], [1, 2, 3])]


@pytest.mark.parametrize("own", [0, LEILAO.opening_actions])
@pytest.mark.parametrize("given_up", GIVEN_UP)
def test_three_puppets_that_give_up_move_their_farmers_rating_by_nothing(
    own: int, given_up: dict[str, object]
) -> None:
    farmer = player(1)
    for number in range(2, 5):  # three new guests, each giving up: at once, or after its opening
        puppet = player(number)
        seats = [
            SeatRecord(0, player_id=farmer.player_id, token_hash="x"),
            replace(SeatRecord(1, player_id=puppet.player_id, token_hash="y"), **given_up),  # type: ignore[arg-type]
        ]
        match = record(seats=seats, game="leilao")
        play = Played([20, 20], [20, own])
        if own < LEILAO.opening_actions:
            assert "before making its first" in (unrated_because(match, play) or "")
        else:
            assert unrated_because(match, play) is None
            assert [p.player_id for p in rated_players(match, [farmer, puppet], [1, 2], play)] == [
                puppet.player_id
            ]


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
