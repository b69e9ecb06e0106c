// Leilão das Bancas on screen, from the rules' "leilao-view/1" JSON (docs/leilao.md): the
// display of stalls, your hand to bid from (a main card, an optional extra card, then confirm),
// every seat's stalls, played cards, fees and score, and who still has to bid. Other seats'
// sealed bids are not in the view until the reveal: the page shows only that they have bid.

import type { JsonObject } from "@bufbuild/protobuf";
import type { Action, LeilaoAction } from "@mercado/client";
import { h } from "./dom.js";
import { seatColour, sentence } from "./labels.js";
import { actionButton, names, num, overText, type Result, resultCard, type Screen, type Table } from "./table.js";
import { countdown, seatRole } from "./ui.js";

interface Slot {
  seat: number;
  role: "main" | "extra" | "rebid";
  card: number;
}

interface Played {
  card: number;
  role: "main" | "extra" | "rebid";
  void: boolean;
  round: number;
}

/** The fields of "leilao-view/1" the page reads. */
interface LeilaoView {
  round: number;
  phase: "bid" | "tiebreak" | "pick" | "finished";
  to_move: number[];
  acted: number[];
  display: string[];
  deck_count: number;
  stalls: string[][];
  played: Played[][];
  fees: number[];
  hands: number[][];
  sealed: { card: number; extra?: number | null } | null;
  tie_group: Slot[] | null;
  ranking: Slot[][] | null;
  pick_sequence: number[] | null;
  picks_made: number;
  scores: number[];
  result: Result | null;
  options: { card_penalty: "face" | "one"; set_bonus: "per_set" | "once"; leftover_stalls: "cycle" | "discard" };
}

const EXTRA_FEE = 5;
const SET_BONUS = 10;
const COLOURS = ["red", "blue", "green", "yellow"] as const;

type Move = LeilaoAction["action"];

/** The table's legal Leilão moves, each with the action to send. */
function moves(table: Table): { action: Action; move: Move }[] {
  return table.legal.flatMap((action) => (action.game.case === "leilao" ? [{ action, move: action.game.value.action }] : []));
}

/** "red-19" as its colour and number. */
function stallParts(stall: string): { colour: string; value: number } {
  const [colour = "", value = "0"] = stall.split("-");
  return { colour, value: Number(value) };
}

function stallCard(stall: string, attrs: Record<string, string> = {}): HTMLElement {
  const { colour, value } = stallParts(stall);
  return h("span", { class: `stall stall-${colour}`, title: `${colour} ${value}: worth ${value} point${value === 1 ? "" : "s"}`, ...attrs }, String(value));
}

export function leilaoScreen(table: Table, json: JsonObject): Screen {
  const view = json as unknown as LeilaoView;
  return {
    status: statusText(table, view),
    main: [
      view.result ? resultCard(table, view.result, leilaoColumns(view)) : null,
      displayCard(table, view),
      table.you !== undefined && !view.result ? handCard(table, view, table.you) : null,
    ],
    side: [playersCard(table, view), scoringCard(view)],
  };
}

function statusText(table: Table, view: LeilaoView): string {
  if (view.phase === "finished") return overText(table, view.result);
  const you = table.you;
  const waiting = view.to_move.filter((seat) => seat !== you);
  const mine = you !== undefined && view.to_move.includes(you) && table.legal.length > 0;
  if (view.phase === "pick") {
    const picker = view.to_move[0];
    if (mine) return "Your pick: take a stall from the display.";
    return picker === undefined ? "Picking stalls…" : `${table.name(picker)} is picking a stall…`;
  }
  const tie = view.phase === "tiebreak";
  const tieCard = view.tie_group?.[0]?.card;
  if (mine) {
    if (tie) return `Tie at ${tieCard}: re-bid one more card to break it, then confirm.`;
    const [main, extra] = table.draft;
    if (main === undefined) return "Your bid: pick your main card, then an extra card if you like, then confirm.";
    return extra === undefined ? `Your bid: ${main}. Add an extra card (${EXTRA_FEE} points) or confirm.` : `Your bid: ${main} + extra ${extra}. Confirm it.`;
  }
  const verb = tie ? "re-bid" : "bid";
  if (you !== undefined && view.acted.includes(you)) return `You have ${verb} — waiting for ${names(table, waiting)} to ${verb}…`;
  return tie ? `Tie at ${tieCard}: waiting for ${names(table, waiting)} to re-bid…` : `Waiting for ${names(table, waiting)} to bid…`;
}

