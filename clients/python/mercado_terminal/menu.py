"""The legal actions as a two-step menu: first what to do (a kind and a tile), then where.

A turn can have over a hundred legal actions, so they are grouped: one entry per
kind of action and tile ("open a fish stand", "bring L2 fish+meat customers",
"open a pub", "take a coin"), then, for a group of several actions, the squares
or entrances it can go to. Every step is numbered from 1, so answering "1" at
every prompt always reaches a legal action.

The cost and income hints are the server's (``MatchState.previews``, one per legal
action): no client re-implements the payment rules.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal

from mercado.v1 import match_pb2 as api
from mercado.v1 import mercado_pb2 as pb
from mercado_client.wire import (
    COLUMNS,
    GOODS,
    SIDES,
    action_json,
    describe,
    good_enum,
    restaurant_enum,
    square_name,
)
from rich.columns import Columns
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from .board import good_text, goods_text, restaurant_text

# Menu order of the action types.
ORDER = (
    "take_offer",
    "refresh_offer",
    "open_stand",
    "bring_customer",
    "open_restaurant",
    "take_coin",
    "redraw_hand",
)
_ORDER = {kind: i for i, kind in enumerate(ORDER)}
FACE_DOWN_MARK = "◆"
FACE_DOWN_STYLE = "bold magenta"
BACK: Final = "back"
TARGET_NOUNS = {"open_stand": "square", "open_restaurant": "square", "bring_customer": "entrance"}
# The small window's menu: a row of entries for each kind of tile (customers: for each level).
ROW_LABELS = {
    "take_offer": "offer",
    "refresh_offer": "offer",
    "open_stand": "stands",
    "open_restaurant": "rest.",
}
SHORT_TITLES = {"take_coin": "take a coin", "redraw_hand": "redraw your hand", "refresh_offer": "refresh it"}
COMPACT_COLUMNS = 3


@dataclass(frozen=True)
class Choice:
    """One legal action with the server's preview of what it costs and pays."""

    action: api.Action
    preview: pb.MercadoPreview
    kind: str
    target: str  # the square or entrance it goes to; "" for none
    face_down: bool  # its square holds a face-down restaurant, which the action takes
    key: tuple[object, ...]

    def income(self, seat: int | None) -> int:
        """What it pays ``seat`` (0 when hidden or nothing)."""
        return sum(e.amount for e in self.preview.earnings if e.seat == seat and e.HasField("amount"))


@dataclass(frozen=True)
class MenuGroup:
    """One entry of the first step: a kind of action with its tile, and the actions it groups."""

    kind: str
    title: Text
    choices: tuple[Choice, ...]
    key: tuple[object, ...]

    @property
    def noun(self) -> str:
        """What the second step chooses: 'square', 'entrance', or '' when there is nothing to choose."""
        return TARGET_NOUNS.get(self.kind, "") if len(self.choices) > 1 or self.choices[0].target else ""


def _choice(action: api.Action, preview: pb.MercadoPreview, face_down: set[str]) -> Choice:
    data = action_json(action)
    kind = data["type"]
    target = data.get("square") or data.get("entrance") or ""
    if kind == "open_stand":
        key: tuple[object, ...] = (GOODS.index(data["good"]),)
    elif kind == "bring_customer":
        key = (data["level"], tuple(GOODS.index(g) for g in data["goods"]))
    elif kind == "open_restaurant":
        key = (restaurant_enum(data["restaurant"]),)
    elif kind == "take_offer":
        key = (GOODS.index(data["good"]),)
    else:
        key = ()
    return Choice(action, preview, kind, target, target in face_down, key)


def _target_order(target: str) -> tuple[int, int]:
    """Squares in reading order (a1, b1, .. e5); entrances by side (top, bottom, left, right), then line."""
    if "-" in target:
        side, line = target.split("-")
        return (SIDES.index(side), COLUMNS.index(line) if line in COLUMNS else int(line) - 1)
    if target:
        return (int(target[1:]), COLUMNS.index(target[0]))
    return (0, 0)


def _title(choice: Choice) -> Text:
    data = action_json(choice.action)
    kind = choice.kind
    if kind == "open_stand":
        return Text.assemble("open a ", good_text(good_enum(data["good"])), " stand")
    if kind == "bring_customer":
        tile = goods_text([good_enum(g) for g in data["goods"]], "+")
        return Text.assemble(f"bring L{data['level']} ", tile, " customers")
    if kind == "open_restaurant":
        return Text.assemble("open a ", restaurant_text(restaurant_enum(data["restaurant"])))
    if kind == "take_offer":
        return Text.assemble("take ", good_text(good_enum(data["good"])), " from the offer")
    titles = {
        "take_coin": "take a coin",
        "redraw_hand": "redraw your hand of three identical tiles (before your action)",
        "refresh_offer": "refresh the offer of three identical tiles (before taking)",
    }
    return Text(titles.get(kind, describe(choice.action)))


