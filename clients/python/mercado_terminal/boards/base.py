"""What the terminal's game loop (``play.py``) asks of a game's screen, and the part of it that every game
whose view is the rules' JSON shares: the layout, the seat panels' frame, the status line, the result
table and the narration of updates.

A game's board (``oregano.py``, ``leilao.py``) fills in what is its own: what the table shows, what a
seat has, each legal action's text, group and cost, and each event as a line.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal, Protocol, TypeVar

from mercado.v1 import match_pb2 as api
from mercado_client.games import action_json, event_json, view_json
from rich import box
from rich.columns import Columns
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from server.games.registry import game_named

from ..board import (
    STATUS_NAMES,
    clock_time,
    seat_clock,
    seat_info,
    seat_marks,
    seat_names,
    seat_tag,
    time_left_ms,
)
from ..menu import parse_number
from . import menu
from .menu import ActionChoice, ActionGroup, Described

RESIGN: Final = "resign"
G = TypeVar("G")


class ChoiceLike(Protocol):
    """One legal action of a menu step."""

    @property
    def action(self) -> api.Action: ...
    @property
    def target(self) -> str: ...


class GroupLike(Protocol):
    """One entry of a menu's first step: the actions it groups, and what the second step chooses."""

    @property
    def choices(self) -> Sequence[ChoiceLike]: ...
    @property
    def noun(self) -> str: ...


class GameBoard(Protocol):
    """A game's screen: what ``play.Session`` draws, offers and narrates."""

    title: str  # the game as people name it

    def render(self, state: api.MatchState, side: RenderableType | None = None) -> RenderableType: ...

    def compact(self, state: api.MatchState) -> Sequence[RenderableType]:
        """The match in fewer lines, for a small window: its renderings, roomiest first, the last
        leaving out what helps but is not needed to play (a table of prices, the supply)."""
        ...

    def groups(self, state: api.MatchState) -> Sequence[GroupLike]: ...

    def render_groups(
        self, groups: Sequence[Any], seat: int, names: Sequence[str], extras: Sequence[Text]
    ) -> RenderableType: ...

    def compact_groups(
        self, groups: Sequence[Any], seat: int, names: Sequence[str], extras: Sequence[Text]
    ) -> RenderableType | None:
        """The first step in fewer lines, for a small window; None when it has no such form."""
        ...

    def render_targets(self, group: Any, seat: int, names: Sequence[str]) -> RenderableType: ...

    def pick_target(self, group: Any, answer: str) -> ChoiceLike | Literal["back"] | None: ...

    def read(self, groups: Sequence[Any], answer: str) -> api.Action | GroupLike | Literal["resign"] | None:
        """The first step's answer: the entry it chooses, the action it writes out, or resigning (the
        number after the last entry); None when it says none of them."""
        ...

    def first_hint(self, groups: Sequence[Any]) -> str:
        """What the first step's prompt says may be answered: '1-5', '1-5, or an action like bid 1'."""
        ...

    def misread(self, groups: Sequence[Any]) -> str:
        """What an answer the first step cannot read is told: 'type a number from 1 to 5'."""
        ...

    def update_lines(self, update: api.MatchUpdate, names: Sequence[str]) -> list[Text]: ...

    def waiting_text(self, state: api.MatchState, seat: int, names: Sequence[str]) -> Text:
        """While ``seat`` waits for others to act: whom it waits for."""
        ...

    def result(self, state: api.MatchState) -> tuple[list[int], list[int]] | None:
        """Once finished: each seat's score and rank (the summary's ranks, forfeited seats last)."""
        ...


def movers(state: api.MatchState) -> list[int]:
    """The seats that must act now: several in a simultaneous step, else the one to move."""
    if state.seats_to_move:
        return list(state.seats_to_move)
    return [state.to_move] if state.HasField("to_move") else []


def read_numbered(groups: Sequence[G], answer: str) -> G | Literal["resign"] | None:
    """A numbered first step's answer: the entry it numbers, or resigning (the number after the last)."""
    number = parse_number(answer, len(groups) + 1)
    if number is None:
        return None
    return RESIGN if number == len(groups) + 1 else groups[number - 1]


