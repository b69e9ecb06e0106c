"""What the tests read of processes (Linux ``/proc``): open files, children, sessions."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path


def open_files(pid: int) -> int:
    """The file descriptors a process holds."""
    return len(os.listdir(f"/proc/{pid}/fd"))


def _stats() -> Iterator[tuple[int, list[str]]]:
    """Every process's pid and its stat fields after the name: state, ppid, pgrp, session, ..."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            yield int(stat.parent.name), stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # gone meanwhile
            continue


def children(pid: int) -> list[int]:
    """The live processes whose parent is ``pid``."""
    return [child for child, fields in _stats() if fields[0] != "Z" and int(fields[1]) == pid]


def in_session(session: int) -> list[int]:
    """The live processes of a session (its leader's and all it started)."""
    return [member for member, fields in _stats() if fields[0] != "Z" and int(fields[3]) == session]


def running(pid: int) -> bool:
    """Whether ``pid`` is a live process (not gone, not a zombie)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False
