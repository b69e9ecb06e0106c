"""The player file of ``mercado play``: one guest player per server, private, kept as the seat file is."""

from __future__ import annotations

import json
import stat
import threading
from dataclasses import replace
from pathlib import Path

import pytest
from mercado_terminal.held import HeldSeat, SeatFile
from mercado_terminal.players import PlayerFile, PlayerFileError, SavedPlayer, default_path


def player(server: str = "127.0.0.1:50051", number: int = 1) -> SavedPlayer:
    return SavedPlayer(server, f"{number:032x}", f"token-{number}", f"ada {number}")


def test_one_player_per_server_privately(tmp_path: Path) -> None:
    path = tmp_path / "new" / "players.json"
    players = PlayerFile(path)
    assert players.player("127.0.0.1:50051") is None
    assert players.keep(player()) == player()
    assert players.keep(player("other:1", 2)) == player("other:1", 2)
    assert players.player("127.0.0.1:50051") == player()
    assert players.player("other:1") == player("other:1", 2)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert json.loads(path.read_text())["players"][0] == {
        "server": "127.0.0.1:50051",
        "player_id": f"{1:032x}",
        "token": "token-1",
        "name": "ada 1",
    }
    # Another player for the same server: the one kept stays (another terminal was quicker)...
    assert players.keep(player(number=3)) == player()
    # ...unless it replaces the kept one, which the server no longer knows.
    assert players.keep(player(number=3), replacing=player()) == player(number=3)
    assert players.player("127.0.0.1:50051") == player(number=3)
    players.forget(player(number=1))  # not kept any more: nothing happens
    players.forget(player(number=3))
    assert players.player("127.0.0.1:50051") is None
    assert players.player("other:1") == player("other:1", 2)
    assert sorted(p.name for p in path.parent.iterdir()) == ["players.json", "players.json.lock"]


def test_players_kept_as_a_name_sit_beside_the_servers_own(tmp_path: Path) -> None:
    path = tmp_path / "players.json"
    players = PlayerFile(path)
    own, bea = player(number=1), replace(player(number=2), name="bea", kept_as="bea")
    assert players.keep(own) == own
    assert players.player("127.0.0.1:50051", "bea") is None
    assert players.keep(bea) == bea  # not the server's own: kept beside it
    assert players.keep(replace(bea, player_id="c" * 32)) == bea  # another terminal was quicker
    assert players.player("127.0.0.1:50051") == own
    assert players.player("127.0.0.1:50051", "bea") == bea
    assert [entry.get("as") for entry in json.loads(path.read_text())["players"]] == [None, "bea"]
    players.forget(bea)
    assert players.player("127.0.0.1:50051", "bea") is None
    assert players.player("127.0.0.1:50051") == own


def test_two_terminals_signing_in_at_once_keep_one_player(tmp_path: Path) -> None:
    path = tmp_path / "players.json"
    kept: list[SavedPlayer] = []

    def sign_in(number: int) -> None:
        kept.append(PlayerFile(path).keep(player(number=number)))

    threads = [threading.Thread(target=sign_in, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(set(kept)) == 1
    assert PlayerFile(path).player("127.0.0.1:50051") == kept[0]


def test_a_damaged_file_is_reported_not_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "players.json"
    for damaged in ("{not json", '{"players": [{"server": "s:1"}]}', "[]"):
        path.write_text(damaged)
        with pytest.raises(PlayerFileError, match=r"the player file .* is damaged .*; move it away"):
            PlayerFile(path).player("s:1")
        with pytest.raises(PlayerFileError):
            PlayerFile(path).keep(player("s:1"))
        assert path.read_text() == damaged


def test_it_sits_beside_the_seat_file(tmp_path: Path) -> None:
    import platformdirs

    assert default_path() == platformdirs.user_data_path("mercado") / "players.json"
    assert default_path(tmp_path / "data" / "seats.json") == tmp_path / "data" / "players.json"


def test_a_seat_bound_to_a_player_keeps_its_player_id(tmp_path: Path) -> None:
    path = tmp_path / "seats.json"
    seats = SeatFile(path)
    bound = HeldSeat("s:1", f"{1:032x}", 0, "seat-token", "ada", player_id=f"{9:032x}")
    seats.add(bound)
    seats.add(HeldSeat("s:1", f"{2:032x}", 1, "other", "bo"))
    assert seats.held("s:1")[0] == bound
    entries = json.loads(path.read_text())["seats"]
    assert entries[0]["player_id"] == f"{9:032x}"
    assert "player_id" not in entries[1]  # anonymous: none written
