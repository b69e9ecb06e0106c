"""The legal actions as a numbered, grouped menu, with cost and income hints from the view.

The hints (a stand's cost and income, what a customer tile pays) follow
RULES.md "Earning money"; they only inform the player, the server decides.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from mercado.v1 import match_pb2 as api
from mercado.v1 import mercado_pb2 as pb
from rich.columns import Columns
from rich.console import Group, RenderableType
from rich.text import Text

from .board import RESTAURANTS as RESTAURANT_LABELS
from .board import good_text, goods_text, restaurant_text
from .wire import (
    COLUMNS,
    GOODS,
    action_json,
    describe,
    entrance_message,
    good_enum,
    good_name,
    restaurant_enum,
    square_name,
)

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


class Market:
    """Stands and face-up restaurants of a view, for cost and income hints.

    The client library does not depend on the server's engine, so these few payment rules are
    written here again; tests/clients/test_board.py checks them against the engine's.
    """

    def __init__(self, view: pb.MercadoView) -> None:
        self.stands: dict[str, tuple[str, int]] = {}  # square -> (good, owner)
        self.restaurants: dict[str, pb.Restaurant.ValueType] = {}
        for content in view.market:
            name = square_name(content.square)
            if content.WhichOneof("content") == "stand":
                self.stands[name] = (good_name(content.stand.good), content.stand.owner)
            elif content.WhichOneof("content") == "restaurant":
                self.restaurants[name] = content.restaurant
        self.tiles = {
            (e.entrance.side, e.entrance.line): (e.tile.level, {good_name(g) for g in e.tile.goods})
            for e in view.entrances
        }

    def cost(self, square: str) -> int:
        column, row = square[0], square[1]
        return 1 + max(
            sum(1 for s in self.stands if s[0] == column), sum(1 for s in self.stands if s[1] == row)
        )

    def value(self, good: str, square: str) -> int:
        column, row = COLUMNS.index(square[0]), int(square[1])
        neighbours = [(column + dc, row + dr) for dc, dr in ((1, 0), (-1, 0), (0, 1), (0, -1))]
        names = [f"{COLUMNS[c]}{r}" for c, r in neighbours if 0 <= c < 5 and 1 <= r <= 5]
        improving = [self.restaurants[n] for n in names if n in self.restaurants]
        return 1 + sum(1 for kind in improving if RESTAURANT_LABELS[kind][1] in (good, None))

    def stand_income(self, good: str, square: str) -> int:
        column, row = COLUMNS.index(square[0]) + 1, int(square[1])
        lines = [(pb.SIDE_TOP, column), (pb.SIDE_BOTTOM, column), (pb.SIDE_LEFT, row), (pb.SIDE_RIGHT, row)]
        tiles = [self.tiles[key] for key in lines if key in self.tiles]
        customers = sum(level for level, goods in tiles if good in goods)
        return customers * self.value(good, square)

    def customer_income(self, level: int, goods: Sequence[str], entrance: str) -> dict[int, int]:
        """Coins each owner earns when this tile is placed at ``entrance``."""
        message = entrance_message(entrance)
        vertical = message.side in (pb.SIDE_TOP, pb.SIDE_BOTTOM)
        income: dict[int, int] = {}
        for square, (good, owner) in self.stands.items():
            on_line = COLUMNS.index(square[0]) + 1 if vertical else int(square[1])
            if on_line == message.line and good in goods:
                income[owner] = income.get(owner, 0) + level * self.value(good, square)
        return income


@dataclass(frozen=True)
class Choice:
    """One numbered menu entry: shown as ``label`` under the heading ``group``."""

    action: api.Action
    kind: str
    group: Text
    label: Text
    key: tuple[object, ...]


def _good(name: str) -> Text:
    return good_text(good_enum(name))


def _choice(action: api.Action, market: Market, seat: int) -> Choice:
    data = action_json(action)
    kind = data["type"]
    if kind == "open_stand":
        good, square = data["good"], data["square"]
        group = Text.assemble("open a ", _good(good), " stand: square $cost +income")
        label = Text.assemble(square, (f" ${market.cost(square)}", "dim"))
        income = market.stand_income(good, square)
        if income:
            label.append(f" +{income}", "bold green")
        return Choice(action, kind, group, label, (GOODS.index(good), square))
    if kind == "bring_customer":
        level, goods, entrance = data["level"], data["goods"], data["entrance"]
        tile = goods_text([good_enum(g) for g in goods], "+")
        group = Text.assemble(f"bring L{level} ", tile, " customers to: entrance +you (others)")
        label = Text(entrance)
        paid = market.customer_income(level, goods, entrance)
        label.append(f" +{paid.get(seat, 0)}", "bold green")
        others = sum(v for owner, v in paid.items() if owner != seat)
        if others:
            label.append(f" ({others})", "dim")
        return Choice(action, kind, group, label, (level, tuple(goods), entrance))
    if kind == "open_restaurant":
        restaurant = restaurant_text(restaurant_enum(data["restaurant"]))
        group = Text.assemble("open a ", restaurant, " (+1 coin) on")
        return Choice(action, kind, group, Text(data["square"]), (data["restaurant"], data["square"]))
    if kind == "take_offer":
        group = Text("take a tile from the offer")
        return Choice(action, kind, group, _good(data["good"]), (GOODS.index(data["good"]),))
    labels = {
        "take_coin": ("or", "take a coin"),
        "redraw_hand": ("before your action", "redraw your hand of three identical tiles"),
        "refresh_offer": ("before taking", "refresh the offer of three identical tiles"),
    }
    group_name, label_text = labels.get(kind, ("other", describe(action)))
    return Choice(action, kind, Text(group_name), Text(label_text), ())


def menu_choices(state: api.MatchState) -> list[Choice]:
    """The legal actions of ``state``, sorted into menu order (number = index + 1)."""
    market = Market(state.view.mercado)
    seat = state.your_seat
    choices = [_choice(a, market, seat) for a in state.legal_actions]
    return sorted(choices, key=lambda c: (_ORDER.get(c.kind, len(_ORDER)), c.key))


def render_menu(choices: Sequence[Choice]) -> RenderableType:
    """Numbered entries (number = index + 1) under a heading per group, laid out in columns."""
    parts: list[RenderableType] = []
    cells: list[Text] = []
    for number, choice in enumerate(choices, start=1):
        if number == 1 or choice.group.plain != choices[number - 2].group.plain:
            if cells:
                parts.append(Columns(cells, padding=(0, 2)))
            parts.append(Text.assemble(choice.group, style="bold"))
            cells = []
        cells.append(Text.assemble((f"{number:>3} ", "bold cyan"), choice.label))
    if cells:
        parts.append(Columns(cells, padding=(0, 2)))
    return Group(*parts)
