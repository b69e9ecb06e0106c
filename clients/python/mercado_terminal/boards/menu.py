"""The legal actions of a rules-JSON game as a two-step menu, answered by number or by text.

As Mercado's menu (``mercado_terminal/menu.py``): the first step lists one entry per kind of action
("build a café", "bid 11", "sell 2a"); an entry grouping several actions then asks which one (the
cell, the extra card), numbered from 1, 0 going back. At either step an action may also be typed out
in the rules' text ('build cafe 1b', 'bid 11+4'), with or without its first word.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Final, Literal

from mercado.v1 import match_pb2 as api
from rich.columns import Columns
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

BACK: Final = "back"


@dataclass(frozen=True)
class Described:
    """What a game says of one legal action for the menu."""

    key: Hashable  # actions with the same key form one first-step entry
    title: Text  # the entry's line
    noun: str = ""  # what the second step chooses ("cell", "extra card"); '' for a lone action
    target: str = ""  # this action's answer at the second step ('1b', '4', 'none')
    cost: Text | None = None  # what it costs and pays, styled
    label: str = ""  # the second step's line, when not just the target
    summary: str = ""  # what the first step says of its group's choices; default '3 cells'


@dataclass(frozen=True)
class ActionChoice:
    """One legal action with its rules text (and, once grouped, its target and cost)."""

    action: api.Action
    text: str
    target: str = ""
    label: Text | None = None


@dataclass(frozen=True)
class ActionGroup:
    """One first-step entry and the actions it groups."""

    title: Text
    choices: tuple[ActionChoice, ...]
    noun_of_targets: str = ""

    @property
    def noun(self) -> str:
        """What the second step chooses; '' when the entry is one action."""
        return self.noun_of_targets if len(self.choices) > 1 else ""


def _with_cost(text: Text, cost: Text | None) -> Text:
    return Text.assemble(text, "  ", cost) if cost is not None and cost.plain else text


def grouped(described: Sequence[tuple[Described, ActionChoice]]) -> list[ActionGroup]:
    """The first step's entries, in the order of their first action (the rules' stable order)."""
    keys: dict[Hashable, list[tuple[Described, ActionChoice]]] = {}
    for item in described:
        keys.setdefault(item[0].key, []).append(item)
    groups = []
    for items in keys.values():
        first = items[0][0]
        if len(items) == 1:
            groups.append(ActionGroup(_with_cost(first.title, first.cost), (items[0][1],)))
            continue
        choices = tuple(
            ActionChoice(
                choice.action,
                choice.text,
                d.target,
                _with_cost(Text(d.label or d.target), d.cost),
            )
            for d, choice in items
        )
        costs = {d.cost.plain for d, _ in items if d.cost is not None}
        title = first.title.copy()
        title.append(f": {first.summary or f'{len(items)} {first.noun}s'}", "dim")
        if len(costs) == 1 and first.cost is not None:  # the same cost whichever is chosen
            title = _with_cost(title, first.cost)
        groups.append(ActionGroup(title, choices, first.noun))
    return groups


def number_text(number: int) -> Text:
    return Text(f"{number:>3} ", "bold cyan")


def render_groups(
    groups: Sequence[ActionGroup], extras: Sequence[Text] = (), columns: int = 1
) -> RenderableType:
    """The first step: numbered entries (number = index + 1), then ``extras`` (e.g. resigning); in
    ``columns`` columns, numbered down each in turn."""
    lines = [Text.assemble(number_text(n), g.title) for n, g in enumerate(groups, 1)]
    lines += [Text.assemble(number_text(n), extra) for n, extra in enumerate(extras, len(groups) + 1)]
    if columns == 1:
        return Group(Text("your turn", "bold"), *lines)
    for line in lines:  # an entry a line, cut short if it must be
        line.no_wrap, line.overflow = True, "ellipsis"
    grid = Table.grid(padding=(0, 1), expand=True)
    for _ in range(columns):
        grid.add_column(ratio=1)
    rows = -(-len(lines) // columns)
    for row in range(rows):
        grid.add_row(
            *(lines[at] if (at := column * rows + row) < len(lines) else "" for column in range(columns))
        )
    return Group(Text("your turn", "bold"), grid)


def render_targets(group: ActionGroup) -> RenderableType:
    """The second step: the entry's actions numbered from 1; 0 goes back."""
    heading = Text.assemble(group.title, f" — which {group.noun}?", style="bold")
    labels = [Text.assemble(number_text(n), c.label or c.target) for n, c in enumerate(group.choices, 1)]
    back = Text.assemble(number_text(0), ("back", "dim"))
    return Group(heading, Columns(labels, padding=(0, 3)), back)


def _words(text: str) -> str:
    return " ".join(text.lower().split())


def typed_choice(groups: Sequence[ActionGroup], answer: str) -> ActionChoice | None:
    """The legal action ``answer`` writes out: its whole text, or the text without its first word
    when only one action reads so ('cafe 1b', '11+4')."""
    typed = _words(answer)
    if not typed:
        return None
    choices = [c for g in groups for c in g.choices]
    exact = next((c for c in choices if _words(c.text) == typed), None)
    if exact is not None:
        return exact
    tails = [c for c in choices if _words(c.text).partition(" ")[2] == typed]
    return tails[0] if len(tails) == 1 else None


def pick_target(group: ActionGroup, answer: str) -> ActionChoice | Literal["back"] | None:
    """The second step's answer: an action by number, by target ('1b') or by text; BACK for '0'."""
    answer = answer.strip()
    if answer.isdigit():
        number = int(answer)
        if number == 0:
            return BACK
        if number <= len(group.choices):
            return group.choices[number - 1]
    named = [c for c in group.choices if c.target and c.target.lower() == answer.lower()]
    if len(named) == 1:
        return named[0]
    return typed_choice([group], answer)
