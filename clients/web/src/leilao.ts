// Leilão das Bancas on screen, from the typed LeilaoView (docs/leilao.md): the round's stalls as
// cards of their colours, the bids of the round (face down while sealed, turned over at the
// reveal with the tie's re-bids, then the ranking and the picks in order), your hand to bid from
// (a main card, an optional extra card, then confirm), and every seat's stalls in colour columns,
// whose complete rows are its sets. Other seats' sealed bids are not in the view until the
// reveal: the page shows only that they have bid.

import {
  type Action,
  LeilaoCardPenalty,
  LeilaoColour,
  type LeilaoAction,
  LeilaoLeftoverStalls,
  LeilaoPhase,
  type LeilaoPlayedCard,
  type LeilaoPlayer,
  type LeilaoPreview,
  LeilaoRole,
  LeilaoSetBonus,
  type LeilaoStall,
  type LeilaoView,
} from "@mercado/client";
import { type Child, h, s } from "./dom.js";
import { seatColour } from "./labels.js";
import { colourName, stallName } from "./log.js";
import { moveButton, names, points, type Screen, scoreNow, type Table } from "./table.js";
import { countdown, seatRole } from "./ui.js";

type Move = LeilaoAction["action"];

interface LMove {
  action: Action;
  move: Move;
  preview: LeilaoPreview | undefined;
}

function movesOf(table: Table): LMove[] {
  return table.moves.flatMap(({ action, preview }) =>
    action.game.case === "leilao" ? [{ action, move: action.game.value.action, preview: preview.case === "leilao" ? preview.value : undefined }] : [],
  );
}

const COLOURS = [LeilaoColour.RED, LeilaoColour.BLUE, LeilaoColour.GREEN, LeilaoColour.YELLOW] as const;

/** Each colour's shape too, so that stalls are told apart without their colours. */
const SUITS: Readonly<Record<LeilaoColour, (size: number) => SVGElement>> = {
  [LeilaoColour.UNSPECIFIED]: (size) => suit(size, s("circle", { r: 4 })),
  [LeilaoColour.RED]: (size) => suit(size, s("circle", { r: 5 })),
  [LeilaoColour.BLUE]: (size) => suit(size, s("rect", { x: -4.5, y: -4.5, width: 9, height: 9, rx: 1 })),
  [LeilaoColour.GREEN]: (size) => suit(size, s("path", { d: "M0 -5.5 L5.5 4.5 L-5.5 4.5 Z" })),
  [LeilaoColour.YELLOW]: (size) => suit(size, s("path", { d: "M0 -6 L6 0 L0 6 L-6 0 Z" })),
};

function suit(size: number, shape: SVGElement): SVGElement {
  return s("svg", { width: size, height: size, viewBox: "-6 -6 12 12", class: "suit", "aria-hidden": "true" }, shape);
}

/** A stall card: its number (its points) on its colour, with its colour's shape. */
function stallCard(stall: LeilaoStall, attrs: Record<string, string> = {}, size: "big" | "mini" = "big"): HTMLElement {
  const colour = colourName(stall.colour);
  return h(
    "span",
    { class: `stall stall-${colour} ${size}`, title: `${stallName(stall)}: worth ${points(stall.number)}`, ...attrs },
    h("span", { class: "stall-number" }, String(stall.number)),
    size === "big" ? SUITS[stall.colour](14) : null,
  );
}

/** A bid card face up: its number; `note` under it ("extra", "void"). */
function bidCard(card: number, attrs: Record<string, string> = {}, note: Child = null): HTMLElement {
  return h("span", { class: "bid-card", ...attrs }, h("span", { class: "bid-number" }, String(card)), note ? h("small", {}, note) : null);
}

/** A sealed bid card, face down. */
const cardBack = (attrs: Record<string, string> = {}): HTMLElement => h("span", { class: "bid-card back", title: "a sealed bid", ...attrs });

export function leilaoScreen(table: Table, view: LeilaoView): Screen {
  const moves = movesOf(table);
  const over = view.phase === LeilaoPhase.FINISHED;
  return {
    status: statusText(table, view, moves),
    main: [over ? null : displayCard(table, view, moves), over ? null : bidsCard(table, view), table.you !== undefined && !over ? handCard(table, view, table.you, moves) : null],
    side: [playersCard(table, view), scoringCard(view)],
  };
}

