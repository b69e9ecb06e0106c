"""Render a match as the terminal client shows it: market, entrances, players, supply, result.

Pure: ``render_match(state)`` turns a ``MatchState`` into a rich renderable and
does no I/O. Labels and colours for goods, restaurants and seats live here too.
"""

from __future__ import annotations

from collections.abc import Sequence

from mercado.v1 import match_pb2 as api
from mercado.v1 import mercado_pb2 as pb
from rich import box
from rich.columns import Columns
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from .text import printable
from .wire import COLUMNS, GOODS, entrance_name, square_name

GOOD_STYLES = {
    "fish": "bold deep_sky_blue1",
    "flowers": "bold hot_pink",
    "tomatoes": "bold red1",
    "meat": "bold dark_orange",
    "grapes": "bold medium_purple1",
}
# Restaurant kind -> (short board label, the good it improves or None for every good).
RESTAURANTS = {
    pb.RESTAURANT_SUSHI_BAR: ("sushi bar", "fish"),
    pb.RESTAURANT_TEA_HOUSE: ("tea house", "flowers"),
    pb.RESTAURANT_PIZZERIA: ("pizzeria", "tomatoes"),
    pb.RESTAURANT_BURGER_BAR: ("burger bar", "meat"),
    pb.RESTAURANT_WINE_BAR: ("wine bar", "grapes"),
    pb.RESTAURANT_PUB: ("pub", None),
}
SEAT_STYLES = ("bold black on green3", "bold black on gold1", "bold black on cyan", "bold black on plum2")
ARROWS = {"top": "↓", "bottom": "↑", "left": "→", "right": "←"}
CELL_WIDTH = 9
MARKET_WIDTH = 3 + 7 * CELL_WIDTH + 9  # row labels, 7 columns, 9 borders
STATUS_NAMES = {
    api.MATCH_STATUS_WAITING: "waiting for players",
    api.MATCH_STATUS_PLAYING: "playing",
    api.MATCH_STATUS_FINISHED: "finished",
}


# --- labels --------------------------------------------------------------------


def good_text(good: int) -> Text:
    name = GOODS[good - 1]
    return Text(name, style=GOOD_STYLES[name])


def goods_text(goods: Sequence[int], separator: str = " ") -> Text:
    return Text(separator).join(good_text(g) for g in goods) if goods else Text("-", style="dim")


def restaurant_text(kind: int) -> Text:
    label, good = RESTAURANTS[pb.Restaurant.ValueType(kind)]
    return Text(label, style=GOOD_STYLES[good] if good else "bold")


def tile_text(tile: pb.CustomerTile) -> Text:
    return Text.assemble((f"L{tile.level} ", "bold"), goods_text(tile.goods, "+"))


def seat_names(state: api.MatchState) -> list[str]:
    """Display names by seat, as the terminal may show them: the seats' names, else 'seat N'."""
    count = state.match.players or len(state.view.mercado.players)
    out = [f"seat {s}" for s in range(count)]
    for info in state.match.seats:
        if info.display_name and info.seat < count:
            out[info.seat] = printable(info.display_name)
    return out


def seat_tag(seat: int, names: Sequence[str]) -> Text:
    """A player as '#1 bob' on the seat's colour."""
    return Text(f"#{seat} {names[seat]}", style=SEAT_STYLES[seat % len(SEAT_STYLES)])


# --- the market ----------------------------------------------------------------


def _square_cell(name: str, content: pb.SquareContent | None, names: Sequence[str]) -> Text:
    if content is None:
        return Text(name, style="dim")
    kind = content.WhichOneof("content")
    if kind == "stand":
        owner = seat_tag(content.stand.owner, names)
        owner.truncate(CELL_WIDTH)
        return Text("\n").join([good_text(content.stand.good), owner])
    if kind == "restaurant":
        label, good = RESTAURANTS[content.restaurant]
        style = f"reverse {GOOD_STYLES[good]}" if good else "reverse bold"
        return Text("\n").join(Text(word, style=style) for word in label.upper().split())
    return Text("?\nface-down", style="bold")


def _entrance_cell(side: str, tile: pb.CustomerTile | None) -> Text:
    if tile is None:
        return Text(ARROWS[side], style="dim")
    head = Text.assemble((f"L{tile.level} ", "bold"), ("●" * tile.level, "bold yellow"))
    return Text("\n").join([head, *(good_text(g) for g in tile.goods)])


def market_table(view: pb.MercadoView, names: Sequence[str]) -> Table:
    """The 5x5 market with its 20 entrances around it, columns a-e and rows 1-5 labelled."""
    squares = {square_name(c.square): c for c in view.market}
    tiles = {entrance_name(e.entrance): e.tile for e in view.entrances}
    table = Table(box=box.ROUNDED, show_lines=True, padding=0)
    table.add_column("", width=3, justify="center", vertical="middle")
    for header in ["", *COLUMNS, ""]:
        table.add_column(header, width=CELL_WIDTH, justify="center", vertical="middle", header_style="bold")

    def edge(side: str) -> list[RenderableType]:
        return ["", "", *(_entrance_cell(side, tiles.get(f"{side}-{c}")) for c in COLUMNS), ""]

    table.add_row(*edge("top"))
    for row in range(1, 6):
        cells = [_square_cell(f"{c}{row}", squares.get(f"{c}{row}"), names) for c in COLUMNS]
        left, right = (_entrance_cell(side, tiles.get(f"{side}-{row}")) for side in ("left", "right"))
        table.add_row(Text(str(row), style="bold"), left, *cells, right)
    table.add_row(*edge("bottom"))
    return table


