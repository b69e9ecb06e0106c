"""Checkpoints that keep an SQLite WAL bounded under any mix of writes, and empty it when idle.

SQLite's own checkpoints (``wal_autocheckpoint``) run inside the commit that
fills the WAL past 1,000 pages, so every write waiting for that commit would
also wait for the disk flushes; and they run only for the connection that
commits. Here, instead:

- a thread of its own, on a connection of its own, runs a passive checkpoint
  about once a second after writes, or at once when the WAL passes
  CHECKPOINT_BYTES, while commits go on;
- the writer then finishes it between two commits, with little left to copy,
  so the WAL is wholly checkpointed and the next commit starts it over from
  the beginning; ``journal_size_limit`` then cuts the file back;
- should the WAL pass LIMIT_BYTES all the same, the writer checkpoints before
  it commits again: writes wait rather than the disk filling;
- after IDLE_SECONDS without a write, a truncating checkpoint empties the file.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
import time
from collections.abc import Callable

CHECKPOINT_SECONDS = 1.0
CHECKPOINT_BYTES = 8 << 20
LIMIT_BYTES = 48 << 20
JOURNAL_SIZE_LIMIT = 4 << 20
IDLE_SECONDS = 5.0
log = logging.getLogger("mercado.store")


class Checkpointer:
    """The checkpoints of one database's WAL; ``after_commit`` is called by its only writer."""

    def __init__(
        self, path: str, writer: sqlite3.Connection, connect: Callable[[str], sqlite3.Connection]
    ) -> None:
        self.path = path
        self.connect = connect  # a connection of the checkpoint thread's own, as the store opens them
        self.wal_path = path + "-wal"
        self.writer = writer
        writer.execute("PRAGMA wal_autocheckpoint=0")
        writer.execute(f"PRAGMA journal_size_limit={JOURNAL_SIZE_LIMIT}")
        self.commits = 0  # counted by the writer's thread, read by the checkpoint thread
        self.finish = False  # a background checkpoint ended: the writer finishes it after its next commit
        self.wal_id: tuple[int, int] | None = None
        self.wake = threading.Event()
        self.stopping = False
        self.thread = threading.Thread(target=self._run, name="mercado-sqlite-checkpoint", daemon=True)
        self.thread.start()

    def wal_size(self) -> int:
        try:
            return os.stat(self.wal_path).st_size
        except FileNotFoundError:
            return 0

    def file_intact(self) -> bool:
        """Whether the WAL is the file SQLite has been writing (not deleted or replaced meanwhile)."""
        try:
            stat = os.stat(self.wal_path)
        except FileNotFoundError:
            return False
        found = (stat.st_dev, stat.st_ino)
        if self.wal_id is None:
            self.wal_id = found
        return found == self.wal_id

    def after_commit(self) -> None:
        """In the writer's thread, between two commits."""
        self.commits += 1
        size = self.wal_size()
        if self.finish or size > LIMIT_BYTES:
            self.finish = False
            try:
                self.writer.execute("PRAGMA wal_checkpoint(PASSIVE)")
            except sqlite3.Error as error:
                log.warning("checkpoint failed", extra={"error": str(error)})
        elif size > CHECKPOINT_BYTES:
            self.wake.set()

    def _run(self) -> None:
        db = self.connect(self.path)
        seen, last_write = 0, time.monotonic()
        try:
            while True:
                self.wake.wait(CHECKPOINT_SECONDS)
                self.wake.clear()
                if self.stopping:
                    return
                try:
                    if self.commits != seen:
                        seen, last_write = self.commits, time.monotonic()
                        db.execute("PRAGMA wal_checkpoint(PASSIVE)")
                        self.finish = True
                    elif time.monotonic() - last_write >= IDLE_SECONDS and self.wal_size() > 0:
                        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                except sqlite3.Error as error:
                    # Nothing is lost: what is in the WAL stays there until a later checkpoint.
                    log.warning("checkpoint failed", extra={"error": str(error)})
        finally:
            db.close()

    def close(self) -> None:
        self.stopping = True
        self.wake.set()
        self.thread.join()