function statusText(table: Table, view: LeilaoView, moves: readonly LMove[]): string {
  if (view.phase === LeilaoPhase.FINISHED) return "The match is over.";
  const you = table.you;
  const pending = table.state.seatsToMove;
  const waiting = pending.filter((seat) => seat !== you);
  const mine = moves.length > 0;
  if (view.phase === LeilaoPhase.PICK) {
    const picker = pending[0];
    if (mine) return "Your pick: take a stall from the display.";
    return picker === undefined ? "Picking stalls…" : `${table.name(picker)} is picking a stall…`;
  }
  const tie = view.phase === LeilaoPhase.TIEBREAK;
  const tieCard = view.tieGroup[0]?.card;
  if (mine) {
    if (tie) return `Tie at ${tieCard}: re-bid one more card to break it, then confirm.`;
    const [main, extra] = table.draft;
    if (main === undefined) return "Your bid: pick your main card, then an extra card if you like, then confirm.";
    const fee = view.bidOptions?.extraFee ?? EXTRA_FEE;
    return extra === undefined ? `Your bid: ${main}. Add an extra card (fee: ${points(fee)}) or confirm.` : `Your bid: ${main} + extra ${extra}. Confirm it.`;
  }
  const verb = tie ? "re-bid" : "bid";
  if (you !== undefined && view.acted.includes(you)) return `You have ${verb} — waiting for ${names(table, waiting)} to ${verb}…`;
  return tie ? `Tie at ${tieCard}: waiting for ${names(table, waiting)} to re-bid…` : `Waiting for ${names(table, waiting)} to bid…`;
}

// ---------------------------------------------------------------------------------------------
// The display

function displayCard(table: Table, view: LeilaoView, moves: readonly LMove[]): HTMLElement {
  const picks = new Map<string, LMove>();
  for (const item of moves) if (item.move.case === "pick") picks.set(item.move.value.stall, item);
  const stalls = view.display.map((stall) => {
    const pick = picks.get(stall.name);
    if (!pick) return stallCard(stall, { "data-testid": `stall-${stall.name}` });
    const bonus = pick.preview?.setBonus ?? 0;
    return moveButton(
      table,
      pick.action,
      [stallCard(stall), h("span", { class: "pick-gain" }, `+${pick.preview?.stallPoints ?? stall.number}`, bonus ? h("strong", {}, ` +${bonus} set`) : null)],
      { class: "stall-button choice", "data-testid": `pick-${stall.name}`, title: `Take ${stallName(stall)}: ${points(Number(pick.preview?.scoreChange ?? stall.number))}${bonus ? `, completing a set (+${bonus})` : ""}` },
    );
  });
  return h(
    "section",
    { class: `card leilao-display ${picks.size ? "attention" : ""}`, "data-testid": "display", "data-round": view.round },
    h("h2", {}, `Round ${view.round} · the stalls`, h("span", { class: "muted small" }, ` · ${view.deckCount} in the deck`)),
    h("div", { class: "stalls" }, stalls.length ? stalls : h("span", { class: "muted" }, "all taken")),
    picks.size ? h("p", { class: "muted small" }, "Take one: a stall scores its number; one of each colour makes a set.") : null,
  );
}

// ---------------------------------------------------------------------------------------------
// The round's bids: sealed, revealed, the ties' re-bids, the ranking and the picks

/** This round's cards a seat played, in the order played (main, extra, then re-bids). */
const playedThisRound = (player: LeilaoPlayer | undefined, round: number): LeilaoPlayedCard[] => (player?.played ?? []).filter((card) => card.round === round);

/** A role as the rules name it, in the played pile's data-cards ("11:3:main"). */
const ROLE_IDS: Readonly<Record<LeilaoRole, string>> = {
  [LeilaoRole.UNSPECIFIED]: "",
  [LeilaoRole.MAIN]: "main",
  [LeilaoRole.EXTRA]: "extra",
  [LeilaoRole.REBID]: "rebid",
};

const ROLE_NOTES: Readonly<Record<LeilaoRole, string>> = {
  [LeilaoRole.UNSPECIFIED]: "",
  [LeilaoRole.MAIN]: "",
  [LeilaoRole.EXTRA]: "extra",
  [LeilaoRole.REBID]: "re-bid",
};

/** The cards revealed when the bids were last drawn: a card turns over only when it is newly revealed. */
let shownRevealed = "";