# --- players, supply, status, result -------------------------------------------


def player_panel(state: api.MatchState, seat: int, names: Sequence[str]) -> Panel:
    player = state.view.mercado.players[seat]
    grid = Table.grid(padding=(0, 1))
    grid.add_column(style="dim")
    grid.add_column()
    coins = Text(str(player.coins), style="bold") if player.HasField("coins") else Text("hidden", "italic")
    grid.add_row("coins", Text.assemble(coins, ("   stands left ", "dim"), str(player.wooden_stands)))
    grid.add_row("hand", goods_text(player.stand_hand))
    restaurants = [restaurant_text(k) for k in player.restaurant_hand]
    grid.add_row("rest.", Text(", ").join(restaurants) if restaurants else Text("-", "dim"))
    title = seat_tag(seat, names)
    if state.HasField("your_seat") and state.your_seat == seat:
        title.append(" (you)")
    to_move = state.HasField("to_move") and state.to_move == seat
    if to_move and state.match.status != api.MATCH_STATUS_FINISHED:
        title = Text.assemble(("▶ ", "bold yellow"), title, (" to move", "bold yellow"))
    return Panel(grid, title=title, title_align="left", border_style="yellow" if to_move else "dim")


def supply_table(view: pb.MercadoView) -> Table:
    """The stand offer, the bag and the customer display with deck sizes."""
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold")
    for _ in range(3):
        grid.add_column()
    grid.add_column(style="dim")
    offer = [good_text(g) for g in view.offer]
    grid.add_row("offer", *offer, *[""] * (3 - len(offer)), f"bag {view.bag_size}")
    for level in view.customers:
        tiles = [goods_text(t.goods, "+") for t in level.display] or [Text("empty", "dim")]
        label = Text.assemble(f"L{level.level} ", ("●" * level.level, "yellow"))
        grid.add_row(label, *tiles, *[""] * (3 - len(tiles)), f"deck {level.deck_size}")
    return grid


def status_text(state: api.MatchState, names: Sequence[str]) -> Text:
    """One line: match, status, whose turn, final round, coins in a row."""
    view = state.view.mercado
    status = state.match.status
    match_id = state.match.match_id
    short = match_id if len(match_id) <= 12 else f"{match_id[:8]}…"
    parts = [Text(f"match {short}", "bold"), Text(STATUS_NAMES.get(status, "?"))]
    if state.HasField("to_move") and status == api.MATCH_STATUS_PLAYING:
        parts.append(Text.assemble("to move ", seat_tag(state.to_move, names)))
        if view.phase == pb.PHASE_TAKE_OFFER:
            parts.append(Text("taking from the offer"))
    if view.HasField("final_turns_left"):
        parts.append(Text(f"final round: {view.final_turns_left} turns left", "bold red"))
    if view.consecutive_coins:
        players = len(view.players)
        needed = 4 if players == 2 else players
        parts.append(Text(f"coins in a row {view.consecutive_coins}/{needed}", "yellow"))
    parts.append(Text(f"version {state.version}", "dim"))
    return Text(" · ").join(parts)


def result_table(result: pb.MercadoResult, names: Sequence[str]) -> Table:
    """Final scores by rank (restaurants in hand already deducted)."""
    table = Table(title="final scores", title_style="bold", box=box.SIMPLE_HEAVY)
    for header in ("rank", "player", "score", "stands on market"):
        table.add_column(header, justify="left" if header == "player" else "right")
    for seat in sorted(range(len(result.scores)), key=lambda s: (result.ranks[s], s)):
        rank = result.ranks[seat]
        table.add_row(
            Text(str(rank), "bold yellow" if rank == 1 else ""),
            seat_tag(seat, names),
            str(result.scores[seat]),
            str(result.stands_on_market[seat]),
        )
    return table


class MatchView:
    """The whole match; on a wide console the player panels (and ``side``) sit beside the market."""

    WIDE = 118

    def __init__(self, state: api.MatchState, side: RenderableType | None = None) -> None:
        self.state = state
        self.names = seat_names(state)
        self.side = side

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        state, names = self.state, self.names
        view = state.view.mercado
        panels = [player_panel(state, seat, names) for seat in range(len(view.players))]
        yield status_text(state, names)
        if options.max_width >= self.WIDE:
            layout = Table.grid(padding=(0, 1))
            layout.add_column(width=MARKET_WIDTH)
            layout.add_column()
            side = [self.side] if self.side is not None else []
            layout.add_row(market_table(view, names), Group(*panels, *side))
            yield layout
            yield supply_table(view)
        else:
            yield market_table(view, names)
            yield Columns(panels)
            yield supply_table(view)
            if self.side is not None:
                yield self.side
        if state.match.status == api.MATCH_STATUS_FINISHED and view.result.scores:
            yield result_table(view.result, names)


def render_match(state: api.MatchState, side: RenderableType | None = None) -> RenderableType:
    """The whole match as one renderable; ``side`` (e.g. a move log) goes beside or below the players."""
    return MatchView(state, side)