/** The display of stalls, to take one when it is your pick; the tie being broken; the bids and pick order once known. */
function displayCard(table: Table, view: LeilaoView): HTMLElement {
  const picks = new Map<string, Action>();
  for (const { action, move } of moves(table)) if (move.case === "pick") picks.set(move.value.stall, action);
  const stalls = view.display.map((stall) => {
    const pick = picks.get(stall);
    return pick
      ? actionButton(table, pick, stallCard(stall), { class: "stall-button choice", "data-testid": `pick-${stall}`, title: `take ${stall}` })
      : stallCard(stall, { "data-testid": `stall-${stall}` });
  });
  const order = view.pick_sequence?.map((seat, i) =>
    h("span", { class: `pick-turn ${i < view.picks_made ? "done" : i === view.picks_made ? "now" : ""}`, style: `--seat:${seatColour(seat)}` }, table.name(seat)),
  );
  return h(
    "section",
    { class: `card leilao-display ${picks.size ? "attention" : ""}`, "data-testid": "display", "data-round": view.round },
    h("h2", {}, `Round ${view.round} · the stalls`, h("span", { class: "muted small" }, ` · deck ${view.deck_count}`)),
    h("div", { class: "stalls" }, stalls.length ? stalls : h("span", { class: "muted" }, "none left")),
    view.tie_group
      ? h("p", { class: "small", "data-testid": "tie" }, `Tie at ${view.tie_group[0]?.card}: ${names(table, view.tie_group.map((slot) => slot.seat))} re-bid to order their places.`)
      : null,
    view.ranking
      ? h(
          "p",
          { class: "small", "data-testid": "ranking" },
          "Bids, highest first: ",
          view.ranking.map((group) => group.map((slot) => `${table.name(slot.seat)} ${slot.card}${slot.role === "main" ? "" : ` (${slot.role})`}`).join(" = ")).join(" · "),
        )
      : null,
    order ? h("p", { class: "small pick-order", "data-testid": "pick-order" }, "Pick order: ", order) : null,
    h("p", { class: "muted small" }, "A stall is worth its number. The highest bid picks first; each bid card is paid for at the end."),
  );
}