function bidsCard(table: Table, view: LeilaoView): HTMLElement {
  const revealed = view.phase !== LeilaoPhase.BID;
  const cardsRevealed = `${table.state.match?.matchId}:${view.round}:${view.players.map((player) => (revealed ? playedThisRound(player, view.round).length : 0)).join(",")}`;
  const turning = cardsRevealed !== shownRevealed;
  shownRevealed = cardsRevealed;
  const rows = view.players.map((player) => {
    const seat = player.seat;
    const played = revealed ? playedThisRound(player, view.round) : [];
    const sealed = view.acted.includes(seat);
    const pending = table.state.seatsToMove.includes(seat) && view.phase !== LeilaoPhase.PICK;
    const mineSealed = seat === table.you && view.sealed ? view.sealed : undefined;
    const cards: Child[] = played.map((card) =>
      bidCard(card.card, { class: `bid-card ${turning ? "turning" : ""} ${card.void ? "void" : ""} role-${ROLE_NOTES[card.role] || "main"}`, title: `${ROLE_NOTES[card.role] || "main bid"}${card.void ? ", void: tied" : ""}` }, [ROLE_NOTES[card.role], card.void ? " void" : ""].join("").trim() || null),
    );
    if (sealed) {
      // Still sealed: face down to everyone else; your own shows, marked sealed.
      if (mineSealed) {
        cards.push(bidCard(mineSealed.card, { class: "bid-card mine-sealed" }, "sealed"));
        if (mineSealed.extra) cards.push(bidCard(mineSealed.extra, { class: "bid-card mine-sealed" }, "extra"));
      } else {
        cards.push(cardBack({ "data-testid": `sealed-${seat}` }));
      }
    } else if (pending) {
      cards.push(h("span", { class: "bid-card empty", title: "still to choose" }, "?"));
    }
    return h(
      "li",
      { style: `--seat:${seatColour(seat)}`, "data-testid": `bids-${seat}` },
      h("span", { class: "bid-who" }, h("span", { class: "chip" }), table.name(seat)),
      h("span", { class: "bid-row" }, cards.length ? cards : h("span", { class: "muted small" }, "no card")),
    );
  });
  const tie = view.phase === LeilaoPhase.TIEBREAK && view.tieGroup.length
    ? h("p", { class: "tie-note", "data-testid": "tie" }, `Tie at ${view.tieGroup[0]?.card}: ${names(table, [...new Set(view.tieGroup.map((slot) => slot.seat))])} re-bid one card each, sealed; the highest goes first. Tied cards are void but still cost their number.`)
    : null;
  return h(
    "section",
    { class: "card leilao-bids", "data-testid": "bids" },
    h("h2", {}, `Round ${view.round} · the bids`, h("span", { class: "muted small" }, revealed ? " · revealed" : " · sealed until everyone has bid")),
    h("ul", { class: "bid-list" }, rows),
    tie,
    rankingList(table, view),
  );
}

/** The ranking, best first (a tie not yet broken as one place), and the picks in their order. */
function rankingList(table: Table, view: LeilaoView): HTMLElement | null {
  if (!view.ranking.length) return null;
  const ranking = h(
    "ol",
    { class: "ranking", "data-testid": "ranking" },
    view.ranking.map((group) =>
      h(
        "li",
        { class: group.slots.length > 1 ? "tied" : "" },
        group.slots.map((slot) =>
          h("span", { class: "slot", style: `--seat:${seatColour(slot.seat)}` }, h("span", { class: "chip" }), `${table.name(slot.seat)} ${slot.card}${slot.role === LeilaoRole.EXTRA ? " (extra)" : ""}`),
        ),
        group.slots.length > 1 ? h("small", { class: "muted" }, " tied") : null,
      ),
    ),
  );
  // The stalls taken this round so far: each seat's last ones, in the order of the pick sequence.
  const done = new Map<number, number>();
  for (const seat of view.pickSequence.slice(0, view.picksMade)) done.set(seat, (done.get(seat) ?? 0) + 1);
  const taken = new Map<number, LeilaoStall[]>(
    [...done].map(([seat, count]) => [seat, (view.players[seat]?.stalls ?? []).slice(-count)]),
  );
  const order = view.pickSequence.map((seat, i) => {
    const stall = i < view.picksMade ? taken.get(seat)?.shift() : undefined;
    return h(
      "li",
      { class: `pick-turn ${i < view.picksMade ? "done" : i === view.picksMade ? "now" : ""}`, style: `--seat:${seatColour(seat)}` },
      h("span", { class: "pick-who" }, table.name(seat)),
      stall ? stallCard(stall, {}, "mini") : h("span", { class: "pick-slot" }, i === view.picksMade ? "picking" : ""),
    );
  });
  return h(
    "div",
    { class: "ranking-box" },
    h("h3", {}, "Ranking"),
    ranking,
    order.length ? [h("h3", {}, "Picks, in order"), h("ol", { class: "pick-order", "data-testid": "pick-order" }, order)] : null,
  );
}

