"""The seats a player (``mercado play``) or an AI agent (``mercado ai``) holds, kept in a file so that
a game can be resumed (``mercado play --resume``, an agent started again).

Each entry is a seat's secret token, so the file is readable by its owner only
(mode 0600). It is rewritten whole at every change, atomically (a temporary
file renamed over it), under a lock, so that two terminals playing at once
do not lose each other's seats.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

try:
    import fcntl
except ImportError:  # not POSIX: no lock; the rename alone keeps the file whole
    fcntl = None  # type: ignore[assignment]

FILE_NAME = "seats.json"


def default_path() -> Path:
    """The user's data directory's seat file, e.g. ~/.local/share/mercado/seats.json."""
    import platformdirs

    return platformdirs.user_data_path("mercado") / FILE_NAME


class SeatFileError(Exception):
    """The seat file exists but cannot be read as one."""


@dataclass(frozen=True)
class HeldSeat:
    server: str  # the server's address, as given to --server
    match_id: str
    seat: int  # the API's (0-based) seat
    token: str  # secret
    name: str  # the display name it joined with
    level: str = ""  # an AI agent's: the bot level it plays the seat at (a person's: none)

    def same_seat(self, other: HeldSeat) -> bool:
        return (self.server, self.match_id, self.seat) == (other.server, other.match_id, other.seat)


class SeatFile:
    """Held seats in a JSON file: {"seats": [HeldSeat, ...]}."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def held(self, server: str, match_id: str | None = None) -> list[HeldSeat]:
        """The seats held on ``server`` (in ``match_id`` when given), oldest first."""
        return [
            seat
            for seat in self._read()
            if seat.server == server and (match_id is None or seat.match_id == match_id)
        ]

    def add(self, seat: HeldSeat) -> None:
        with self._locked():
            self._write([*(s for s in self._read() if not s.same_seat(seat)), seat])

    def remove(self, seat: HeldSeat) -> None:
        with self._locked():
            seats = self._read()
            kept = [s for s in seats if not s.same_seat(seat)]
            if len(kept) != len(seats):
                self._write(kept)

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        if fcntl is None:
            yield
            return
        lock = self.path.with_name(self.path.name + ".lock")
        handle = os.open(lock, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(handle, fcntl.LOCK_EX)
            yield
        finally:
            os.close(handle)  # releases the lock

    def _read(self) -> list[HeldSeat]:
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return []
        except OSError as error:
            raise SeatFileError(f"cannot read the seat file {self.path}: {error.strerror}") from None
        try:
            items = json.loads(text)["seats"]
            return [
                HeldSeat(
                    str(i["server"]),
                    str(i["match_id"]),
                    int(i["seat"]),
                    str(i["token"]),
                    str(i.get("name", "")),  # absent from files written by agents of v0.1
                    str(i.get("level", "")),
                )
                for i in items
            ]
        except (ValueError, KeyError, TypeError) as error:
            raise SeatFileError(f"the seat file {self.path} is damaged ({error}); move it away") from None

    def _write(self, seats: list[HeldSeat]) -> None:
        # A person's seat has no level: its entry has none either.
        items = [{k: v for k, v in asdict(seat).items() if k != "level" or v} for seat in seats]
        text = json.dumps({"seats": items}, indent=1) + "\n"
        handle, temporary = tempfile.mkstemp(dir=self.path.parent, prefix=f".{self.path.name}.")
        try:
            os.fchmod(handle, 0o600)
            with os.fdopen(handle, "w", encoding="utf-8") as file:
                file.write(text)
                file.flush()
                os.fsync(file.fileno())
            os.replace(temporary, self.path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