def menu_choices(state: api.MatchState) -> list[Choice]:
    """The legal actions of ``state`` with their previews, in menu order."""
    face_down = {
        square_name(c.square) for c in state.view.mercado.market if c.WhichOneof("content") == "face_down"
    }
    previews = [p.mercado for p in state.previews]
    if len(previews) != len(state.legal_actions):  # a server that sends no previews: no hints
        previews = [pb.MercadoPreview()] * len(state.legal_actions)
    choices = [_choice(a, p, face_down) for a, p in zip(state.legal_actions, previews, strict=True)]
    return sorted(choices, key=lambda c: (_ORDER.get(c.kind, len(_ORDER)), c.key, _target_order(c.target)))


def menu_groups(state: api.MatchState) -> list[MenuGroup]:
    """The first step: one group per kind of action and tile, in menu order (number = index + 1)."""
    groups: dict[tuple[object, ...], list[Choice]] = {}
    for choice in menu_choices(state):
        groups.setdefault((_ORDER.get(choice.kind, len(_ORDER)), choice.kind, *choice.key), []).append(choice)
    return [MenuGroup(cs[0].kind, _title(cs[0]), tuple(cs), key) for key, cs in groups.items()]


# --- hints ---------------------------------------------------------------------------------------


def _span(values: Sequence[int]) -> str:
    low, high = min(values), max(values)
    return f"{low}" if low == high else f"{low}-{high}"


def payment_text(choice: Choice, seat: int | None, names: Sequence[str]) -> Text:
    """What the action costs (' $2') and pays: you (' +3'), others (' (+2 bob)', ' (+? bob)' when hidden)."""
    text = Text()
    if choice.preview.cost:
        text.append(f" ${choice.preview.cost}", "yellow")
    mine = choice.income(seat)
    if mine:
        text.append(f" +{mine}", "bold green")
    for earning in choice.preview.earnings:
        if earning.seat == seat:
            continue
        amount = str(earning.amount) if earning.HasField("amount") else "?"
        name = names[earning.seat] if earning.seat < len(names) else f"seat {earning.seat + 1}"
        text.append(f" (+{amount} {name[:10]})", "dim")
    return text


def group_summary(group: MenuGroup, seat: int | None, names: Sequence[str]) -> Text:
    """The first step's line for a group: its title and what its actions cost and pay."""
    text = group.title.copy()
    choices = group.choices
    if not group.noun:
        return Text.assemble(text, payment_text(choices[0], seat, names))
    if len(choices) == 1:
        text.append(f" on {choices[0].target}")
        if choices[0].face_down:
            text.append(f" {FACE_DOWN_MARK}", FACE_DOWN_STYLE)
        return Text.assemble(text, payment_text(choices[0], seat, names))
    text.append(f": {len(choices)} {group.noun}s", "dim")
    costs = [c.preview.cost for c in choices]
    if any(costs):
        text.append(f", ${_span(costs)}", "yellow")
    incomes = [c.income(seat) for c in choices]
    if any(incomes):
        text.append(f", up to +{max(incomes)}", "bold green")
    face_down = sum(c.face_down for c in choices)
    if face_down:
        text.append(f", {face_down} with {FACE_DOWN_MARK}", FACE_DOWN_STYLE)
    return text


# --- rendering -----------------------------------------------------------------------------------


def number_text(number: int) -> Text:
    return Text(f"{number:>3} ", "bold cyan")


def render_groups(
    groups: Sequence[MenuGroup], seat: int | None, names: Sequence[str], extras: Sequence[Text] = ()
) -> RenderableType:
    """The first step: numbered groups (number = index + 1), then ``extras`` (e.g. resigning)."""
    lines = [Text.assemble(number_text(n), group_summary(g, seat, names)) for n, g in enumerate(groups, 1)]
    lines += [Text.assemble(number_text(n), extra) for n, extra in enumerate(extras, len(groups) + 1)]
    legend = any(c.face_down for g in groups for c in g.choices)
    heading = Text("your turn", "bold")
    if legend:
        heading.append(f"   ({FACE_DOWN_MARK} takes a face-down restaurant)", FACE_DOWN_STYLE)
    return Group(heading, *lines)


