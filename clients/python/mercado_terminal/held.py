"""The seats a player (``mercado play``) or an AI agent (``mercado ai``) holds, kept in a file so that
a game can be resumed (``mercado play --resume``, an agent started again).

Each entry is a seat's secret token, so the file is readable by its owner only
(mode 0600). It is rewritten whole at every change, atomically (a temporary
file renamed over it), under a lock, so that two terminals playing at once
do not lose each other's seats. ``PrivateFile`` is that mechanism, which the
player file (``players.py``) shares.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

try:
    import fcntl
except ImportError:  # not POSIX: no lock; the rename alone keeps the file whole
    fcntl = None  # type: ignore[assignment]

FILE_NAME = "seats.json"


def default_path() -> Path:
    """The user's data directory's seat file, e.g. ~/.local/share/mercado/seats.json."""
    import platformdirs

    return platformdirs.user_data_path("mercado") / FILE_NAME


class DataFileError(Exception):
    """A data file (the seat file, the player file) exists but cannot be read as one."""


class SeatFileError(DataFileError):
    """The seat file exists but cannot be read as one."""


class PrivateFile:
    """A small JSON file of secrets, readable by its owner only (mode 0600, in a 0700 directory).

    ``update`` reads it and rewrites it whole under a lock, atomically: a temporary file renamed
    over it, so that a reader never sees half of it and two processes lose nothing.
    """

    def __init__(self, path: Path, what: str, error: type[DataFileError] = DataFileError) -> None:
        self.path = path
        self.what = what  # "the seat file": for the errors
        self.error = error

    def read(self) -> Any:
        """The file's JSON value; None when there is no file."""
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        except OSError as error:
            raise self.error(f"cannot read {self.what} {self.path}: {error.strerror}") from None
        try:
            return json.loads(text)
        except ValueError as error:
            raise self.damaged(error) from None

    def damaged(self, reason: object) -> DataFileError:
        return self.error(f"{self.what} {self.path} is damaged ({reason}); move it away")

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the file's lock (another process's ``locked`` waits meanwhile)."""
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

    def write(self, value: Any) -> None:
        """Replace the file with ``value`` as JSON, atomically; call it holding the lock."""
        text = json.dumps(value, indent=1) + "\n"
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


@dataclass(frozen=True)
class HeldSeat:
    server: str  # the server's address, as given to --server
    match_id: str
    seat: int  # the API's (0-based) seat
    token: str  # secret: the seat's token
    name: str  # the display name it joined with
    level: str = ""  # an AI agent's: the bot level it plays the seat at (a person's: none)
    # The player the seat is bound to (players.py keeps its credential), which acts for it too;
    # empty for anonymous play.
    player_id: str = ""

    def same_seat(self, other: HeldSeat) -> bool:
        return (self.server, self.match_id, self.seat) == (other.server, other.match_id, other.seat)


class SeatFile:
    """Held seats in a JSON file: {"seats": [HeldSeat, ...]}."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.file = PrivateFile(path, "the seat file", SeatFileError)

    def held(self, server: str, match_id: str | None = None) -> list[HeldSeat]:
        """The seats held on ``server`` (in ``match_id`` when given), oldest first."""
        return [
            seat
            for seat in self._read()
            if seat.server == server and (match_id is None or seat.match_id == match_id)
        ]

    def add(self, seat: HeldSeat) -> None:
        with self.file.locked():
            self._write([*(s for s in self._read() if not s.same_seat(seat)), seat])

    def remove(self, seat: HeldSeat) -> None:
        with self.file.locked():
            seats = self._read()
            kept = [s for s in seats if not s.same_seat(seat)]
            if len(kept) != len(seats):
                self._write(kept)

    def _read(self) -> list[HeldSeat]:
        value = self.file.read()
        if value is None:
            return []
        try:
            return [
                HeldSeat(
                    str(i["server"]),
                    str(i["match_id"]),
                    int(i["seat"]),
                    str(i["token"]),
                    str(i.get("name", "")),  # absent from files written by agents of v0.1
                    str(i.get("level", "")),
                    str(i.get("player_id", "")),
                )
                for i in value["seats"]
            ]
        except (ValueError, KeyError, TypeError, AttributeError) as error:
            raise self.file.damaged(error) from None

    def _write(self, seats: list[HeldSeat]) -> None:
        # A person's seat has no level, an anonymous seat no player: their entries have none either.
        optional = ("level", "player_id")
        items = [{k: v for k, v in asdict(seat).items() if k not in optional or v} for seat in seats]
        self.file.write({"seats": items})