def seat_list(seats: Sequence[int], names: Sequence[str]) -> Text:
    return Text(", ").join(seat_tag(s, names) for s in seats)


def amounts_text(amounts: dict[str, int] | Sequence[tuple[str, int]], sign: str = "") -> str:
    """'1 wood, 1 stone' (a cost), '+5 gold' (with ``sign``); 'free' for nothing."""
    items = amounts.items() if isinstance(amounts, dict) else amounts
    words = [f"{sign}{amount} {what}" for what, amount in items if amount]
    return ", ".join(words) if words else "free"


@dataclass(frozen=True)
class Seen:
    """What a board renders from: the match, its view (the rules' JSON), the viewer and the names."""

    state: api.MatchState
    view: dict[str, Any]
    seat: int | None  # the viewer; None for a spectator
    names: list[str]

    @property
    def playing(self) -> bool:
        return self.state.match.status == api.MATCH_STATUS_PLAYING

    @property
    def movers(self) -> list[int]:
        return movers(self.state) if self.playing else []


class RulesBoard(ABC):
    """The screen of a game whose view, actions and events are the rules' JSON (``games.py``)."""

    game = ""
    title = ""
    rules_text = ""  # one line under the result: how the score is made

    def __init__(self) -> None:
        self.rules = game_named(self.game)

    # --- what a game fills in -------------------------------------------------------------------

    @abstractmethod
    def status_parts(self, seen: Seen) -> list[Text]:
        """The game's part of the status line: round, phase, whose step."""
        ...

    @abstractmethod
    def table(self, seen: Seen) -> RenderableType | None:
        """What every seat shares on the table."""
        ...

    @abstractmethod
    def seat_rows(self, seen: Seen, seat: int) -> list[tuple[str, RenderableType]]:
        """A seat's panel, as (label, value) rows."""
        ...

    def seat_mark(self, seen: Seen, seat: int) -> Text | None:
        """A word after a seat's name in its panel's title beyond 'to move' (e.g. 'has bid')."""
        return None

    @abstractmethod
    def describe(self, seen: Seen, data: dict[str, Any]) -> Described:
        """A legal action's menu entry: its group, title, second-step target and cost."""
        ...

    @abstractmethod
    def event_text(self, event: dict[str, Any], names: Sequence[str]) -> Text | None:
        """One event as a log line; None for what the board shows anyway."""
        ...

    def result_columns(self, seen: Seen, seat: int) -> list[str]:
        """What the result table shows of a seat besides its rank and score."""
        return []

    result_headers: tuple[str, ...] = ()

    # --- what they share ------------------------------------------------------------------------

    def seen(self, state: api.MatchState) -> Seen:
        view = view_json(state) or {}
        seat = state.your_seat if state.HasField("your_seat") else None
        return Seen(state, view, seat, seat_names(state))

    def action_text(self, data: dict[str, Any]) -> str:
        """The rules' text of an action: 'build cafe 1b', 'bid 11+4'."""
        return self.rules.action_text(self.rules.action_from_json(data))

    def render(self, state: api.MatchState, side: RenderableType | None = None) -> RenderableType:
        return RulesView(self, self.seen(state), side)

    def status_text(self, seen: Seen, now_ms: int | None = None, compact: bool = False) -> Text:
        """The status line; ``compact``, without the match's id and version (the waiting line has the id)."""
        state = seen.state
        parts = [Text(self.title, "bold")]
        if not compact:
            parts = [Text(f"match {state.match.match_id}", "bold"), *parts]
        if not compact or state.match.status != api.MATCH_STATUS_PLAYING:
            parts.append(Text(STATUS_NAMES.get(state.match.status, "?")))
        parts += self.status_parts(seen)
        left = time_left_ms(state, now_ms)
        if left is not None:
            parts.append(Text(f"{clock_time(left)} left", "bold yellow"))
        if not compact:
            parts.append(Text(f"version {state.version}", "dim"))
        return Text(" · ").join(parts)

    def seat_title(self, seen: Seen, seat: int) -> Text:
        """A seat's name as its panel's title: 'ada (seat 1, you)', '▶ … to move', and the game's mark."""
        title = seat_tag(seat, seen.names)
        if seat == seen.seat:
            label = title.plain
            title = Text(label[:-1] + ", you)" if label.endswith(")") else label + " (you)", title.style)
        if seat in seen.movers:
            title = Text.assemble(("▶ ", "bold yellow"), title, (" to move", "bold yellow"))
        mark = self.seat_mark(seen, seat)
        return title if mark is None else Text.assemble(title, " ", mark)

    def seat_extras(self, seen: Seen, seat: int) -> list[tuple[str, Text]]:
        """A seat's clock, and what it is beyond its player (a bot, played by the AI, forfeited)."""
        rows: list[tuple[str, Text]] = []
        clock = seat_clock(seen.state, seat, seat in seen.movers)
        if clock is not None:
            rows.append(("clock", clock))
        marks = seat_marks(seen.state, seat)
        if marks:
            rows.append(("", Text(", ").join(marks)))
        return rows

    def seat_panel(self, seen: Seen, seat: int) -> Panel:
        grid = Table.grid(padding=(0, 1))
        grid.add_column(style="dim")
        grid.add_column()
        for label, value in [*self.seat_rows(seen, seat), *self.seat_extras(seen, seat)]:
            grid.add_row(label, value)
        title = self.seat_title(seen, seat)
        border = "yellow" if seat in seen.movers else "dim"
        return Panel(grid, title=title, title_align="left", border_style=border)

    def compact_title(self, seen: Seen, seat: int) -> Text:
        """A seat's name in a small window: '▶ ada (seat 1, you)' and the game's mark (the status line
        says who is to move and for how long)."""
        title = seat_tag(seat, seen.names)
        if seat == seen.seat:
            label = title.plain
            title = Text(label[:-1] + ", you)" if label.endswith(")") else label + " (you)", title.style)
        marker = ("▶ ", "bold yellow") if seat in seen.movers else "  "
        mark = self.seat_mark(seen, seat)
        return Text.assemble(marker, title, *((" ", mark) if mark is not None else ()))

    def compact_words(self, seen: Seen, seat: int) -> list[Text]:
        """A seat's rows for a small window, as words: 'score 12', 'reserve 2:40', 'bot, easy'."""
        rows = [(label, value) for label, value in self.seat_rows(seen, seat) if isinstance(value, Text)]
        words = [Text.assemble((f"{label} ", "dim") if label else "", value) for label, value in rows]
        return words + self.compact_extras(seen, seat)

    @staticmethod
    def compact_extras(seen: Seen, seat: int) -> list[Text]:
        """A person's reserve, and what the seat is beyond its player (a bot, played by the AI)."""
        info = seat_info(seen.state, seat)
        words = []
        if seen.state.match.time_control.turn_seconds and info is not None and not info.bot:
            words.append(Text.assemble(("reserve ", "dim"), clock_time(info.reserve_ms)))
        return words + seat_marks(seen.state, seat)

    def compact_seat(self, seen: Seen, seat: int) -> RenderableType:
        """A seat in a small window: its name and its rows in a line (one that wraps)."""
        return Text.assemble(
            self.compact_title(seen, seat), "  ", Text(" · ").join(self.compact_words(seen, seat))
        )

    def compact_tables(self, seen: Seen) -> list[RenderableType]:
        """What every seat shares, in a small window: roomiest first (see ``compact``)."""
        table = self.table(seen)
        return [table if table is not None else Group()]

    def compact(self, state: api.MatchState) -> list[RenderableType]:
        seen = self.seen(state)
        status = self.status_text(seen, compact=True)
        if not seen.view:
            return [status]
        players = seen.state.match.players or len(seen.names)
        seats = [self.compact_seat(seen, seat) for seat in range(players)]
        return [Group(status, table, *seats) for table in self.compact_tables(seen)]

    def result(self, state: api.MatchState) -> tuple[list[int], list[int]] | None:
        result = (view_json(state) or {}).get("result")
        if not result:
            return None
        scores = list(result["scores"])
        ranks = list(state.match.ranks)
        return scores, ranks if len(ranks) == len(scores) else list(result["ranks"])

    def result_table(self, seen: Seen) -> Table | None:
        found = self.result(seen.state)
        if found is None:
            return None
        scores, ranks = found
        table = Table(title="final scores", title_style="bold", box=box.SIMPLE_HEAVY, caption=self.rules_text)
        table.caption_style = "dim"
        for header in ("rank", "player", "score", *self.result_headers, ""):
            table.add_column(header, justify="left" if header in ("player", "") else "right")
        for seat in sorted(range(len(scores)), key=lambda s: (ranks[s], s)):
            info = seat_info(seen.state, seat)
            table.add_row(
                Text(str(ranks[seat]), "bold yellow" if ranks[seat] == 1 else ""),
                seat_tag(seat, seen.names),
                str(scores[seat]),
                *self.result_columns(seen, seat),
                Text("forfeited", "bold red") if info is not None and info.forfeited else "",
            )
        return table

    # --- choosing -------------------------------------------------------------------------------

    def groups(self, state: api.MatchState) -> list[ActionGroup]:
        seen = self.seen(state)
        choices = []
        for action in state.legal_actions:
            data = action_json(action)
            choices.append((self.describe(seen, data), ActionChoice(action, self.action_text(data))))
        return menu.grouped(choices)

    def render_groups(
        self, groups: Sequence[ActionGroup], seat: int, names: Sequence[str], extras: Sequence[Text]
    ) -> RenderableType:
        return menu.render_groups(groups, extras)

    def render_targets(self, group: ActionGroup, seat: int, names: Sequence[str]) -> RenderableType:
        return menu.render_targets(group)

    def pick_target(self, group: ActionGroup, answer: str) -> ActionChoice | Literal["back"] | None:
        return menu.pick_target(group, answer)

    def typed(self, groups: Sequence[ActionGroup], answer: str) -> api.Action | None:
        choice = menu.typed_choice(groups, answer)
        return choice.action if choice is not None else None

    def typed_hint(self, groups: Sequence[ActionGroup]) -> str:
        """How an action may be typed out instead: like the shortest one of the menu."""
        texts = [choice.text for group in groups for choice in group.choices]
        return f", or an action like {min(texts, key=len)}" if texts else ""

    def compact_groups(
        self, groups: Sequence[ActionGroup], seat: int, names: Sequence[str], extras: Sequence[Text]
    ) -> RenderableType | None:
        return menu.render_groups(groups, extras, columns=2)

    def read(
        self, groups: Sequence[ActionGroup], answer: str
    ) -> api.Action | ActionGroup | Literal["resign"] | None:
        return read_numbered(groups, answer) or self.typed(groups, answer)

    def first_hint(self, groups: Sequence[ActionGroup]) -> str:
        return f"1-{len(groups) + 1}{self.typed_hint(groups)}"

    def misread(self, groups: Sequence[ActionGroup]) -> str:
        return f"type a number from 1 to {len(groups) + 1}{self.typed_hint(groups)}"

    # --- narration ------------------------------------------------------------------------------

    def update_lines(self, update: api.MatchUpdate, names: Sequence[str]) -> list[Text]:
        """An update's events as one line (the action's text when no event says more)."""
        parts = [line for e in update.events if (line := self.event_text(event_json(e), names)) is not None]
        if not parts and update.HasField("seat") and update.action.WhichOneof("game") is not None:
            parts.append(
                Text.assemble(
                    seat_tag(update.seat, names), f" {self.action_text(action_json(update.action))}"
                )
            )
        return [Text("; ").join(parts)] if parts else []

    def waiting_text(self, state: api.MatchState, seat: int, names: Sequence[str]) -> Text:
        return Text.assemble("waiting for ", seat_list(movers(state), names), " to move…")


class RulesView:
    """A rules-JSON game's whole screen; ``side`` (the move log) goes beside or below the seats."""

    def __init__(self, board: RulesBoard, seen: Seen, side: RenderableType | None) -> None:
        self.board, self.seen, self.side = board, seen, side

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        board, seen = self.board, self.seen
        now = int(time.time() * 1000)
        yield board.status_text(seen, now)
        if not seen.view:  # no view yet (a server may send none while seats are open)
            return
        table = board.table(seen)
        if table is not None:
            yield table
        players = seen.state.match.players or len(seen.names)
        yield Columns([board.seat_panel(seen, seat) for seat in range(players)])
        if self.side is not None:
            yield self.side
        result = board.result_table(seen)
        if result is not None:
            yield result