def short_summary(group: MenuGroup, seat: int | None) -> Text:
    """A group's tile and what its actions cost and pay, in few words: 'fish $2-3 +4 ◆'."""
    data = action_json(group.choices[0].action)
    kind = group.kind
    if kind in ("open_stand", "take_offer"):
        text = good_text(good_enum(data["good"]))
    elif kind == "bring_customer":
        text = goods_text([good_enum(g) for g in data["goods"]], "+")
    elif kind == "open_restaurant":
        text = restaurant_text(restaurant_enum(data["restaurant"]))
    else:
        text = Text(SHORT_TITLES.get(kind, kind))
    costs = [c.preview.cost for c in group.choices]
    if any(costs):
        text.append(f" ${_span(costs)}", "yellow")
    incomes = [c.income(seat) for c in group.choices]
    if any(incomes):
        text.append(f" +{max(incomes)}", "bold green")
    if any(c.face_down for c in group.choices):
        text.append(f" {FACE_DOWN_MARK}", FACE_DOWN_STYLE)
    return text


def _row_label(group: MenuGroup) -> str:
    if group.kind == "bring_customer":
        return f"L{action_json(group.choices[0].action)['level']}"
    return ROW_LABELS.get(group.kind, "")


def compact_groups(
    groups: Sequence[MenuGroup], seat: int | None, names: Sequence[str], extras: Sequence[Text] = ()
) -> RenderableType:
    """The first step for a small window, laid out as the tiles lie: the offer, the stands of the
    hand, the customer tiles by level, the restaurants, then the rest; numbered as ``render_groups``."""
    rows: dict[str, list[Text]] = {}
    for number, group in enumerate(groups, 1):
        rows.setdefault(_row_label(group), []).append(
            Text.assemble(number_text(number), short_summary(group, seat))
        )
    rows.setdefault("", []).extend(
        Text.assemble(number_text(number), extra) for number, extra in enumerate(extras, len(groups) + 1)
    )
    grid = Table.grid(padding=(0, 1))
    grid.add_column(style="dim", no_wrap=True)
    for _ in range(COMPACT_COLUMNS):
        grid.add_column()
    for label, entries in rows.items():
        for start in range(0, len(entries), COMPACT_COLUMNS):
            grid.add_row(label if start == 0 else "", *entries[start : start + COMPACT_COLUMNS])
    heading = Text("your turn", "bold")
    if any(c.face_down for g in groups for c in g.choices):
        heading.append(f"   ({FACE_DOWN_MARK} takes a face-down restaurant)", FACE_DOWN_STYLE)
    return Group(heading, grid)


def target_label(number: int, choice: Choice, seat: int | None, names: Sequence[str]) -> Text:
    label = Text.assemble(number_text(number), choice.target)
    if choice.face_down:
        label.append(f" {FACE_DOWN_MARK}", FACE_DOWN_STYLE)
    return Text.assemble(label, payment_text(choice, seat, names))


def render_targets(group: MenuGroup, seat: int | None, names: Sequence[str]) -> RenderableType:
    """The second step: the group's squares (on a 5x5 grid) or entrances, numbered from 1; 0 goes back."""
    labels = {c.target: target_label(n, c, seat, names) for n, c in enumerate(group.choices, 1)}
    heading = Text.assemble(group.title, f": which {group.noun}?", style="bold")
    hints = [Text("   $ cost", "yellow"), Text("   + your income", "bold green")]
    if any(c.face_down for c in group.choices):
        hints.append(Text(f"   {FACE_DOWN_MARK} takes the face-down restaurant there", FACE_DOWN_STYLE))
    back = Text.assemble(number_text(0), ("back", "dim"))
    if group.noun == "square":
        grid = Table.grid(padding=(0, 2))
        for _ in COLUMNS:
            grid.add_column()
        for row in range(1, 6):
            grid.add_row(*(labels.get(f"{c}{row}", Text(f"    {c}{row}", "dim")) for c in COLUMNS))
        return Group(Text.assemble(heading, *hints), grid, back)
    return Group(Text.assemble(heading, *hints), Columns(list(labels.values()), padding=(0, 3)), back)


# --- answers ------------------------------------------------------------------------------------


def parse_number(answer: str, count: int, lowest: int = 1) -> int | None:
    """The number ``answer`` names from ``lowest`` to ``count``, else None."""
    answer = answer.strip()
    if answer.isdigit() and lowest <= int(answer) <= count:
        return int(answer)
    return None


def pick_target(group: MenuGroup, answer: str) -> Choice | Literal["back"] | None:
    """The second step's answer: a Choice (by number, or by name like 'c3' or 'top-a'), BACK for '0',
    None when it names nothing."""
    number = parse_number(answer, len(group.choices), lowest=0)
    if number == 0:
        return BACK
    if number is not None:
        return group.choices[number - 1]
    name = answer.strip().lower()
    return next((c for c in group.choices if c.target == name), None)