/** Your hand: pick a main card, an optional extra card, then confirm (a re-bid: one card). */
function handCard(table: Table, view: LeilaoView, you: number): HTMLElement {
  const bids = moves(table).filter(({ move }) => move.case === "bid" || move.case === "rebid");
  const tie = view.phase === "tiebreak";
  const [main, extra] = table.draft.map(Number);
  const cost = (card: number): number => (view.options.card_penalty === "one" ? 1 : card);
  const cards = (view.hands[you] ?? []).map((card) => {
    const role = card === main ? "main" : card === extra ? "extra" : "";
    const attrs = { class: `bid-card ${role}`, title: `costs ${cost(card)} at the end`, "data-testid": `card-${card}` };
    if (!bids.length) return h("span", attrs, String(card));
    return h("button", { type: "button", ...attrs, class: `${attrs.class} choice`, "aria-pressed": role !== "", onclick: () => table.setDraft(nextDraft(table.draft, card, tie)) }, String(card), role ? h("small", {}, role) : null);
  });
  const chosen = bids.find(({ move }) =>
    move.case === "rebid" ? move.value.card === main : move.case === "bid" && move.value.card === main && move.value.extra === extra,
  );
  const sealed = view.sealed;
  return h(
    "section",
    { class: `card leilao-hand ${bids.length ? "attention" : ""}`, "data-testid": "hand" },
    h("h2", {}, "Your hand", h("span", { class: "muted small" }, ` · ${view.hands[you]?.length ?? 0} cards`)),
    h("div", { class: "bid-cards" }, cards),
    sealed
      ? h(
          "p",
          { class: "sealed", "data-testid": "sealed" },
          `Your sealed ${tie ? "re-bid" : "bid"}: ${sealed.card}${sealed.extra ? ` + extra ${sealed.extra}` : ""}. The others see only that you have bid until every bid is in.`,
        )
      : null,
    bids.length
      ? h(
          "div",
          { class: "bid-confirm" },
          chosen
            ? actionButton(table, chosen.action, confirmLabel(main, extra, tie, cost), { class: "primary", "data-testid": "confirm-bid" })
            : h("span", { class: "muted small" }, tie ? "Pick the card to re-bid." : "Pick your main card."),
          table.draft.length ? h("button", { type: "button", class: "secondary", onclick: () => table.setDraft([]) }, "Clear") : null,
        )
      : null,
  );
}

/** The draft after a click on `card`: the main card, then the extra (clicking a chosen card drops it). */
function nextDraft(draft: readonly string[], card: number, tie: boolean): string[] {
  const [main, extra] = draft;
  const value = String(card);
  if (main === value) return [];
  if (main === undefined || tie) return [value];
  return extra === value ? [main] : [main, value];
}

function confirmLabel(main: number | undefined, extra: number | undefined, tie: boolean, cost: (card: number) => number): string {
  if (tie) return `Re-bid ${main} (costs ${cost(main ?? 0)})`;
  if (extra === undefined) return `Bid ${main} (costs ${cost(main ?? 0)})`;
  return `Bid ${main} + extra ${extra} (costs ${cost(main ?? 0) + cost(extra)} + fee ${EXTRA_FEE})`;
}

/** Every seat: who still has to act, its stalls, the cards it played, fees and score so far. */
function playersCard(table: Table, view: LeilaoView): HTMLElement {
  const match = table.state.match;
  const rows = view.hands.map((hand, seat) => {
    const info = match?.seats[seat];
    const pending = view.to_move.includes(seat);
    const acted = view.acted.includes(seat);
    const tag = pending ? (view.phase === "pick" ? "to pick" : view.phase === "tiebreak" ? "to re-bid" : "to bid") : acted ? "has bid" : "";
    const deadline = pending && info?.deadlineUnixMs !== undefined ? Number(info.deadlineUnixMs) : undefined;
    const stalls = view.stalls[seat] ?? [];
    const played = view.played[seat] ?? [];
    return h(
      "li",
      {
        class: `player ${pending ? "to-move" : ""}`,
        style: `--seat:${seatColour(seat)}`,
        "data-testid": `seat-${seat}`,
        "data-acted": String(acted),
        "data-pending": String(pending),
      },
      h(
        "div",
        { class: "player-head" },
        h("span", { class: "chip" }),
        h("strong", { class: "player-name" }, table.name(seat)),
        seatRole(match, seat) ? h("span", { class: "role" }, seatRole(match, seat)) : null,
        h("span", { class: "coins", title: "score so far", "data-testid": `score-now-${seat}` }, `${view.scores[seat] ?? 0} pts`),
      ),
      h(
        "div",
        { class: "player-body" },
        tag ? h("span", { class: `turn-tag ${acted ? "done" : ""}`, "data-testid": `tag-${seat}` }, tag) : null,
        deadline !== undefined ? countdown(deadline, Number(info?.reserveMs ?? 0n), { title: "time left to act" }) : null,
        h("span", { class: "small" }, `${stalls.length} stalls · ${stalls.reduce((sum, stall) => sum + stallParts(stall).value, 0)} pts · ${sets(stalls)} sets`),
        view.fees[seat] ? h("span", { class: "small" }, `fees ${view.fees[seat]}`) : null,
      ),
      h("div", { class: "mini-stalls" }, stalls.map((stall) => stallCard(stall))),
      h(
        "div",
        { class: "small played", "data-testid": `played-${seat}`, "data-cards": played.map((p) => `${p.card}:${p.round}:${p.role}`).join(",") },
        h("span", { class: "muted" }, "played "),
        played.length ? played.map((p) => h("span", { class: `played-card ${p.void ? "void" : ""}`, title: `${p.role}, round ${p.round}${p.void ? ", void (tie)" : ""}` }, String(p.card))) : h("span", { class: "muted" }, "nothing yet"),
      ),
      h("div", { class: "small muted", "data-testid": `hand-of-${seat}`, "data-cards": hand.join(",") }, `hand: ${hand.join(" ")}`),
    );
  });
  return h("section", { class: "card" }, h("h2", {}, "Players"), h("ul", { class: "players" }, rows));
}

