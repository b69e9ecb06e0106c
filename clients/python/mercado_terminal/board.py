"""Render a match as the terminal client shows it: market, entrances, players, supply, result.

Pure: ``render_match(state)`` turns a ``MatchState`` into a rich renderable and
does no I/O (the clock is read at ``now_ms``, the time of rendering unless given).
Labels and colours for goods, restaurants and seats live here too. Seats are shown
1-based, as people count: API seat 0 is "seat 1".
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from mercado.v1 import match_pb2 as api
from mercado.v1 import mercado_pb2 as pb
from mercado_client.text import printable
from mercado_client.wire import BOT_LEVEL_NAMES, COLUMNS, GOODS, entrance_name, square_name
from rich import box
from rich.columns import Columns
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

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
CELL_WIDTH = 10  # a good, a restaurant's word, and a name of up to 10 characters ("mercado-ai")
MARKET_WIDTH = 1 + 7 * CELL_WIDTH + 9  # row labels, 7 columns, 9 borders: 80
# A customer tile's goods in the small window's market, where a tile has one line: 'L2 fi+to'.
GOOD_CODES = {"fish": "fi", "flowers": "fl", "tomatoes": "to", "meat": "me", "grapes": "gr"}
STATUS_NAMES = {
    api.MATCH_STATUS_WAITING: "waiting for players",
    api.MATCH_STATUS_PLAYING: "playing",
    api.MATCH_STATUS_FINISHED: "finished",
    api.MATCH_STATUS_CANCELLED: "cancelled",
}
SCORING_NOTE = (
    "score: coins at the end, less 1 for each restaurant left in hand (already deducted); "
    "ties are broken by the most stands on the market, and players still tied share the rank; "
    "a seat that forfeited ranks last"
)


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
    """Display names by seat, as the terminal may show them: the seats' names, else 'seat N' (1-based)."""
    count = state.match.players or len(state.view.mercado.players)
    out = [f"seat {s + 1}" for s in range(count)]
    for info in state.match.seats:
        if info.display_name and info.seat < count:
            out[info.seat] = printable(info.display_name)
    return out


def seat_label(seat: int, names: Sequence[str]) -> str:
    """A player as people count seats: 'ada (seat 1)' for API seat 0; 'seat 1' for a seat with no name."""
    name = names[seat] if seat < len(names) else f"seat {seat + 1}"
    return name if name == f"seat {seat + 1}" else f"{name} (seat {seat + 1})"


def seat_tag(seat: int, names: Sequence[str]) -> Text:
    """A player as 'ada (seat 1)' on the seat's colour."""
    return Text(seat_label(seat, names), style=SEAT_STYLES[seat % len(SEAT_STYLES)])


def seat_short(seat: int, names: Sequence[str], width: int) -> Text:
    """A player's name in at most ``width`` cells, on the seat's colour: 'ada', 'mercado-ai'; a name cut
    short keeps its seat number: 'Barthol… 1'."""
    name = names[seat] if seat < len(names) else f"seat {seat + 1}"
    if len(name) > width:
        number = f" {seat + 1}"
        name = name[: max(0, width - len(number) - 1)] + "…" + number
    return Text(name, style=SEAT_STYLES[seat % len(SEAT_STYLES)])


def seat_info(state: api.MatchState, seat: int) -> api.SeatInfo | None:
    return next((info for info in state.match.seats if info.seat == seat), None)


def bot_text(info: api.SeatInfo) -> str:
    """A bot seat with its level: 'bot, hard'."""
    return f"bot, {BOT_LEVEL_NAMES.get(info.bot_level, 'medium')}"


def seat_marks(state: api.MatchState, seat: int) -> list[Text]:
    """What a seat is beyond its player: a bot, played by the AI (timed out, left), forfeited."""
    info = seat_info(state, seat)
    if info is None:
        return []
    marks: list[Text] = []
    if info.bot:
        marks.append(Text(bot_text(info), "bold magenta"))
    if info.forfeited:
        marks.append(Text("forfeited: the AI plays it", "bold red"))
    elif info.left:
        marks.append(Text("left: the AI plays it", "bold red"))
    elif info.played_by_ai:
        what = "the AI plays it" if info.bot else "timed out: the AI plays it"
        marks.append(Text(what, "bold red"))
    return marks


def has_clock(state: api.MatchState) -> bool:
    return state.match.time_control.turn_seconds > 0


