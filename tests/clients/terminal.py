"""``mercado play`` in a real pseudo-terminal (pexpect), and an AI agent process to play its bot seats."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pexpect
import pyte
from positions import ROOT
from server_process import AGENT_KEY

# Escape sequences (colours, cursor moves, screen clears) and carriage returns: what a screen shows
# of the output is the rest.
ANSI = re.compile(
    r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][0-9A-Za-z]|\x1b[=>]|\r"
)
PROMPT = re.compile(r"(your move|which square|which entrance|press Enter to take your seat back)\b[^\n]*: $")
# A window's question, whole: its prompt line as the program ends it. A screen read half drawn may end
# in another ": " ("you: " of the line that names the player, "0: back" within a prompt).
QUESTION = re.compile(r"^((your move|which |resign\?)[^\n]*\)|press Enter to take your seat back): $")
STARTUP_SECONDS = 20.0


def _interruptible() -> None:
    """Ctrl-C reaches the client even when the tests run in the background, whose commands a
    shell starts with SIGINT ignored (an ignored signal stays ignored across exec)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class Terminal:
    """One ``python -m server play ...`` in a pseudo-terminal, read as plain text."""

    def __init__(self, arguments: list[str], seats_file: Path, columns: int = 140, rows: int = 60) -> None:
        env = {**os.environ, "MERCADO_SEATS_FILE": str(seats_file), "TERM": "xterm-256color"}
        env.pop("COLUMNS", None)
        env.pop("LINES", None)
        self.child = pexpect.spawn(
            sys.executable,
            ["-m", "server", "play", *arguments],
            cwd=str(ROOT),
            env=env,
            dimensions=(rows, columns),
            encoding="utf-8",
            codec_errors="replace",
            timeout=None,
            preexec_fn=_interruptible,
        )
        self.text = ""  # everything shown so far, escape sequences removed
        self.seen = 0  # where the next expect starts looking
        self.raw = ""  # everything written, escape sequences and all
        self.asked = 0  # where the last question answered ended, in ``raw``
        self.screen = pyte.Screen(columns, rows)  # what the window shows now
        self.stream = pyte.Stream(self.screen)

    def _read(self, deadline: float) -> bool:
        """Read what there is (waiting until ``deadline``); False at the end of the output."""
        try:
            chunk = self.child.read_nonblocking(65536, timeout=max(0.0, deadline - time.monotonic()))
        except pexpect.TIMEOUT:
            return True
        except pexpect.EOF:
            return False
        self.text += ANSI.sub("", chunk)
        self.raw += chunk
        self.stream.feed(chunk)
        return True

    def expect_question(self, timeout: float = 20.0, or_else: str | None = None) -> str | None:
        """In a window drawn in place: wait until its screen asks a question, its prompt last with
        nothing after it (the program waits for the answer), and return the prompt; or for
        ``or_else`` to be shown, and return None."""
        other = re.compile(or_else) if or_else is not None else None
        deadline = time.monotonic() + timeout
        while True:
            if other is not None and other.search(self.text, self.seen):
                return None
            frame = ANSI.sub("", self.raw.rsplit("\x1b[2J", 1)[-1])  # since the screen was last cleared
            last = frame.rsplit("\n", 1)[-1]
            if QUESTION.match(last) and self.raw.endswith(": ") and len(self.raw) > self.asked:
                self.asked = len(self.raw)
                return last
            alive = self._read(min(deadline, time.monotonic() + 0.2))
            if time.monotonic() >= deadline or not alive:
                raise AssertionError(f"no question within {timeout} s:\n" + "\n".join(self.shown))

    @property
    def shown(self) -> list[str]:
        """The window's lines as they are now, trailing blanks removed."""
        return [line.rstrip() for line in self.screen.display]

    def expect(self, pattern: str | re.Pattern[str], timeout: float = 15.0) -> re.Match[str]:
        """The first match of ``pattern`` in the output after the last match; waits for it."""
        regex = re.compile(pattern) if isinstance(pattern, str) else pattern
        deadline = time.monotonic() + timeout
        while True:
            found = regex.search(self.text, self.seen)
            if found:
                self.seen = found.end()
                return found
            if time.monotonic() >= deadline or not self._read(deadline):
                tail = self.text[-3000:]
                raise AssertionError(f"no {regex.pattern!r} in the terminal within {timeout} s:\n{tail}")

    def expect_prompt(self, timeout: float = 15.0, or_else: str | None = None) -> str | None:
        """Wait for a question with nothing after it (the program waits for an answer) and return its
        kind; or for ``or_else`` to be shown, and return None (the next expect may still find it)."""
        other = re.compile(or_else) if or_else is not None else None
        deadline = time.monotonic() + timeout
        while True:
            if other is not None and other.search(self.text, self.seen):
                return None
            found = PROMPT.search(self.text, self.seen)
            if found and found.end() == len(self.text):
                self.seen = found.end()
                return found.group(1)
            alive = self._read(min(deadline, time.monotonic() + 0.2))
            if time.monotonic() >= deadline or not alive:
                raise AssertionError(f"no prompt within {timeout} s:\n{self.text[-3000:]}")

    def answer(self, line: str) -> None:
        self.child.sendline(line)

    def end(self, timeout: float = 15.0) -> int:
        """Wait for the exit; the exit status (128 + the signal for a signal)."""
        deadline = time.monotonic() + timeout
        while self._read(deadline):
            if time.monotonic() >= deadline:
                raise AssertionError(f"still running after {timeout} s:\n{self.text[-3000:]}")
        self.child.close()
        if self.child.signalstatus is not None:
            return 128 + int(self.child.signalstatus)
        return int(self.child.exitstatus)

    def kill(self) -> None:
        """SIGKILL, as when the terminal window is closed hard or the machine goes down."""
        self.child.kill(signal.SIGKILL)
        self.child.close(force=True)


def play_on(terminal: Terminal, answers: int | None = None) -> int:
    """Answer '1' to the next ``answers`` questions, or (None) until the game ends; the number answered."""
    done = 0
    while answers is None or done < answers:
        if terminal.expect_prompt(timeout=20, or_else="finished rank") is None:
            break
        terminal.answer("1")
        done += 1
    return done


def held(seats_file: Path) -> list[dict[str, object]]:
    """The seat file's entries."""
    seats: list[dict[str, object]] = json.loads(seats_file.read_text())["seats"]
    return seats


@contextmanager
def ai_agent(target: str, state_file: Path) -> Iterator[subprocess.Popen[str]]:
    """A ``mercado ai`` process playing easy bot seats, started once it says so in its log."""
    process = subprocess.Popen(
        [
            *(sys.executable, "-m", "server", "ai", "--server", target, "--agent-key", AGENT_KEY),
            *("--level", "easy", "--state-file", str(state_file), "--workers", "1"),
        ],
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert process.stderr is not None
    log: list[str] = []
    deadline = time.monotonic() + STARTUP_SECONDS
    try:
        for line in process.stderr:
            log.append(line)
            try:
                started = json.loads(line).get("message") == "agent started"
            except (json.JSONDecodeError, AttributeError):
                started = False
            if started:
                break
            if time.monotonic() > deadline:
                raise AssertionError(f"the agent did not start:\n{''.join(log)}")
        else:
            raise AssertionError(f"the agent exited:\n{''.join(log)}")
        # Keep reading its log: a full pipe would block it.
        threading.Thread(target=lambda: [None for _ in process.stderr or ()], daemon=True).start()
        yield process
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
