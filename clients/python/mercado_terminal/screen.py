"""Where ``mercado play`` shows a match: a window it keeps redrawn in place, or a log it prints.

In a terminal window (``Window``) the match is one screen fitted to the window's height, in the
alternate screen as full-screen programs are, and drawn again whole whenever anything on it changes:
the board, the players and the whole menu stay in view, and the prompt is its last line, where the
answer is typed. Each part that has several renderings lists them roomiest first (``Parts``); the
window takes the roomiest board and menu that fit, and the log of last moves gets the room left.

Piped (``Log``), the same parts are printed one after another as they change, as a log.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import IO

from rich.console import Console, Group, RenderableType
from rich.segment import Segment, Segments
from rich.text import Text


@dataclass(frozen=True)
class Parts:
    """The match as shown: the board (roomiest first: the first with the log in it, any other without)
    and, under it, the log of last moves and the lines that say where the seat stands, each with
    whether a small window may leave it out."""

    boards: Sequence[RenderableType]
    log: Sequence[Text] = ()
    lines: Sequence[tuple[Text, bool]] = ()


@dataclass
class Question:
    """What is asked: the menu (roomiest first; none to keep the last one), the prompt, and what the
    last answer was told."""

    menus: Sequence[RenderableType] = ()
    prompt: Text | None = None
    notice: list[Text] = field(default_factory=list)


class Log:
    """Piped: every part printed once, as it comes."""

    def __init__(self, console: Console) -> None:
        self.console = console

    @contextmanager
    def shown(self) -> Iterator[None]:
        yield

    def match(self, parts: Parts) -> None:
        self.console.clear()
        self.console.print(parts.boards[0])
        for line, _ in parts.lines:
            self.console.print(line)

    def ask(self, menus: Sequence[RenderableType] | None, prompt: Text) -> None:
        if menus:
            self.console.print(menus[0])
        self.console.print(prompt, end="")

    def notice(self, line: Text) -> None:
        self.console.print(line)

    def echo(self, answer: str) -> None:
        """An answer read from the pipe, as a terminal would have shown it typed."""
        self.console.print(answer, markup=False, highlight=False)

    def flush(self) -> None:
        """Nothing waits: every part is printed as it comes."""

    def resized(self) -> None:
        """A log is not drawn again."""

    @property
    def drawn_in_place(self) -> bool:
        return False


class Window:
    """A terminal window: the screen fitted to it and drawn again whole, on ``flush``, when it changed."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.parts = Parts(boards=[Text()])
        self.question = Question()
        self.unseen: list[Text] = []  # notices not yet drawn
        self.dirty = False

    @contextmanager
    def shown(self) -> Iterator[None]:
        """In the alternate screen, and back to the terminal as it was once the match is left."""
        self.console.set_alt_screen(True)
        try:
            yield
        finally:
            self.console.set_alt_screen(False)

    def match(self, parts: Parts) -> None:
        """A new state of the match: any question about the last one is gone."""
        self.parts, self.question, self.dirty = parts, Question(notice=self.unseen[:]), True

    def ask(self, menus: Sequence[RenderableType] | None, prompt: Text) -> None:
        """The question, with its menus (None: the menu shown, asked again with its notice)."""
        if menus is None:
            self.question.prompt = prompt
        else:
            self.question = Question(menus, prompt, self.unseen[:])
        self.dirty = True

    def notice(self, line: Text) -> None:
        """What the last answer was told; it stays on screen until a new question is asked after it
        was shown (a new state of the match keeps it: a refused action's reason)."""
        self.question.notice.append(line)
        self.unseen.append(line)
        self.dirty = True

    def resized(self) -> None:
        self.dirty = True

    def echo(self, answer: str) -> None:
        """The terminal shows what is typed itself."""

    @property
    def drawn_in_place(self) -> bool:
        return True

    def flush(self) -> None:
        if not self.dirty:
            return
        self.dirty = False
        self.unseen.clear()
        console = self.console
        width, height = console.size
        lines = screen_lines(console, self.parts, self.question, width, height - 1)  # Enter's line
        flat: list[Segment] = []
        for number, line in enumerate(lines):
            flat.extend(line)
            if number < len(lines) - 1:
                flat.append(Segment.line())
        with echo_held(console.file):
            console.clear()
            console.print(Segments(flat), end="", crop=False, soft_wrap=True)


@contextmanager
def echo_held(file: IO[str]) -> Iterator[None]:
    """The terminal does not echo what is typed while a screen is drawn. Linux echoes typed keys as
    its line discipline gets to them, between any two writes of the program: an answer typed just
    as the screen is drawn again would land inside the new screen, pushing it down a line. What is
    typed meanwhile is still read; the keys typed before are echoed before the screen is cleared."""
    try:
        import termios
    except ImportError:  # not POSIX
        yield
        return
    try:
        fd = file.fileno()
        mode = termios.tcgetattr(fd)
    except (termios.error, AttributeError, ValueError, OSError):  # not a terminal
        yield
        return
    quiet = list(mode)
    quiet[3] &= ~termios.ECHO
    termios.tcsetattr(fd, termios.TCSANOW, quiet)
    try:
        yield
    finally:
        termios.tcsetattr(fd, termios.TCSANOW, mode)


def screen_lines(
    console: Console, parts: Parts, question: Question, width: int, room: int
) -> list[list[Segment]]:
    """The screen as lines of ``width`` cells, at most ``room`` of them: the roomiest menu and board
    that fit with the lines under the board, the notice and the prompt, the log taking what is left
    (with a compact board); else the shortest, its top cut off."""
    options = console.options.update_width(width)

    def render(renderables: Sequence[RenderableType]) -> list[list[Segment]]:
        return console.render_lines(Group(*renderables), options, pad=False) if renderables else []

    def last_moves(room: int) -> list[list[Segment]]:
        """The newest moves of the log that fit in ``room`` lines, each whole."""
        kept: list[list[Segment]] = []
        for move in reversed(parts.log):
            lines = render([move])
            if len(kept) + len(lines) > room:
                break
            kept[:0] = lines
        return kept

    every = render([line for line, _ in parts.lines])
    needed = render([line for line, optional in parts.lines if not optional])
    ending = render([*question.notice])
    prompt = render([question.prompt] if question.prompt is not None else [])
    menus = [render([menu]) for menu in question.menus] or [[]]
    boards = [render([board]) for board in parts.boards]
    for asked in menus:
        for board_number, board in enumerate(boards):
            for below in (every, needed):
                left = room - len(board) - len(below) - len(asked) - len(ending) - len(prompt)
                if left < 0:
                    continue
                if board_number == 0:
                    return [*board, *below, *asked, *ending, *prompt]
                return [*board, *last_moves(left), *below, *asked, *ending, *prompt]
    shortest = min(
        ([*board, *needed, *asked, *ending, *prompt] for asked in menus for board in boards), key=len
    )
    return shortest[max(0, len(shortest) - room) :]
