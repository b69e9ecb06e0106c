"""The seat file of ``mercado play``: private, rewritten atomically, per server, safe with two terminals."""

from __future__ import annotations

import json
import stat
import threading
from pathlib import Path

import pytest
from mercado_terminal.held import HeldSeat, SeatFile, SeatFileError, default_path


def seat(match: int, number: int = 0, server: str = "127.0.0.1:50051") -> HeldSeat:
    return HeldSeat(server, f"{match:032x}", number, f"token-{match}-{number}", "ada")


def test_seats_are_kept_per_server_privately(tmp_path: Path) -> None:
    path = tmp_path / "new" / "dir" / "seats.json"
    seats = SeatFile(path)
    assert seats.held("127.0.0.1:50051") == []
    seats.add(seat(1))
    seats.add(seat(2, server="other:1"))
    seats.add(seat(3, number=1))
    assert seats.held("127.0.0.1:50051") == [seat(1), seat(3, number=1)]
    assert seats.held("other:1") == [seat(2, server="other:1")]
    assert seats.held("127.0.0.1:50051", f"{3:032x}") == [seat(3, number=1)]
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    data = json.loads(path.read_text())
    assert data["seats"][0] == {
        "server": "127.0.0.1:50051",
        "match_id": f"{1:032x}",
        "seat": 0,
        "token": "token-1-0",
        "name": "ada",
    }
    # The same seat again replaces its entry (a new token), other seats stay.
    seats.add(HeldSeat("127.0.0.1:50051", f"{1:032x}", 0, "newer", "ada"))
    assert [s.token for s in seats.held("127.0.0.1:50051")] == ["token-3-1", "newer"]
    seats.remove(seat(3, number=1))
    seats.remove(seat(9))  # not held: nothing happens
    assert [s.token for s in seats.held("127.0.0.1:50051")] == ["newer"]
    # Nothing but the file (and its lock) is left behind: no temporary files.
    assert sorted(p.name for p in path.parent.iterdir()) == ["seats.json", "seats.json.lock"]


def test_two_terminals_adding_at_once_lose_nothing(tmp_path: Path) -> None:
    path = tmp_path / "seats.json"

    def add(first: int) -> None:
        seats = SeatFile(path)
        for match in range(first, first + 25):
            seats.add(seat(match))

    threads = [threading.Thread(target=add, args=(n * 100,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(SeatFile(path).held("127.0.0.1:50051")) == 100


def test_an_agents_seats_keep_their_level_and_an_earlier_agents_file_is_read(tmp_path: Path) -> None:
    path = tmp_path / "agent.json"
    # As agents wrote it before they shared this file's format: a level, no name.
    earlier = {"server": "s:1", "match_id": f"{7:032x}", "seat": 1, "token": "t", "level": "hard"}
    path.write_text(json.dumps({"seats": [earlier]}))
    seats = SeatFile(path)
    assert seats.held("s:1") == [HeldSeat("s:1", f"{7:032x}", 1, "t", "", "hard")]
    seats.add(HeldSeat("s:1", f"{8:032x}", 0, "u", "mercado-ai", "easy"))
    assert [held.level for held in SeatFile(path).held("s:1")] == ["hard", "easy"]


def test_a_damaged_file_is_reported_not_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "seats.json"
    path.write_text("{not json")
    with pytest.raises(SeatFileError, match="is damaged"):
        SeatFile(path).held("127.0.0.1:50051")
    with pytest.raises(SeatFileError):
        SeatFile(path).add(seat(1))
    assert path.read_text() == "{not json"


def test_the_default_is_in_the_users_data_directory() -> None:
    import platformdirs

    assert default_path() == platformdirs.user_data_path("mercado") / "seats.json"
