"""Oregano Market on the terminal, from the rules' JSON view (docs/oregano.md).

The table shows the shops' stock with their build costs, the supply, the boulevard and the bonus cards
left; each seat's panel its gold, resource cards, area (levels 1-4 by rows a-d), strategy card (its
holder's own, unless the match shows them all) and bonus cards. Every legal action is offered with
what it costs or pays, from the rules' own tables (``server.games.oregano``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich import box
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from server.games.oregano.components import (
    CASINO_LOSS,
    CASINO_TAKE,
    CASINO_WIN_FROM,
    DIE_FACES,
    JEWELER_BONUS,
    LEVEL_UP_GOLD,
    LEVELS,
    OTHERS_SHOP_FEE,
    RESOURCES,
    ROWS,
    SALE_PRICE,
    SHOP_IDS,
    SHOPS,
    STRATEGY_REWARD,
    sale_price,
)
from server.games.oregano.rules import acquire_price, cost_of
from server.games.oregano.scoring import level_of

from ..board import seat_tag
from ..common import counted
from .base import RulesBoard, Seen, amounts_text
from .menu import Described

SHOP_NAMES = {
    "lumber_merchant": "lumber merchant",
    "stone_merchant": "stone merchant",
    "metal_merchant": "metal merchant",
    "cafe": "café",
    "general_store": "general store",
    "clothing_store": "clothing store",
    "restaurant": "restaurant",
    "fountain": "fountain",
    "jeweler": "jeweler",
    "casino": "casino",
    "builder": "builder",
}
GROUP_STYLES = {"resource": "bold green", "general": "bold cyan", "special": "bold magenta"}
RESOURCE_STYLES = {"wood": "dark_orange", "stone": "grey70", "metal": "steel_blue1"}
# The strategy cards and the bonus cards as the page names them (clients/web/src/oregano-words.ts).
STRATEGIES = {
    "chain_store": ("Chain store", "build two shops of the same kind"),
    "strategic_retreat": ("Strategic retreat", "sell twice"),
    "aggressive_merger": ("Aggressive merger", "acquire twice"),
    "step_by_step": ("Step by step", "level up two different shops"),
    "savvy_shopper": ("Savvy shopper", "take two different resources from others' merchants"),
}
BONUS_NAMES = {
    "first_level4": "a shop at level 4",
    "first_strategy": "a strategy card achieved",
    "first_diagonal": "a full diagonal",
    "first_column": "a full column",
    "first_row": "a full row",
}
# The four actions a turn declares two of, and what each does.
ACTION_WORDS = {
    "attract": "build or level up a shop",
    "resource": "take a merchant's cards",
    "sell": "sell a shop to the boulevard",
    "acquire": "buy a shop from the boulevard",
}
PHASE_WORDS = {
    "start_shop": "set-up: choosing a merchant",
    "keep_strategy": "keeping a strategy card",
    "declare": "declaring two actions",
    "casino": "the casino",
}


def shop_text(kind: str) -> Text:
    return Text(SHOP_NAMES[kind], GROUP_STYLES[SHOPS[kind].group])


def strategy_text(card: str) -> Text:
    """A strategy card by its name: 'Chain store'."""
    return Text(STRATEGIES[card][0], "bold")


def cost_text(cost: dict[str, int] | Sequence[tuple[str, int]]) -> Text:
    return Text(amounts_text(cost), "yellow")


def gain_text(gold: int) -> Text:
    return Text(f"+{gold} gold", "bold green")


class OreganoBoard(RulesBoard):
    game = "oregano"
    title = "Oregano"
    rules_text = (
        "score: gold + shops (2/5/8/10 by level, special shops 2) + 5 per bonus card; "
        "ties: more gold, then more bonus cards"
    )
    result_headers = ("gold", "shops", "bonus cards")

    # --- the table and the seats ----------------------------------------------------------------

    def status_parts(self, seen: Seen) -> list[Text]:
        view = seen.view
        limit = view["options"]["round_limit"]
        parts = [Text(f"round {view['round']} of {limit}" if view["round"] else "set-up")]
        if seen.playing and seen.movers:
            mover = seen.movers[0]
            parts.append(Text.assemble("to move ", seat_tag(mover, seen.names)))
            declared = view.get("declared")
            if view["phase"] == "action" and declared:
                done = view["step"]
                plan = [
                    Text(kind, "bold" if i == done else ("dim strike" if i < done else ""))
                    for i, kind in enumerate(declared)
                ]
                parts.append(Text.assemble("declared ", Text(", then ").join(plan)))
            elif view["phase"] in PHASE_WORDS:
                parts.append(Text(PHASE_WORDS[view["phase"]]))
        if view.get("end_triggered"):
            parts.append(Text("the end is triggered: last round", "bold red"))
        return parts

    def table(self, seen: Seen) -> RenderableType:
        view = seen.view
        shared = Table.grid(padding=(0, 1))
        shared.add_column(style="dim", no_wrap=True)
        shared.add_column()
        supply = Text("  ").join(Text(f"{r} {view['supply'][r]}", RESOURCE_STYLES[r]) for r in RESOURCES)
        shared.add_row("supply", supply)
        shared.add_row("boulevard", self.boulevard_text(seen))
        bonuses = [Text(f"{BONUS_NAMES[b]}", "bold yellow") for b in view["bonus_available"]]
        shared.add_row("bonus cards", Text(", ").join(bonuses) if bonuses else Text("none left", "dim"))
        shared.add_row("strategy deck", counted(view["strategy_deck_count"], "card"))
        return Group(self.stock_table(seen), shared)

    def stock_table(self, seen: Seen) -> Table:
        """The shops: how many are left to build, what each costs, pays and sells for."""
        view = seen.view
        stock = Table(box=box.SIMPLE, padding=(0, 1), pad_edge=False)
        for header in ("shop", "stock", "build cost", "div.", "sale L1/2/3/4"):
            stock.add_column(
                header, justify="left" if header in ("shop", "build cost") else "right", no_wrap=True
            )
        for kind in SHOP_IDS:
            count = view["stock"][kind]
            dividend = SHOPS[kind].dividend
            stock.add_row(
                shop_text(kind),
                Text(str(count), "" if count else "bold red"),
                amounts_text(SHOPS[kind].cost),
                f"+{dividend}" if dividend else "",
                "/".join(str(price) for price in SALE_PRICE[kind]),
            )
        return stock

    def boulevard_text(self, seen: Seen) -> Text:
        entries = seen.view["boulevard"]
        if not entries:
            return Text("empty", "dim")
        return Text(" · ").join(
            Text.assemble(shop_text(e["shop"]), f" L{e['level']} sold by ", seat_tag(e["seller"], seen.names))
            for e in entries
        )

    def seat_rows(self, seen: Seen, seat: int) -> list[tuple[str, RenderableType]]:
        view = seen.view
        resources = Text("  ").join(
            Text(f"{r} {view['resources'][seat][r]}", RESOURCE_STYLES[r]) for r in RESOURCES
        )
        rows: list[tuple[str, RenderableType]] = [
            ("gold", Text(str(view["gold"][seat]), "bold yellow")),
            ("cards", resources),
            ("area", self.area_table(view["areas"][seat])),
            ("strategy", self.strategy_text(view["strategies"][seat])),
        ]
        bonuses = view["bonuses"][seat]
        if bonuses:
            rows.append(("bonus", Text(", ").join(Text(BONUS_NAMES[b], "bold yellow") for b in bonuses)))
        drawn = view["drawn"][seat]
        if drawn.get("cards"):
            rows.append(("drawn", Text(", ").join(strategy_text(card) for card in drawn["cards"])))
        return rows

    @staticmethod
    def area_table(area: dict[str, dict[str, Any]], framed: bool = True) -> Table:
        """Levels 1-4 as columns, rows a-d: each cell's shop, or its name when empty; ``framed`` in
        lines (else bare, for a small window)."""
        if framed:
            table = Table(box=box.SQUARE, padding=0, show_header=True, header_style="dim")
        else:
            table = Table(
                box=None, padding=(0, 1, 0, 0), show_header=True, header_style="dim", pad_edge=False
            )
        table.add_column("", width=1, style="dim")
        for level in LEVELS:
            table.add_column(f"L{level}", width=max(map(len, SHOP_NAMES.values())), justify="center")
        for row in ROWS:
            cells = []
            for level in LEVELS:
                shop = area.get(f"{level}{row}")
                cells.append(shop_text(shop["shop"]) if shop else Text(f"{level}{row}", "dim"))
            table.add_row(row, *cells)
        return table

    @staticmethod
    def area_list(area: dict[str, dict[str, Any]]) -> Text:
        """An area as its shops by cell, in a line: '1b lumber merchant · 2c café'."""
        cells = sorted(area, key=lambda cell: (cell[1], cell[0]))
        shops = [Text.assemble((f"{cell} ", "dim"), shop_text(area[cell]["shop"])) for cell in cells]
        return Text(" · ").join(shops) if shops else Text("no shop", "dim")

    @staticmethod
    def strategy_text(strategy: dict[str, Any]) -> Text:
        if "card" not in strategy:
            return Text("hidden" if strategy["count"] else "none (choosing)", "italic dim")
        name, goal = STRATEGIES[strategy["card"]]
        return Text.assemble(
            (name, "bold"), f": {goal} ", (f"{strategy['progress']}/{strategy['goal']}", "cyan")
        )

    def compact_tables(self, seen: Seen) -> list[RenderableType]:
        """The supply, the boulevard and the bonus cards left, under the shops' stock and prices; then
        without the stock, then without the bonus cards and with the boulevard cut to a line (the menu
        says what each action pays and which shops may be acquired)."""
        view = seen.view
        supply = Text("  ").join(Text(f"{r} {view['supply'][r]}", RESOURCE_STYLES[r]) for r in RESOURCES)
        deck = Text.assemble(("   strategy deck ", "dim"), str(view["strategy_deck_count"]))
        bonuses = [Text(BONUS_NAMES[b], "bold yellow") for b in view["bonus_available"]]
        stocks = Text.assemble(("supply ", "dim"), supply, deck)
        boulevard = Text.assemble(("boulevard ", "dim"), self.boulevard_text(seen))
        one_line = boulevard.copy()
        one_line.no_wrap, one_line.overflow = True, "ellipsis"
        left = Text.assemble(
            ("bonus cards ", "dim"), Text(", ").join(bonuses) if bonuses else Text("none left", "dim")
        )
        return [
            Group(self.stock_table(seen), stocks, boulevard, left),
            Group(stocks, boulevard, left),
            Group(stocks, one_line),
        ]

    def compact_words(self, seen: Seen, seat: int) -> list[Text]:
        view = seen.view
        strategy = view["strategies"][seat]
        if "card" in strategy:
            plan = Text.assemble(
                strategy_text(strategy["card"]), f" {strategy['progress']}/{strategy['goal']}"
            )
        else:
            plan = Text("strategy hidden" if strategy["count"] else "no strategy yet", "dim")
        cards = Text(" ").join(
            Text(f"{r} {view['resources'][seat][r]}", RESOURCE_STYLES[r]) for r in RESOURCES
        )
        words = [Text(f"{view['gold'][seat]} gold", "bold yellow"), cards, plan]
        words += [Text(BONUS_NAMES[b], "bold yellow") for b in view["bonuses"][seat]]
        drawn = view["drawn"][seat].get("cards") or []
        if drawn:
            words.append(
                Text.assemble(("drawn ", "dim"), Text(", ").join(strategy_text(card) for card in drawn))
            )
        return words + self.compact_extras(seen, seat)

    def compact_seat(self, seen: Seen, seat: int) -> RenderableType:
        """The viewer's area as a grid, another's as its shops in a line; gold, cards and the rest above."""
        title = Text.assemble(
            self.compact_title(seen, seat), "  ", Text(" · ").join(self.compact_words(seen, seat))
        )
        area = seen.view["areas"][seat]
        if seat == seen.seat:
            return Group(title, self.area_table(area, framed=False))
        return Group(title, Text.assemble("   ", self.area_list(area)))

    def result_columns(self, seen: Seen, seat: int) -> list[str]:
        view = seen.view
        return [str(view["gold"][seat]), str(len(view["areas"][seat])), str(len(view["bonuses"][seat]))]

    # --- actions --------------------------------------------------------------------------------

    def describe(self, seen: Seen, data: dict[str, Any]) -> Described:
        view, me = seen.view, seen.seat
        kind = data["type"]
        if kind == "choose_start_shop":
            title = Text.assemble("start with a ", shop_text(data["shop"]))
            return Described(("start", data["shop"]), title, "cell", data["cell"], Text("free", "green"))
        if kind == "keep_strategy":
            name, goal = STRATEGIES[data["card"]]
            title = Text.assemble("keep ", (name, "bold"), f": {goal}")
            return Described(
                ("keep", data["card"]), title, cost=Text(f"+{STRATEGY_REWARD} gold when met", "dim")
            )
        if kind == "declare":
            first, second = data["first"], data["second"]
            title = Text.assemble("declare ", (first, "bold"), f" first ({ACTION_WORDS[first]})")
            label = Text.assemble("then ", (second, "bold"), f" ({ACTION_WORDS[second]})")
            return Described(("declare", first), title, "second action", second, label=label.plain)
        if kind == "build":
            shop = data["shop"]
            title = Text.assemble("build a ", shop_text(shop))
            return Described(("build", shop), title, "cell", data["cell"], cost_text(cost_of(shop)))
        if kind == "level_up":
            source = data["from"]
            shop = view["areas"][me][source]["shop"] if me is not None else ""
            level = level_of(source)
            title = Text.assemble("level up the ", shop_text(shop), f" on {source} to level {level + 1}")
            cost = cost_text(cost_of(shop, LEVEL_UP_GOLD[level]))
            return Described(("level_up", source), title, "cell", data["to"], cost)
        if kind == "take_resources":
            return self.describe_take(seen, data)
        if kind == "sell":
            cell = data["cell"]
            shop = view["areas"][me][cell]["shop"] if me is not None else ""
            gold = sale_price(shop, level_of(cell))
            # The jeweler's bonus: every sale but its own, while its owner has one (docs/oregano.md, Sell).
            if (
                shop != "jeweler"
                and me is not None
                and any(s["shop"] == "jeweler" for s in view["areas"][me].values())
            ):
                gold += JEWELER_BONUS
            title = Text.assemble("sell the ", shop_text(shop), f" on {cell}")
            return Described(("sell", cell), title, cost=gain_text(gold))
        if kind == "acquire":
            shop, level, seller = data["shop"], data["level"], data["seller"]
            title = Text.assemble(
                "acquire the ", shop_text(shop), f" L{level} sold by ", seat_tag(seller, seen.names)
            )
            cost = cost_text({"gold": acquire_price(shop, level)})
            return Described(("acquire", shop, level, seller), title, "cell", data["cell"], cost)
        if kind == "casino":
            if not data["go"]:
                return Described(("casino", False), Text("stay away from the casino"))
            odds = (
                f"roll 1-{CASINO_WIN_FROM - 1}: pay {CASINO_LOSS}; "
                f"{CASINO_WIN_FROM}-{DIE_FACES}: take up to {CASINO_TAKE} from each other player"
            )
            return Described(("casino", True), Text("go to the casino"), cost=Text(odds, "yellow"))
        declared = view.get("declared") or []
        what = declared[view["step"]] if view.get("step", 0) < len(declared) else "the action"
        return Described(("skip",), Text(f"skip ({what})"))

    def describe_take(self, seen: Seen, data: dict[str, Any]) -> Described:
        view = seen.view
        owner, cell = data["owner"], data["cell"]
        shop = view["areas"][owner][cell]["shop"]
        resource = SHOPS[shop].produces or ""
        count = min(level_of(cell), view["supply"][resource])
        whose = Text("your") if owner == seen.seat else Text.assemble(seat_tag(owner, seen.names), "'s")
        title = Text.assemble(
            "take ",
            (f"{count} {resource}", RESOURCE_STYLES[resource]),
            " from ",
            whose,
            f" {SHOP_NAMES[shop]} on {cell}",
        )
        fee = 0 if owner == seen.seat else OTHERS_SHOP_FEE
        cost = cost_text({"gold": fee}) if fee else Text("free", "green")
        return Described(("take", owner, cell), title, cost=cost)

    # --- narration ------------------------------------------------------------------------------

    def event_text(self, event: dict[str, Any], names: Sequence[str]) -> Text | None:
        kind = event["type"]
        seat = event.get("seat")
        who = seat_tag(seat, names) if isinstance(seat, int) else Text()
        if kind == "start_shop":
            return Text.assemble(who, " started with a ", shop_text(event["shop"]), f" on {event['cell']}")
        if kind == "strategy_kept":
            card = strategy_text(event["card"]) if "card" in event else Text("a strategy card")
            return Text.assemble(who, " kept ", card)
        if kind == "income" and event["gold"]:
            return Text.assemble(who, " earned ", (f"+{event['gold']}", "bold green"))
        if kind == "declared":
            return Text.assemble(who, f" declared {event['first']}, then {event['second']}")
        if kind == "built":
            return Text.assemble(
                who,
                " built a ",
                shop_text(event["shop"]),
                f" on {event['cell']} for {amounts_text(event['paid'])}",
            )
        if kind == "levelled_up":
            return Text.assemble(
                who,
                " levelled up a ",
                shop_text(event["shop"]),
                f" {event['from']} → {event['to']} for {amounts_text(event['paid'])}",
            )
        if kind == "took_resources":
            fee = f", paying {event['fee']} to " if event["fee"] else ""
            owner = seat_tag(event["owner"], names) if event["fee"] else Text()
            return Text.assemble(
                who, f" took {event['count']} {event['resource']} from {event['cell']}{fee}", owner
            )
        if kind == "sold":
            return Text.assemble(
                who, " sold a ", shop_text(event["shop"]), f" L{event['level']} for {event['gold']} gold"
            )
        if kind == "acquired":
            return Text.assemble(
                who,
                " acquired a ",
                shop_text(event["shop"]),
                f" L{event['level']} into {event['cell']} for {event['gold']} gold",
            )
        if kind == "skipped":
            return Text.assemble(who, f" skipped {event['kind']}")
        if kind == "die":
            return Text.assemble(who, f" rolled a {event['roll']} at the casino")
        if kind == "casino_lost":
            return Text.assemble(who, (f" lost {event['gold']} gold", "bold red"))
        if kind == "casino_won":
            return Text.assemble(who, (f" won {sum(event['took'])} gold", "bold green"))
        if kind == "strategy_achieved":
            name = STRATEGIES[event["card"]][0]
            return Text.assemble(who, (f" achieved {name} (+{event['gold']} gold)", "bold green"))
        if kind == "bonus_taken":
            return Text.assemble(
                who, (f" took the bonus card for {BONUS_NAMES[event['bonus']]}", "bold yellow")
            )
        if kind == "end_triggered":
            return Text(f"the end is triggered in round {event['round']}", "bold red")
        if kind == "game_over":
            return Text("the game is over", "bold red")
        return None