def clock_time(ms: int) -> str:
    """Milliseconds as 'm:ss' (or 'h:mm:ss'), rounded up: '0:01' until the time is all gone."""
    seconds = max(0, -(-ms // 1000))
    minutes, seconds = divmod(seconds, 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02}:{seconds:02}" if hours else f"{minutes}:{seconds:02}"


def time_left_ms(state: api.MatchState, now_ms: int | None = None, seat: int | None = None) -> int | None:
    """The mover's time (turn and reserve) left, from the summary's deadline; None without one. With
    ``seat``, that seat's own where it has one (in a simultaneous step each seat to act has its own)."""
    match = state.match
    info = seat_info(state, seat) if seat is not None else None
    if info is not None and info.HasField("deadline_unix_ms"):
        deadline = info.deadline_unix_ms
    elif match.HasField("deadline_unix_ms"):
        deadline = match.deadline_unix_ms
    else:
        return None
    if match.status != api.MATCH_STATUS_PLAYING:
        return None
    now = int(time.time() * 1000) if now_ms is None else now_ms
    return max(0, deadline - now)


# --- the market ----------------------------------------------------------------


def _square_cell(name: str, content: pb.SquareContent | None, names: Sequence[str]) -> Text:
    if content is None:
        return Text(name, style="dim")
    kind = content.WhichOneof("content")
    if kind == "stand":
        owner = seat_short(content.stand.owner, names, CELL_WIDTH)
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


def _compact_square(name: str, content: pb.SquareContent | None) -> Text:
    """A square in one line: 'tomatoes 1' (a stand and its owner's seat, on the seat's colour)."""
    if content is None:
        return Text(name, style="dim")
    kind = content.WhichOneof("content")
    if kind == "stand":
        owner = content.stand.owner
        return Text.assemble(good_text(content.stand.good), " ", (str(owner + 1), SEAT_STYLES[owner % 4]))
    if kind == "restaurant":
        label, good = RESTAURANTS[content.restaurant]
        return Text(label, style=f"reverse {GOOD_STYLES[good]}" if good else "reverse bold")
    return Text("face-down", style="bold")


def _compact_entrance(side: str, tile: pb.CustomerTile | None) -> Text:
    """An entrance in one line: 'L2 fi+to', the goods in their colours; its arrow when empty."""
    if tile is None:
        return Text(ARROWS[side], style="dim")
    codes = Text("+").join(Text(GOOD_CODES[GOODS[g - 1]], GOOD_STYLES[GOODS[g - 1]]) for g in tile.goods)
    return Text.assemble((f"L{tile.level} ", "bold"), codes)


def compact_market(view: pb.MercadoView) -> Table:
    """The market for a small window: a line a row, the entrances' tiles as 'L2 fi+to'."""
    squares = {square_name(c.square): c for c in view.market}
    tiles = {entrance_name(e.entrance): e.tile for e in view.entrances}
    grid = Table.grid(padding=(0, 1))
    grid.add_column(width=1, style="bold")
    for width in (9, *[CELL_WIDTH] * len(COLUMNS), 9):
        grid.add_column(width=width, justify="center", no_wrap=True)
    grid.add_row("", "", *(Text(c, "bold") for c in COLUMNS), "")

    def edge(side: str) -> list[RenderableType]:
        return ["", "", *(_compact_entrance(side, tiles.get(f"{side}-{c}")) for c in COLUMNS), ""]

    grid.add_row(*edge("top"))
    for row in range(1, 6):
        cells = [_compact_square(f"{c}{row}", squares.get(f"{c}{row}")) for c in COLUMNS]
        left, right = (_compact_entrance(side, tiles.get(f"{side}-{row}")) for side in ("left", "right"))
        grid.add_row(str(row), left, *cells, right)
    grid.add_row(*edge("bottom"))
    return grid


def market_table(view: pb.MercadoView, names: Sequence[str]) -> Table:
    """The 5x5 market with its 20 entrances around it, columns a-e and rows 1-5 labelled."""
    squares = {square_name(c.square): c for c in view.market}
    tiles = {entrance_name(e.entrance): e.tile for e in view.entrances}
    table = Table(box=box.ROUNDED, show_lines=True, padding=0)
    table.add_column("", width=1, justify="center", vertical="middle")
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


def seat_clock(state: api.MatchState, seat: int, to_move: bool, now_ms: int | None = None) -> Text | None:
    """A person's seat's clock: its reserve, and while it is to act, its time left; None without one."""
    info = seat_info(state, seat)
    if not has_clock(state) or info is None or info.bot:
        return None
    clock = Text.assemble(("reserve ", "dim"), clock_time(info.reserve_ms))
    left = time_left_ms(state, now_ms, seat) if to_move else None
    if left is not None:
        clock = Text.assemble((f"{clock_time(left)} left", "bold yellow"), ("   ", ""), clock)
    return clock


def player_rows(state: api.MatchState, seat: int, now_ms: int | None = None) -> list[tuple[str, Text]]:
    """What a player has, as (label, value) rows: coins and stands left, hand, restaurants, clock."""
    player = state.view.mercado.players[seat]
    coins = Text(str(player.coins), style="bold") if player.HasField("coins") else Text("hidden", "italic")
    restaurants = [restaurant_text(k) for k in player.restaurant_hand]
    rows = [
        ("coins", Text.assemble(coins, ("   stands left ", "dim"), str(player.wooden_stands))),
        ("hand", goods_text(player.stand_hand)),
        ("rest.", Text(", ").join(restaurants) if restaurants else Text("-", "dim")),
    ]
    clock = seat_clock(state, seat, _to_move(state, seat), now_ms)
    if clock is not None:
        rows.append(("clock", clock))
    marks = seat_marks(state, seat)
    if marks:
        rows.append(("", Text(", ").join(marks)))
    return rows


def _to_move(state: api.MatchState, seat: int) -> bool:
    playing = state.match.status == api.MATCH_STATUS_PLAYING
    return playing and state.HasField("to_move") and state.to_move == seat


def player_title(state: api.MatchState, seat: int, names: Sequence[str]) -> Text:
    """'ada (seat 1, you)', with '▶ … to move' while it is to move."""
    title = seat_tag(seat, names)
    if state.HasField("your_seat") and state.your_seat == seat:
        label = title.plain
        title = Text(label[:-1] + ", you)" if label.endswith(")") else label + " (you)", title.style)
    if _to_move(state, seat):
        title = Text.assemble(("▶ ", "bold yellow"), title, (" to move", "bold yellow"))
    return title


def player_panel(state: api.MatchState, seat: int, names: Sequence[str], now_ms: int | None = None) -> Panel:
    grid = Table.grid(padding=(0, 1))
    grid.add_column(style="dim")
    grid.add_column()
    for label, value in player_rows(state, seat, now_ms):
        grid.add_row(label, value)
    border = "yellow" if _to_move(state, seat) else "dim"
    return Panel(grid, title=player_title(state, seat, names), title_align="left", border_style=border)


def player_line(state: api.MatchState, seat: int, names: Sequence[str]) -> Text:
    """A player in one line, for a small window: '▶ ada (seat 1, you)  coins 8 · stands 5 · hand fish
    meat · tea house · reserve 2:40' (the status line has the mover's time left)."""
    player = state.view.mercado.players[seat]
    coins = Text(str(player.coins), style="bold") if player.HasField("coins") else Text("hidden", "italic")
    words = [
        Text.assemble(("coins ", "dim"), coins),
        Text.assemble(("stands ", "dim"), str(player.wooden_stands)),
        Text.assemble(("hand ", "dim"), goods_text(player.stand_hand)),
        *(restaurant_text(kind) for kind in player.restaurant_hand),
    ]
    info = seat_info(state, seat)
    if has_clock(state) and info is not None and not info.bot:
        words.append(Text.assemble(("reserve ", "dim"), clock_time(info.reserve_ms)))
    words += seat_marks(state, seat)
    title = seat_tag(seat, names)
    if state.HasField("your_seat") and state.your_seat == seat:
        label = title.plain
        title = Text(label[:-1] + ", you)" if label.endswith(")") else label + " (you)", title.style)
    marker = ("▶ ", "bold yellow") if _to_move(state, seat) else "  "
    return Text.assemble(marker, title, "  ", Text(" · ").join(words))


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


def status_text(
    state: api.MatchState, names: Sequence[str], now_ms: int | None = None, compact: bool = False
) -> Text:
    """One line: the whole match id, status, whose turn and their time, final round, coins in a row;
    ``compact``, the game's name instead of the id, and no version."""
    view = state.view.mercado
    status = state.match.status
    parts = [Text(f"match {state.match.match_id}", "bold"), Text(STATUS_NAMES.get(status, "?"))]
    if compact:
        parts = [Text("Mercado de Lisboa", "bold")] + (
            [] if status == api.MATCH_STATUS_PLAYING else parts[1:]
        )
    if state.HasField("to_move") and status == api.MATCH_STATUS_PLAYING:
        parts.append(Text.assemble("to move ", seat_tag(state.to_move, names)))
        left = time_left_ms(state, now_ms)
        if left is not None:
            parts.append(Text(f"{clock_time(left)} left", "bold yellow"))
        if view.phase == pb.PHASE_TAKE_OFFER:
            parts.append(Text("taking from the offer"))
    if view.HasField("final_turns_left"):
        turns = view.final_turns_left
        parts.append(Text(f"final round: {turns} turn{'' if turns == 1 else 's'} left", "bold red"))
    if view.consecutive_coins:
        players = len(view.players)
        needed = 4 if players == 2 else players
        parts.append(Text(f"coins in a row {view.consecutive_coins}/{needed}", "yellow"))
    if not compact:
        parts.append(Text(f"version {state.version}", "dim"))
    return Text(" · ").join(parts)


def clock_line(state: api.MatchState) -> Text | None:
    """The match's time control in words; None without a clock."""
    control = state.match.time_control
    if not control.turn_seconds:
        return None
    then = "the seat forfeits" if control.on_timeout == api.ON_TIMEOUT_FORFEIT else "the AI plays the seat"
    reserve = clock_time(control.reserve_seconds * 1000)
    return Text(f"clock: {control.turn_seconds} s a turn and {reserve} of reserve; then {then}", "dim")


def final_ranks(state: api.MatchState) -> list[int]:
    """Each seat's final rank: the summary's (forfeited seats last) when present, else the result's."""
    ranks = list(state.match.ranks)
    result = state.view.mercado.result
    return ranks if len(ranks) == len(result.scores) else list(result.ranks)


def result_table(state: api.MatchState, names: Sequence[str]) -> Table:
    """Final scores by rank (restaurants in hand already deducted), with what decided them."""
    result = state.view.mercado.result
    ranks = final_ranks(state)
    players = state.view.mercado.players
    table = Table(title="final scores", title_style="bold", box=box.SIMPLE_HEAVY, caption=SCORING_NOTE)
    table.caption_style = "dim"
    for header in ("rank", "player", "score", "restaurants in hand", "stands on market", ""):
        table.add_column(header, justify="left" if header in ("player", "") else "right")
    for seat in sorted(range(len(result.scores)), key=lambda s: (ranks[s], s)):
        rank = ranks[seat]
        info = seat_info(state, seat)
        in_hand = len(players[seat].restaurant_hand) if seat < len(players) else 0
        table.add_row(
            Text(str(rank), "bold yellow" if rank == 1 else ""),
            seat_tag(seat, names),
            str(result.scores[seat]),
            f"{in_hand} (-{in_hand})" if in_hand else "0",
            str(result.stands_on_market[seat]),
            Text("forfeited", "bold red") if info is not None and info.forfeited else "",
        )
    return table


class MatchView:
    """The whole match; on a wide console the player panels (and ``side``) sit beside the market."""

    WIDE = 120

    def __init__(
        self, state: api.MatchState, side: RenderableType | None = None, now_ms: int | None = None
    ) -> None:
        self.state = state
        self.names = seat_names(state)
        self.side = side
        self.now_ms = now_ms

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        state, names = self.state, self.names
        view = state.view.mercado
        now = int(time.time() * 1000) if self.now_ms is None else self.now_ms
        panels = [player_panel(state, seat, names, now) for seat in range(len(view.players))]
        yield status_text(state, names, now)
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
            yield result_table(state, names)


def render_match(
    state: api.MatchState, side: RenderableType | None = None, now_ms: int | None = None
) -> RenderableType:
    """The whole match as one renderable; ``side`` (e.g. a move log) goes beside or below the players."""
    return MatchView(state, side, now_ms)


def compact_match(state: api.MatchState, supply: bool = True, now_ms: int | None = None) -> RenderableType:
    """The match for a small window: the status, the market a line a row, a line a player, and with
    ``supply`` the offer and the customer display (a menu names the tiles it offers)."""
    view = state.view.mercado
    names = seat_names(state)
    now = int(time.time() * 1000) if now_ms is None else now_ms
    players = [player_line(state, seat, names) for seat in range(len(view.players))]
    shown: list[RenderableType] = [
        status_text(state, names, now, compact=True),
        compact_market(view),
        *players,
    ]
    if supply:
        shown.append(supply_table(view))
    if state.match.status == api.MATCH_STATUS_FINISHED and view.result.scores:
        shown.append(result_table(state, names))
    return Group(*shown)