/** Complete colour sets among `stalls`. */
function sets(stalls: readonly string[]): number {
  return Math.min(...COLOURS.map((colour) => stalls.filter((stall) => stallParts(stall).colour === colour).length));
}

function leilaoColumns(view: LeilaoView): Record<string, (seat: number) => string> {
  return {
    Stalls: (seat) => String(view.stalls[seat]?.length ?? 0),
    Fees: (seat) => String(view.fees[seat] ?? 0),
  };
}

function scoringCard(view: LeilaoView): HTMLElement {
  const { card_penalty: penalty, set_bonus: bonus, leftover_stalls: leftover } = view.options;
  return h(
    "section",
    { class: "card rules" },
    h("h2", {}, "Scoring"),
    h(
      "ul",
      {},
      h("li", {}, "+ the numbers of your stalls"),
      h("li", {}, bonus === "once" ? `+ ${SET_BONUS} once for a stall of every colour` : `+ ${SET_BONUS} for each set of the four colours`),
      h("li", {}, penalty === "one" ? "− 1 for each card you played" : "− the numbers of the cards you played"),
      h("li", {}, `− ${EXTRA_FEE} for each extra bid`),
      h("li", {}, leftover === "discard" ? "Each bid picks once; leftover stalls leave the game." : "Bids pick in turn until the display is empty."),
    ),
  );
}

/** The log's line for a move's events ("" when they say nothing worth a line). */
export function leilaoLog(events: readonly JsonObject[], name: (seat: number) => string): string {
  const slots = (value: unknown): string =>
    ((value ?? []) as { seat: number; card: number; extra?: number | null }[])
      .map((bid) => `${name(bid.seat)} ${bid.card}${bid.extra ? ` + ${bid.extra}` : ""}`)
      .join(", ");
  const lines = events.map((event): string | null => {
    const seat = num(event.seat);
    switch (event.type) {
      case "sealed":
        return event.card === undefined ? `${name(seat)} ${event.step === "tiebreak" ? "re-bid" : "bid"} (sealed)` : `${name(seat)} bid ${event.card}${event.extra ? ` + ${event.extra}` : ""} (sealed)`;
      case "reveal":
        return `${event.step === "tiebreak" ? "re-bids" : "bids"} revealed: ${slots(event.bids ?? event.rebids)}`;
      case "tiebreak":
        return `tie at ${num(event.card)}`;
      case "pick":
        return `${name(seat)} took ${String(event.stall)}`;
      case "leftover":
        return `left over: ${(event.stalls as string[]).join(", ")}`;
      case "deal":
        return `round ${num(event.round)}: ${(event.display as string[]).join(", ")}`;
      case "game_over":
        return "the game is over";
      default:
        return null;
    }
  });
  return sentence(lines.filter((line): line is string => Boolean(line)));
}
