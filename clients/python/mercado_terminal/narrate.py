"""Match updates as short log lines, e.g. 'bob (seat 2) opened a fish stand on c3 (cost 2); income ...'."""

from __future__ import annotations

from collections.abc import Sequence

from mercado.v1 import match_pb2 as api
from mercado.v1 import mercado_pb2 as pb
from mercado_client.wire import describe, entrance_name, square_name
from rich.text import Text

from .board import good_text, goods_text, restaurant_text, seat_tag, tile_text

END_TRIGGERS = {
    pb.EndTriggered.REASON_SQUARES: "4 or fewer squares left",
    pb.EndTriggered.REASON_ENTRANCES: "4 or fewer empty entrances",
}
GAME_ENDS = {
    pb.GameEnded.REASON_FINAL_ROUND: "after the final round",
    pb.GameEnded.REASON_CONSECUTIVE_COINS: "everyone took coins in a row",
}


def event_text(event: pb.MercadoEvent, names: Sequence[str], quiet: int | None = None) -> Text | None:
    """One event as a line, naming its player unless it is ``quiet`` (already named).

    None for bookkeeping the board already shows (offer and display refills).
    """

    def who(player: int) -> Text:
        return Text() if player == quiet else Text.assemble(seat_tag(player, names), " ")

    kind = event.WhichOneof("event")
    if kind == "stand_opened":
        e = event.stand_opened
        where = f" stand on {square_name(e.square)} (cost {e.cost})"
        return Text.assemble(who(e.player), "opened a ", good_text(e.good), where)
    if kind == "income":
        amount = str(event.income.amount) if event.income.HasField("amount") else "coins"
        return Text.assemble(who(event.income.player), "earned ", (amount, "bold green"))
    if kind == "restaurant_taken":
        e2 = event.restaurant_taken
        where = f" on {square_name(e2.square)}"
        return Text.assemble(who(e2.player), "found a ", restaurant_text(e2.restaurant), where)
    if kind == "offer_taken":
        return Text.assemble(who(event.offer_taken.player), "took ", good_text(event.offer_taken.good))
    if kind == "offer_refreshed":
        return Text.assemble("refreshed the offer: ", goods_text(event.offer_refreshed.drawn))
    if kind == "hand_redrawn":
        e3 = event.hand_redrawn
        return Text.assemble(who(e3.player), "redrew their hand: ", goods_text(e3.drawn))
    if kind == "customer_brought":
        e4 = event.customer_brought
        where = f" customers to {entrance_name(e4.entrance)}"
        return Text.assemble(who(e4.player), "brought ", tile_text(e4.tile), where)
    if kind == "restaurant_opened":
        e5 = event.restaurant_opened
        where = f" on {square_name(e5.square)}"
        return Text.assemble(who(e5.player), "opened a ", restaurant_text(e5.restaurant), where)
    if kind == "coin_taken":
        return Text.assemble(who(event.coin_taken.player), "took a coin")
    if kind == "end_triggered":
        e6 = event.end_triggered
        reason = END_TRIGGERS.get(e6.reason, "")
        turns = f"{e6.final_turns} final turn{'' if e6.final_turns == 1 else 's'}"
        return Text(f"the end is triggered ({reason}): {turns}", style="bold red")
    if kind == "game_ended":
        return Text(f"the game is over: {GAME_ENDS.get(event.game_ended.reason, '')}", style="bold red")
    return None


def seat_changes(state: api.MatchState, names: Sequence[str], previous: api.MatchState) -> list[Text]:
    """Lines for what changed in the seats: taken, timed out, left, forfeited, taken back, cancelled."""
    before = {s.seat: s for s in previous.match.seats}
    lines: list[Text] = []
    for info in state.match.seats:
        old = before.get(info.seat)
        tag = seat_tag(info.seat, names)
        if info.taken and (old is None or not old.taken):
            lines.append(Text.assemble(tag, " took their seat"))
        if old is None:
            continue
        if info.forfeited and not old.forfeited:
            lines.append(
                Text.assemble(tag, (" forfeited: ranked last; the AI plays their turns", "bold red"))
            )
        elif info.left and not old.left:
            lines.append(Text.assemble(tag, (" left the match: the AI plays their turns", "bold red")))
        elif info.played_by_ai and not old.played_by_ai:
            lines.append(Text.assemble(tag, (" ran out of time: the AI plays their turns", "bold red")))
        elif old.played_by_ai and not info.played_by_ai:
            lines.append(Text.assemble(tag, " is back and plays their own turns"))
    cancelled = api.MATCH_STATUS_CANCELLED
    if state.match.status == cancelled and previous.match.status != cancelled:
        lines.append(Text("the match was cancelled: not every seat was taken in time", "bold red"))
    return lines


def update_lines(update: api.MatchUpdate, names: Sequence[str]) -> list[Text]:
    """Log lines for an action's update: the action with its events and income, then any end notice."""
    parts: list[Text] = []
    income: list[Text] = []
    notices: list[Text] = []
    for e in update.events:
        event = e.mercado
        kind = event.WhichOneof("event")
        if kind == "income":
            amount = f"+{event.income.amount}" if event.income.HasField("amount") else "+?"
            income.append(Text.assemble(seat_tag(event.income.player, names), " ", (amount, "bold green")))
        elif (line := event_text(event, names, update.seat if parts else None)) is not None:
            (notices if kind in ("end_triggered", "game_ended") else parts).append(line)
    if not parts:
        parts.append(Text.assemble(seat_tag(update.seat, names), f" {describe(update.action)}"))
    if income:
        parts.append(Text.assemble("income ", Text(", ").join(income)))
    return [Text("; ").join(parts), *notices]