// ---------------------------------------------------------------------------------------------
// Your hand

function handCard(table: Table, view: LeilaoView, you: number, moves: readonly LMove[]): HTMLElement {
  const options = view.bidOptions;
  const tie = options?.step === LeilaoPhase.TIEBREAK;
  const bidding = moves.some((item) => item.move.case !== "pick") && options !== undefined;
  const [main, extra] = table.draft.map(Number);
  const mainOption = options?.cards.find((option) => option.card === main);
  const penalty = view.options?.cardPenaltyRule === LeilaoCardPenalty.ONE ? () => 1 : (card: number) => card;
  const hand = view.players[you]?.hand ?? [];
  const cards = hand.map((card) => {
    const role = card === main ? "main" : card === extra ? "extra" : "";
    // A card to bid (or re-bid), the extra cards its bid allows, or a chosen one (to put it back).
    const bids = new Set(options?.cards.map((option) => option.card));
    const allowed = bidding && (role !== "" || (main === undefined || tie ? bids.has(card) : !!mainOption?.extras.includes(card)));
    const attrs = { class: `bid-card ${role}`, title: `costs ${points(penalty(card))} at the end`, "data-testid": `card-${card}` };
    if (!allowed) return bidCard(card, attrs);
    return h(
      "button",
      { type: "button", ...attrs, class: `${attrs.class} choice`, "aria-pressed": role !== "", onclick: () => table.setDraft(nextDraft(table.draft, card, tie)) },
      h("span", { class: "bid-number" }, String(card)),
      role ? h("small", {}, role) : null,
    );
  });
  const chosen = moves.find(({ move }) => (move.case === "rebid" ? move.value.card === main : move.case === "bid" && move.value.card === main && move.value.extra === extra));
  const sealed = view.sealed;
  return h(
    "section",
    { class: `card leilao-hand ${bidding ? "attention" : ""}`, "data-testid": "hand" },
    h("h2", {}, "Your hand", h("span", { class: "muted small" }, ` · ${hand.length} cards · each costs ${view.options?.cardPenaltyRule === LeilaoCardPenalty.ONE ? "1 point" : "its number"} at the end`)),
    h("div", { class: "bid-cards" }, cards.length ? cards : h("span", { class: "muted" }, "no cards left")),
    sealed
      ? h(
          "p",
          { class: "sealed", "data-testid": "sealed" },
          `Your sealed ${tie ? "re-bid" : "bid"}: ${sealed.card}${sealed.extra ? ` + extra ${sealed.extra}` : ""}. The others see only that you have bid until every bid is in.`,
        )
      : null,
    bidding
      ? h(
          "div",
          { class: "bid-confirm" },
          chosen
            ? moveButton(table, chosen.action, confirmLabel(chosen, tie), { class: "primary", "data-testid": "confirm-bid" })
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

/** "Bid 11 + extra 4 (−15 points, fee −5)", from the bid's preview. */
function confirmLabel(chosen: LMove, tie: boolean): string {
  const { move, preview } = chosen;
  const cost = `−${points(preview?.cardPenalty ?? 0)} at the end${preview?.fee ? `, fee −${preview.fee}` : ""}`;
  if (move.case === "rebid" || tie) return `Re-bid ${move.case === "rebid" ? move.value.card : ""} (${cost})`;
  if (move.case !== "bid") return "Confirm";
  return move.value.extra === undefined ? `Bid ${move.value.card} (${cost})` : `Bid ${move.value.card} + extra ${move.value.extra} (${cost})`;
}

// ---------------------------------------------------------------------------------------------
// The players

/** A seat's stalls in colour columns, in the order taken; rows that are complete sets framed. */
function stallArea(player: LeilaoPlayer, sets: number): HTMLElement {
  const columns = COLOURS.map((colour) => player.stalls.filter((stall) => stall.colour === colour));
  const depth = Math.max(0, ...columns.map((column) => column.length));
  const rows = Array.from({ length: depth }, (_, row) =>
    h(
      "div",
      { class: `stall-row ${row < sets ? "set" : ""}`, title: row < sets ? `set ${row + 1}: one stall of each colour` : "" },
      columns.map((column) => {
        const stall = column[row];
        return stall ? stallCard(stall, {}, "mini") : h("span", { class: "stall-gap" });
      }),
      row < sets ? h("span", { class: "set-tag" }, "set") : null,
    ),
  );
  return h("div", { class: "stall-area", "data-testid": `stalls-${player.seat}` }, rows.length ? rows : h("span", { class: "muted small" }, "no stall yet"));
}

/** The count of a named part of a seat's score ("set_bonus": its sets). */
function partCount(table: Table, seat: number, name: string): number {
  return table.state.scoreParts.find((score) => score.seat === seat)?.parts.find((part) => part.name === name)?.count ?? 0;
}

function playersCard(table: Table, view: LeilaoView): HTMLElement {
  const match = table.state.match;
  const rows = view.players.map((player) => {
    const seat = player.seat;
    const info = match?.seats[seat];
    const pending = table.state.seatsToMove.includes(seat);
    const acted = view.acted.includes(seat);
    const tag = pending ? (view.phase === LeilaoPhase.PICK ? "to pick" : view.phase === LeilaoPhase.TIEBREAK ? "to re-bid" : "to bid") : acted ? "has bid" : "";
    const deadline = pending && info?.deadlineUnixMs !== undefined ? Number(info.deadlineUnixMs) : undefined;
    const score = scoreNow(table.state, seat) ?? Number(player.score);
    const sets = partCount(table, seat, "set_bonus");
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
        h("span", { class: "coins", title: "score if the game ended now", "data-testid": `score-now-${seat}` }, points(score)),
      ),
      h(
        "div",
        { class: "player-body" },
        tag ? h("span", { class: `turn-tag ${acted ? "done" : ""}`, "data-testid": `tag-${seat}` }, tag) : null,
        deadline !== undefined ? countdown(deadline, Number(info?.reserveMs ?? 0), { title: "time left to act" }) : null,
        h("span", { class: "small" }, `${player.stalls.length} stalls · ${sets} set${sets === 1 ? "" : "s"}`),
        player.fees ? h("span", { class: "small" }, `fees ${player.fees}`) : null,
      ),
      stallArea(player, sets),
      h(
        "div",
        { class: "small played", "data-testid": `played-${seat}`, "data-cards": player.played.map((p) => `${p.card}:${p.round}:${ROLE_IDS[p.role]}`).join(",") },
        h("span", { class: "muted" }, "played "),
        player.played.length
          ? player.played.map((p) => h("span", { class: `played-card ${p.void ? "void" : ""}`, title: `${ROLE_NOTES[p.role] || "main"}, round ${p.round}${p.void ? ", void (tie)" : ""}` }, String(p.card)))
          : h("span", { class: "muted" }, "nothing yet"),
      ),
      h("div", { class: "small muted", "data-testid": `hand-of-${seat}`, "data-cards": player.hand.join(",") }, `hand: ${player.hand.join(" ") || "empty"}`),
    );
  });
  return h("section", { class: "card" }, h("h2", {}, "Players"), h("ul", { class: "players" }, rows));
}

/** What an extra bid costs at the end (docs/leilao.md). */
const EXTRA_FEE = 5;

function scoringCard(view: LeilaoView): HTMLElement {
  const options = view.options;
  return h(
    "section",
    { class: "card rules" },
    h("h2", {}, "Scoring"),
    h(
      "ul",
      {},
      h("li", {}, "+ the numbers of your stalls"),
      h("li", {}, options?.setBonusRule === LeilaoSetBonus.ONCE ? "+ 10 once for a stall of every colour" : "+ 10 for each set: one stall of each colour"),
      h("li", {}, options?.cardPenaltyRule === LeilaoCardPenalty.ONE ? "− 1 for each card you played" : "− the numbers of the cards you played, tied ones too"),
      h("li", {}, `− ${EXTRA_FEE} for each extra bid`),
      h("li", {}, options?.leftoverStallsRule === LeilaoLeftoverStalls.DISCARD ? "Each bid picks once; leftover stalls leave the game." : "Bids pick in turn, best first, until the display is empty."),
    ),
  );
}
