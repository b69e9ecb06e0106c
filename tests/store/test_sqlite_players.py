"""The SQLite store's players: saved and renamed, bots calibrated, each match rated once, "my games"."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from test_sqlite import COIN, record

from server.store import Conflict
from server.store.records import BOT, FINISHED, GUEST, RATED, UNRATED, PlayerRecord, SeatRecord
from server.store.sqlite import SqliteStore

ANA, BEA = "a" * 32, "b" * 32


async def test_players_are_saved_renamed_and_read(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "m.db")
    await store.save_player(PlayerRecord(ANA, GUEST, "Ana", 5))
    await store.save_player(PlayerRecord(ANA, GUEST, "Ana B.", 9, mu=99))  # a rename keeps the rating
    assert await store.players([ANA, BEA]) == {ANA: PlayerRecord(ANA, GUEST, "Ana B.", 5)}
    store.close()


async def test_bots_are_calibrated_only_until_they_have_played(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "m.db")
    bot = PlayerRecord("bot:hard", BOT, "AI (hard)")
    await store.calibrate([replace(bot, mu=30.0, sigma=2.0)])
    assert (await store.players(["bot:hard"]))["bot:hard"].mu == 30.0
    await store.create_match(record("m"))
    await store.record_rating("m", RATED, [replace(bot, mu=31.0, sigma=1.9, rated_matches=1)])
    await store.calibrate([replace(bot, mu=20.0, sigma=2.0)])  # played: a calibration no longer applies
    assert (await store.players(["bot:hard"]))["bot:hard"].mu == 31.0
    store.close()


async def test_a_match_is_rated_once_and_the_leaderboard_pages_by_rating(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "m.db")
    ana, bea = PlayerRecord(ANA, GUEST, "Ana"), PlayerRecord(BEA, GUEST, "Bea")
    for player in (ana, bea):
        await store.save_player(player)
    seats = [SeatRecord(0, player_id=ANA, token_hash="x"), SeatRecord(1, player_id=BEA, token_hash="y")]
    await store.create_match(replace(record("m"), seats=seats))
    await store.append_action("m", 1, 0, COIN, "r1", finished=True)
    assert await store.finished_unrated() == ["m"]
    rated = [
        replace(ana, mu=27.0, sigma=7.0, rated_matches=1, wins=1),
        replace(bea, mu=23.0, sigma=7.0, rated_matches=1),
    ]
    await store.record_rating("m", RATED, rated)
    with pytest.raises(Conflict):
        await store.record_rating("m", UNRATED, [])
    assert await store.finished_unrated() == []
    board = await store.leaderboard(1, None)
    assert [p.player_id for p in board] == [ANA]
    after = (board[0].display_rating, board[0].player_id)
    assert [p.player_id for p in await store.leaderboard(5, after)] == [BEA]
    # My games: the matches where the player holds a seat.
    await store.create_match(record("n"))
    listed = await store.list_matches(None, 10, None, ANA)
    assert [(m.record.match_id, m.status, m.record.rating) for m in listed] == [("m", FINISHED, RATED)]
    assert [s.player_id for s in listed[0].record.seats] == [ANA, BEA]
    store.close()


async def test_the_servers_secret_is_made_once_and_kept(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "m.db")
    secret = await store.secret("guest")
    assert (
        len(secret) == 32 and await store.secret("guest") == secret and await store.secret("other") != secret
    )
    store.close()
    store = SqliteStore(tmp_path / "m.db")
    assert await store.secret("guest") == secret
    store.close()
