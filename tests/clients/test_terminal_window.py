"""``mercado play`` in a terminal window of 80 columns and 24 lines, a whole match of each game against
the AI: at every question the screen, drawn in place, shows the board, every player and the whole menu,
with the prompt last; the match ends on the terminal's own screen with the result."""

from __future__ import annotations

import asyncio
import io
import os
import re
import termios
from collections.abc import Iterator
from pathlib import Path

import pytest
from mercado_terminal.screen import echo_held
from server_process import ServerProcess
from terminal import Terminal, ai_agent

pytestmark = pytest.mark.timeout(600)

COLUMNS, ROWS = 80, 24
# What shows that the board is on screen, whole: its status line on the first row, then its own parts.
BOARDS = {
    "mercado": (r"Mercado de Lisboa", [r"^ +a +b +c +d +e$", r"^1 ", r"^5 "]),
    "oregano": (r"Oregano", [r"^supply wood \d+", r"^ +L1 +L2 +L3 +L4$", r"^d "]),
    "leilao": (r"Leilão", [r"^stalls ", r"^deck "]),
}
NUMBERED = re.compile(r"\(1-(\d+)")
CARD = re.compile(r"a card like (\d+)")
AN_ID = re.compile(r"\b[a-z]+_[a-z_]+\b")  # 'lumber_merchant', 'strategic_retreat': ids, not names


@pytest.fixture
def agent(own_server: ServerProcess, tmp_path: Path) -> Iterator[None]:
    with ai_agent(own_server.target, tmp_path / "agent.json"):
        yield


def check_screen(game: str, shown: list[str], prompt: str) -> None:
    """The board, both players, the whole menu and the prompt are in the window."""
    title, parts = BOARDS[game]
    screen = "\n".join(shown)
    assert re.match(title, shown[0]), screen  # the board's first line: nothing cut off at the top
    for part in parts:
        assert any(re.search(part, line) for line in shown), (part, screen)
    assert "(seat 1" in screen and "(seat 2" in screen, screen
    asked = [number for number, line in enumerate(shown) if line.startswith(prompt.rstrip())]
    assert asked, screen
    if (numbered := NUMBERED.search(prompt)) is not None:
        menu = " ".join(shown[: asked[-1]])
        for number in range(1, int(numbered.group(1)) + 1):
            assert re.search(rf"(^|\s){number} \S", menu), (number, screen)
    else:
        assert "hand " in screen and "resign" in screen, screen
    others = [line for line in shown if not line.startswith(prompt.rstrip())]
    assert not AN_ID.findall("\n".join(others)), screen


@pytest.mark.parametrize("game", ["mercado", "oregano", "leilao"])
async def test_a_whole_match_in_a_window_of_80_by_24(
    own_server: ServerProcess, agent: None, tmp_path: Path, game: str
) -> None:
    arguments = ["--server", own_server.target, "--game", game, "--bots", "easy", "--name", "ada"]
    terminal = Terminal(arguments, tmp_path / "seats.json", columns=COLUMNS, rows=ROWS)

    def play() -> int:
        asked = 0
        while (prompt := terminal.expect_question(timeout=60, or_else="finished rank")) is not None:
            check_screen(game, terminal.shown, prompt)
            card = CARD.search(prompt)
            terminal.answer(card.group(1) if card is not None else "1")
            asked += 1
        return asked

    assert await asyncio.to_thread(play) > 5
    terminal.expect("final scores")  # the result, left on the terminal's own screen
    terminal.expect(r"ada \(seat 1\) finished rank [12] of 2 with a score of -?\d+")
    assert await asyncio.to_thread(terminal.end, 30) == 0
    assert "Traceback" not in terminal.text


async def test_a_resized_window_is_drawn_again_to_its_new_size(
    own_server: ServerProcess, agent: None, tmp_path: Path
) -> None:
    arguments = ["--server", own_server.target, "--bots", "easy", "--name", "ada"]
    terminal = Terminal(arguments, tmp_path / "seats.json", columns=COLUMNS, rows=ROWS)
    prompt = await asyncio.to_thread(terminal.expect_question)
    assert prompt is not None and "last moves" not in "\n".join(terminal.shown)  # no room for its frame
    terminal.child.setwinsize(50, 130)  # the window grows: the board as a big terminal shows it
    terminal.screen.resize(50, 130)
    assert await asyncio.to_thread(terminal.expect_question) == prompt
    shown = "\n".join(terminal.shown)
    assert "╭─ last moves" in shown and "offer" in shown and "resign (leave the match for good)" in shown
    terminal.child.sendintr()
    assert await asyncio.to_thread(terminal.end) == 130


def test_a_screen_is_drawn_with_the_echo_held_and_given_back() -> None:
    """Keys typed while a screen is drawn are not echoed into it; the terminal echoes again after."""
    ours, theirs = os.openpty()
    try:
        with os.fdopen(theirs, "w", closefd=False) as window:
            assert termios.tcgetattr(theirs)[3] & termios.ECHO
            with echo_held(window):
                assert not termios.tcgetattr(theirs)[3] & termios.ECHO
            assert termios.tcgetattr(theirs)[3] & termios.ECHO
    finally:
        os.close(ours)
        os.close(theirs)
    with echo_held(io.StringIO()):  # piped: nothing to hold
        pass
