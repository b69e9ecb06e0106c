// What the screens of the games whose view is their rules' JSON (Oregano, Leilão) get from the
// game screen (play.ts), and what they give back; and the parts they share.

import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import type { Action, GameName, MatchState, MatchUpdate } from "@mercado/client";
import { type Child, h } from "./dom.js";
import { seatColour } from "./labels.js";
import { ordinal } from "./ui.js";

/** A game drawn from its rules' JSON view: every game but Mercado, whose messages are its own. */
export type JsonGame = Exclude<GameName, "mercado">;

/** The state's JSON view and its game, for Oregano and Leilão; undefined for Mercado. */
export function jsonView(state: MatchState | undefined): { game: JsonGame; view: JsonObject } | undefined {
  const game = state?.view?.game;
  if (game?.case !== undefined && game.case !== "mercado" && game.value.view) {
    return { game: game.case, view: game.value.view };
  }
  return undefined;
}

/** The JSON of each Oregano or Leilão event of an update (a Mercado event has none). */
export function eventsJson(events: MatchUpdate["events"]): JsonObject[] {
  return events.flatMap((event) =>
    event.game.case !== undefined && event.game.case !== "mercado" && event.game.value.event ? [event.game.value.event] : [],
  );
}

/** A match on screen as such a game's screen sees it. */
export interface Table {
  state: MatchState;
  /** The seat this page plays; undefined while watching. */
  you: number | undefined;
  /** The legal actions the page may send now: empty while it may not act (not its turn, sending). */
  legal: readonly Action[];
  /** What the player picked so far towards one action (e.g. a bid's main card); cleared when the legal actions change. */
  draft: readonly string[];
  setDraft(draft: string[]): void;
  submit(action: Action): void;
  /** "You", a player's name, or "Seat N". */
  name(seat: number): string;
}

/** What a game's screen draws: the status line's text, the main column and the side column. */
export interface Screen {
  status: string;
  main: Child[];
  side: Child[];
}

/** The final result both games give: scores and shared ranks by seat. */
export interface Result {
  scores: number[];
  ranks: number[];
}

/** A number of a JSON value (0 when it is none). */
export const num = (value: JsonValue | undefined): number => (typeof value === "number" ? value : 0);

/** The names of seats, "You, Seat 2 and Seat 3". */
export function names(table: Table, seats: readonly number[]): string {
  const all = seats.map((seat) => table.name(seat));
  return all.length > 1 ? `${all.slice(0, -1).join(", ")} and ${all.at(-1)}` : (all[0] ?? "nobody");
}

/** The ranks to show: the match's (forfeited seats last) when it has them, else the game's own. */
export function finalRanks(table: Table, result: Result): readonly number[] {
  const ranks = table.state.match?.ranks ?? [];
  return ranks.length ? ranks : result.ranks;
}

/** The status line of a finished match. */
export function overText(table: Table, result: Result | null | undefined): string {
  if (!result || table.you === undefined) return "The match is over.";
  const rank = finalRanks(table, result)[table.you];
  const score = result.scores[table.you];
  return `The match is over: you finished ${ordinal(rank ?? 0)}${score === undefined ? "" : ` with ${score} point${Math.abs(Number(score)) === 1 ? "" : "s"}`}.`;
}

/** The final ranks and scores, best first; `columns` adds a column per game-specific figure. */
export function resultCard(table: Table, result: Result, columns: Record<string, (seat: number) => string> = {}): HTMLElement {
  const ranks = finalRanks(table, result);
  const order = result.scores.map((_, seat) => seat).sort((a, b) => (ranks[a] ?? 9) - (ranks[b] ?? 9));
  const winner = order[0] ?? 0;
  const title = winner === table.you && ranks[winner] === 1 ? "You win!" : `${table.name(winner)} ${winner === table.you ? "win" : "wins"}`;
  return h(
    "section",
    { class: "result card table-result", "data-testid": "result" },
    h("h2", {}, title),
    h(
      "table",
      {},
      h("thead", {}, h("tr", {}, h("th", {}, "Rank"), h("th", {}, "Player"), h("th", {}, "Score"), Object.keys(columns).map((name) => h("th", {}, name)))),
      h(
        "tbody",
        {},
        order.map((seat) =>
          h(
            "tr",
            { style: `--seat:${seatColour(seat)}` },
            h("td", {}, String(ranks[seat] ?? "")),
            h("td", {}, h("span", { class: "chip" }), table.name(seat)),
            h("td", { "data-testid": `score-${seat}` }, String(result.scores[seat] ?? "")),
            Object.values(columns).map((column) => h("td", {}, column(seat))),
          ),
        ),
      ),
    ),
  );
}

/** A group of buttons for legal actions under a label ("Café · 1 wood: 1a 1c"). */
export function actionGroup(label: Child, buttons: readonly HTMLElement[], testId?: string): HTMLElement {
  return h(
    "div",
    { class: "option-group", ...(testId ? { "data-testid": testId } : {}) },
    h("span", { class: "pays" }, label),
    h("span", { class: "options" }, buttons),
  );
}

/** A button that sends a legal action. */
export function actionButton(table: Table, action: Action, label: Child, attrs: Record<string, string> = {}): HTMLElement {
  return h("button", { type: "button", class: "option choice", onclick: () => table.submit(action), ...attrs }, label);
}
