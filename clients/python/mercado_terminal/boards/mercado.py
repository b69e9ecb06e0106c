"""Mercado de Lisboa's screen as a game board: its own board, menu and narration (``board.py``,
``menu.py``, ``narrate.py``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from mercado.v1 import match_pb2 as api
from rich.console import RenderableType
from rich.text import Text

from .. import menu, narrate
from ..board import compact_match, final_ranks, render_match, seat_tag
from .base import read_numbered


class MercadoBoard:
    """Mercado's market, players and supply; its two-step menu answered by number."""

    title = "Mercado de Lisboa"

    def render(self, state: api.MatchState, side: RenderableType | None = None) -> RenderableType:
        return render_match(state, side=side)

    def compact(self, state: api.MatchState) -> list[RenderableType]:
        return [compact_match(state), compact_match(state, supply=False)]

    def groups(self, state: api.MatchState) -> list[menu.MenuGroup]:
        return menu.menu_groups(state)

    def render_groups(
        self, groups: Sequence[menu.MenuGroup], seat: int, names: Sequence[str], extras: Sequence[Text]
    ) -> RenderableType:
        return menu.render_groups(groups, seat, names, extras)

    def compact_groups(
        self, groups: Sequence[menu.MenuGroup], seat: int, names: Sequence[str], extras: Sequence[Text]
    ) -> RenderableType:
        return menu.compact_groups(groups, seat, names, extras)

    def render_targets(self, group: menu.MenuGroup, seat: int, names: Sequence[str]) -> RenderableType:
        return menu.render_targets(group, seat, names)

    def pick_target(self, group: menu.MenuGroup, answer: str) -> menu.Choice | Literal["back"] | None:
        return menu.pick_target(group, answer)

    def read(
        self, groups: Sequence[menu.MenuGroup], answer: str
    ) -> menu.MenuGroup | Literal["resign"] | None:
        return read_numbered(groups, answer)

    def first_hint(self, groups: Sequence[menu.MenuGroup]) -> str:
        return f"1-{len(groups) + 1}"

    def misread(self, groups: Sequence[menu.MenuGroup]) -> str:
        return f"type a number from 1 to {len(groups) + 1}"

    def update_lines(self, update: api.MatchUpdate, names: Sequence[str]) -> list[Text]:
        return narrate.update_lines(update, names)

    def waiting_text(self, state: api.MatchState, seat: int, names: Sequence[str]) -> Text:
        return Text.assemble("waiting for ", seat_tag(state.to_move, names), " to move…")

    def result(self, state: api.MatchState) -> tuple[list[int], list[int]] | None:
        scores = list(state.view.mercado.result.scores)
        return (scores, final_ranks(state)) if scores else None
