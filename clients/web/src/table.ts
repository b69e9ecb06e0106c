// What the screens of Oregano and Leilão get from the game screen (play.ts) and the replay, and
// what they give back; and the parts they share. Both draw the game's typed view
// (`OreganoView`, `LeilaoView`) and show each legal action with its preview from the server.

import type { Action, ActionPreview, LeilaoView, MatchState, OreganoView } from "@mercado/client";
import { type Child, h } from "./dom.js";

/** A game drawn by a screen of its own: every game but Mercado, whose board is play.ts's. */
export type TableGame = "oregano" | "leilao";

export type TableView = { game: "oregano"; view: OreganoView } | { game: "leilao"; view: LeilaoView };

/** The state's Oregano or Leilão view; undefined for Mercado. */
export function tableView(state: MatchState | undefined): TableView | undefined {
  const game = state?.view?.game;
  if (game?.case === "oregano") return { game: "oregano", view: game.value };
  if (game?.case === "leilao") return { game: "leilao", view: game.value };
  return undefined;
}

/** A legal action with the server's preview of it. */
export interface TableMove {
  action: Action;
  preview: ActionPreview["game"];
}

/** The state's legal actions, each with its preview (`previews[i]` belongs to `legal_actions[i]`). */
export const tableMoves = (state: MatchState): TableMove[] =>
  state.legalActions.map((action, i) => ({ action, preview: state.previews[i]?.game ?? { case: undefined } }));

/** A match on screen as such a game's screen sees it. */
export interface Table {
  state: MatchState;
  /** The seat this page plays; undefined while watching or replaying. */
  you: number | undefined;
  /** The legal actions the page may send now: empty while it may not act (not its turn, sending). */
  moves: readonly TableMove[];
  /** What the player picked so far towards one action (a bid's main card, a shop to build); cleared when the legal actions change. */
  draft: readonly string[];
  setDraft(draft: string[]): void;
  submit(action: Action): void;
  /** "You", a player's name, or "Seat N". */
  name(seat: number): string;
  /** The last action on screen and its seat (undefined: sealed, or none), to mark where it went. */
  last: { seat: number; action: Action | undefined } | undefined;
}

/** What a game's screen draws: the status line's text, the main column and the side column. */
export interface Screen {
  status: string;
  main: Child[];
  side: Child[];
}

/** The names of seats, "You, Ana and Bea". */
export function names(table: Table, seats: readonly number[]): string {
  const all = seats.map((seat) => table.name(seat));
  return all.length > 1 ? `${all.slice(0, -1).join(", ")} and ${all.at(-1)}` : (all[0] ?? "nobody");
}

/** A seat's current score, from the server's score parts; undefined when it is not known. */
export const scoreNow = (state: MatchState, seat: number): number | undefined => {
  const parts = state.scoreParts.find((score) => score.seat === seat);
  return parts === undefined ? undefined : Number(parts.total);
};

/** "1 point", "12 points". */
export const points = (count: number | bigint): string => `${count} point${Math.abs(Number(count)) === 1 ? "" : "s"}`;

/** A row of buttons for legal moves under a label ("Build a Café on" 1b 1c): Mercado's choices list. */
export function optionGroup(label: Child, buttons: readonly HTMLElement[], pays = ""): HTMLElement {
  return h(
    "div",
    { class: "option-group" },
    h("span", { class: "pays" }, label, pays ? h("span", { class: "muted", "data-testid": "pays" }, ` · ${pays}`) : null),
    h("span", { class: "options" }, buttons),
  );
}

/** A button that sends a legal action. */
export function moveButton(table: Table, action: Action, label: Child, attrs: Record<string, string> = {}): HTMLElement {
  return h("button", { type: "button", class: "option choice", onclick: () => table.submit(action), ...attrs }, label);
}

/** The rules' name of an enum value: OreganoActionKind.ATTRACT is "attract", LeilaoPhase.TIEBREAK "tiebreak". */
export const ruleName = (values: Record<number, string>, value: number): string => values[value]?.toLowerCase() ?? "";
