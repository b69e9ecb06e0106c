"""Leilão das Bancas on the terminal, from the rules' JSON view (docs/leilao.md).

Every seat bids at once: the status line and the panels say who has bid and who still has to; a seat
sees its own sealed bid, and another's only once all are revealed (the view never holds it before:
other seats' hands still show those cards). The table shows the stalls on display, and once the bids
are ranked, the pick order; each panel a seat's hand, played pile, stalls, fees and score so far.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from mercado.v1 import match_pb2 as api
from mercado_client.games import action_json
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from server.games.leilao.components import COLOURS, EXTRA_BID_FEE, SET_BONUS

from ..board import seat_tag
from ..common import counted
from .base import RESIGN, RulesBoard, Seen, movers, seat_list
from .menu import ActionGroup, Described

COLOUR_STYLES = {
    "red": "bold red1",
    "blue": "bold deep_sky_blue1",
    "green": "bold green3",
    "yellow": "bold gold1",
}
ROLE_MARKS = {"main": "", "extra": "+", "rebid": "r"}
STEP_VERBS = {"bid": "bid", "tiebreak": "re-bid"}


def stall_text(name: str) -> Text:
    """A market card as 'red-17' in its colour."""
    return Text(name, COLOUR_STYLES[name.partition("-")[0]])


def stall_value(name: str) -> int:
    return int(name.rpartition("-")[2])


def slot_text(slot: dict[str, Any], names: Sequence[str]) -> Text:
    role = {"extra": " (extra)", "rebid": " (re-bid)"}.get(slot["role"], "")
    return Text.assemble(seat_tag(slot["seat"], names), f" {slot['card']}{role}")


class LeilaoBoard(RulesBoard):
    game = "leilao"
    title = "Leilão"
    rules_text = (
        f"score: stall points + {SET_BONUS} per set of four colours - played cards - fees; "
        "ties: more stall points, then more stalls"
    )
    result_headers = ("stalls", "points", "fees")

    def __init__(self) -> None:
        super().__init__()
        self.card_penalty = "face"  # the match's option, as its last view said

    # --- the table and the seats ----------------------------------------------------------------

    def status_parts(self, seen: Seen) -> list[Text]:
        view = seen.view
        parts = [Text(f"round {view['round']}")]
        if not seen.playing:
            return parts
        waiting = seen.movers
        if view["phase"] in STEP_VERBS:
            verb = STEP_VERBS[view["phase"]]
            parts.append(Text.assemble(f"to {verb}: ", seat_list(waiting, seen.names)))
            if view["acted"]:
                parts.append(Text.assemble(f"has {verb}: ", seat_list(view["acted"], seen.names)))
        elif waiting:
            parts.append(Text.assemble("to pick: ", seat_list(waiting, seen.names)))
        return parts

    def table(self, seen: Seen) -> RenderableType:
        view = seen.view
        grid = Table.grid(padding=(0, 1))
        grid.add_column(style="dim")
        grid.add_column()
        display = [stall_text(name) for name in view["display"]]
        grid.add_row("stalls", Text("  ").join(display) if display else Text("none", "dim"))
        grid.add_row("deck", counted(view["deck_count"], "card"))
        if view["removed"]:
            grid.add_row("left over", Text(" ").join(stall_text(name) for name in view["removed"]))
        if view["phase"] == "tiebreak" and view["tie_group"]:
            tie = Text(", ").join(slot_text(slot, seen.names) for slot in view["tie_group"])
            grid.add_row("tie", Text.assemble(tie, " - re-bidding"))
        sequence = view.get("pick_sequence")
        if view["phase"] == "pick" and sequence:
            done = view["picks_made"]
            order = Text(", ").join(
                Text(seen.names[s], "dim strike" if i < done else ("bold" if i == done else ""))
                for i, s in enumerate(sequence)
            )
            grid.add_row("pick order", order)
        return grid

    def seat_rows(self, seen: Seen, seat: int) -> list[tuple[str, RenderableType]]:
        view = seen.view
        hand = view["hands"][seat]
        rows: list[tuple[str, RenderableType]] = [
            ("hand", Text(" ".join(str(card) for card in hand)) if hand else Text("empty", "dim")),
        ]
        if seat == seen.seat and view.get("sealed"):
            sealed = view["sealed"]
            extra = f" + extra {sealed['extra']}" if sealed.get("extra") else ""
            rows.append(("sealed", Text(f"{sealed['card']}{extra} (only you see it)", "bold cyan")))
        rows.append(("played", self.played_text(view["played"][seat])))
        rows.append(("stalls", self.stalls_text(view["stalls"][seat])))
        if view["fees"][seat]:
            rows.append(("fees", Text(f"-{view['fees'][seat]}", "red")))
        rows.append(("score", Text(str(view["scores"][seat]), "bold")))
        return rows

    def seat_mark(self, seen: Seen, seat: int) -> Text | None:
        view = seen.view
        if seen.playing and view["phase"] in STEP_VERBS and seat in view["acted"]:
            return Text(f"✓ has {STEP_VERBS[view['phase']]}", "bold green")
        return None

    @staticmethod
    def played_text(pile: Sequence[dict[str, Any]]) -> Text:
        """The played pile in order: '+4' an extra bid, 'r3' a re-bid; void (tied) cards struck."""
        if not pile:
            return Text("-", "dim")
        cards = [Text(f"{ROLE_MARKS[p['role']]}{p['card']}", "dim strike" if p["void"] else "") for p in pile]
        return Text.assemble(Text(" ").join(cards), (f"  (sum {sum(p['card'] for p in pile)})", "dim"))

    @staticmethod
    def stalls_text(stalls: Sequence[str]) -> Text:
        """The stalls by colour, with their points and complete sets."""
        if not stalls:
            return Text("-", "dim")
        by_colour = {
            colour: sorted((stall_value(s) for s in stalls if s.startswith(f"{colour}-")), reverse=True)
            for colour in COLOURS
        }
        parts = [
            Text(f"{colour} " + " ".join(map(str, values)), COLOUR_STYLES[colour])
            for colour, values in by_colour.items()
            if values
        ]
        sets = min(len(values) for values in by_colour.values())
        total = Text(
            f"  ({counted(sum(stall_value(s) for s in stalls), 'point')}, {counted(sets, 'set')})", "dim"
        )
        return Text.assemble(Text(" · ").join(parts), total)

    def result_columns(self, seen: Seen, seat: int) -> list[str]:
        view = seen.view
        stalls = view["stalls"][seat]
        return [str(len(stalls)), str(sum(stall_value(s) for s in stalls)), str(view["fees"][seat])]

    def waiting_text(self, state: api.MatchState, seat: int, names: Sequence[str]) -> Text:
        seen = self.seen(state)
        phase = seen.view.get("phase")
        waiting = seat_list(movers(state), names)
        if phase in STEP_VERBS:
            verb = STEP_VERBS[phase]
            done = f"you have {verb}; " if seat in seen.view["acted"] else ""
            return Text.assemble(done, "waiting for ", waiting, f" to {verb}…")
        return Text.assemble("waiting for ", waiting, " to pick a stall…")

    # --- actions --------------------------------------------------------------------------------

    def penalty(self, seen: Seen, card: int) -> int:
        """What playing ``card`` costs at the end: its number, or 1 (option ``card_penalty``)."""
        return card if seen.view["options"]["card_penalty"] == "face" else 1

    # A bid is answered with its card's number (and the extra card's after it), not an entry's.

    def groups(self, state: api.MatchState) -> list[ActionGroup]:
        self.card_penalty = self.seen(state).view.get("options", {}).get("card_penalty", "face")
        return super().groups(state)

    @staticmethod
    def bids(groups: Sequence[ActionGroup]) -> list[dict[str, Any]]:
        """The bids (or re-bids) the menu's entries hold; none when it offers something else."""
        actions = [action_json(choice.action) for group in groups for choice in group.choices]
        return actions if actions and all(a["type"] in ("bid", "rebid") for a in actions) else []

    @staticmethod
    def hand(bids: Sequence[dict[str, Any]]) -> list[int]:
        return sorted({bid["card"] for bid in bids})

    def read(
        self, groups: Sequence[ActionGroup], answer: str
    ) -> api.Action | ActionGroup | Literal["resign"] | None:
        bids = self.bids(groups)
        if not bids:
            return super().read(groups, answer)
        words = answer.lower().replace("+", " ").split()
        if words == [RESIGN]:
            return RESIGN
        if 1 <= len(words) <= 2 and all(word.isdigit() for word in words):
            wanted = {"card": int(words[0]), "extra": int(words[1]) if len(words) == 2 else None}
            for group in groups:
                for choice in group.choices:
                    data = action_json(choice.action)
                    if (data["card"], data.get("extra")) == (wanted["card"], wanted["extra"]):
                        return choice.action
            return None
        return self.typed(groups, answer)

    def first_hint(self, groups: Sequence[ActionGroup]) -> str:
        bids = self.bids(groups)
        if not bids:
            return super().first_hint(groups)
        hand = self.hand(bids)
        if bids[0]["type"] == "rebid":
            return f"a card like {hand[0]}, or resign"
        extra = f"{hand[0]} {hand[-1]}" if len(hand) > 1 else ""
        return f"a card like {hand[0]}" + (f", {extra} with an extra card" if extra else "") + ", or resign"

    def misread(self, groups: Sequence[ActionGroup]) -> str:
        bids = self.bids(groups)
        if not bids:
            return super().misread(groups)
        hand = " ".join(map(str, self.hand(bids)))
        extra = ", and an extra card after it if you like" if bids[0]["type"] == "bid" else ""
        return f"type a card of your hand ({hand}){extra}; or resign"

    def render_groups(
        self, groups: Sequence[ActionGroup], seat: int, names: Sequence[str], extras: Sequence[Text]
    ) -> RenderableType:
        bids = self.bids(groups)
        if not bids:
            return super().render_groups(groups, seat, names, extras)
        each = "its number" if self.card_penalty == "face" else "1 point"
        cards = Text(" ").join(Text(str(card), "bold cyan") for card in self.hand(bids))
        if bids[0]["type"] == "rebid":
            how = Text.assemble(
                ("your re-bid", "bold"), ": a card of your hand, which costs ", each, " at the end"
            )
        else:
            how = Text.assemble(
                ("your bid", "bold"),
                ": a card of your hand, which costs ",
                each,
                " at the end, and an extra card after it if you like (",
                (f"fee {EXTRA_BID_FEE}", "yellow"),
                ")",
            )
        return Group(
            how,
            Text.assemble(("  hand  ", "dim"), cards),
            Text.assemble(("  or ", "dim"), ("resign", "red"), (" (leave the match for good)", "dim")),
        )

    def compact_groups(
        self, groups: Sequence[ActionGroup], seat: int, names: Sequence[str], extras: Sequence[Text]
    ) -> RenderableType | None:
        return None if self.bids(groups) else super().compact_groups(groups, seat, names, extras)

    def describe(self, seen: Seen, data: dict[str, Any]) -> Described:
        kind = data["type"]
        if kind == "pick":
            name = data["stall"]
            title = Text.assemble("take ", stall_text(name))
            gain = Text(f"+{counted(stall_value(name), 'point')}", "bold green")
            return Described(("pick", name), title, cost=gain)
        card = data["card"]
        main_cost = self.penalty(seen, card)
        if kind == "rebid":
            return Described(
                ("rebid", card),
                Text(f"re-bid {card}"),
                cost=Text(f"-{counted(main_cost, 'point')}", "yellow"),
            )
        extra = data.get("extra")
        title = Text.assemble(f"bid {card} ", (f"(-{counted(main_cost, 'point')})", "yellow"))
        summary = f"with or without an extra card (fee {EXTRA_BID_FEE})"
        if extra is None:
            return Described(
                ("bid", card), title, "extra card", "none", label="no extra card", summary=summary
            )
        cost = Text(f"-{counted(self.penalty(seen, extra), 'point')}, -{EXTRA_BID_FEE} fee", "yellow")
        return Described(("bid", card), title, "extra card", f"+{extra}", cost, f"extra {extra}", summary)

    # --- narration ------------------------------------------------------------------------------

    def event_text(self, event: dict[str, Any], names: Sequence[str]) -> Text | None:
        kind = event["type"]
        if kind == "sealed":
            who = seat_tag(event["seat"], names)
            verb = STEP_VERBS[event["step"]]
            if "card" not in event:  # another seat's: only that it acted
                return Text.assemble(who, f" has {verb}")
            extra = f" + extra {event['extra']}" if event.get("extra") else ""
            return Text.assemble(who, f" has {verb}: {event['card']}{extra} (sealed)")
        if kind == "reveal":
            if event["step"] == "bid":
                bids = [
                    Text.assemble(
                        seat_tag(b["seat"], names),
                        f" {b['card']}" + (f"+{b['extra']}" if b.get("extra") else ""),
                    )
                    for b in event["bids"]
                ]
                return Text.assemble(("bids revealed: ", "bold"), Text(", ").join(bids))
            rebids = [Text.assemble(seat_tag(b["seat"], names), f" {b['card']}") for b in event["rebids"]]
            return Text.assemble(("re-bids revealed: ", "bold"), Text(", ").join(rebids))
        if kind == "tiebreak":
            return Text.assemble(
                (f"tie at {event['card']}: ", "bold yellow"), seat_list(event["pending"], names), " re-bid"
            )
        if kind == "ranking":
            return Text.assemble("pick order: ", seat_list(event["pick_sequence"], names))
        if kind == "pick":
            return Text.assemble(seat_tag(event["seat"], names), " took ", stall_text(event["stall"]))
        if kind == "leftover":
            return Text.assemble("left over: ", Text(" ").join(stall_text(s) for s in event["stalls"]))
        if kind == "deal":
            return Text.assemble(
                f"round {event['round']}: ", Text(" ").join(stall_text(s) for s in event["display"])
            )
        if kind == "game_over":
            return Text("the game is over", "bold red")
        return None
