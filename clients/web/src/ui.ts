// What every screen of the page shares: the client, navigation, the header, a confirmation
// dialog, names of seats and players, clocks and what an action pays.

import { ConnectError } from "@connectrpc/connect";
import { createGrpcWebTransport } from "@connectrpc/connect-web";
import {
  botLevelName,
  Game,
  type GameName,
  gameName,
  Good,
  type MatchSummary,
  MercadoClient,
  type MercadoPreview,
  OreganoShop,
  seatLabel,
} from "@mercado/client";
import { h, icon, s, type Child } from "./dom.js";
import { goodIcon } from "./labels.js";
import { shopTile } from "./oregano-art.js";

export const client = new MercadoClient(createGrpcWebTransport({ baseUrl: window.location.origin }));
export const app = document.getElementById("app") as HTMLElement;

// ---------------------------------------------------------------------------------------------
// Screens and navigation

let leaveScreen: (() => void) | undefined;
let homeGuard: (() => Promise<boolean>) | undefined;

/**
 * A new screen takes over: the one before stops its streams and timers. `guard` is asked before
 * this screen is left for the start page (none: it is left at once).
 */
export function enterScreen(leave: () => void = () => undefined, guard?: () => Promise<boolean>): void {
  const previous = leaveScreen;
  leaveScreen = leave;
  homeGuard = guard;
  previous?.();
}

let router: () => void = () => undefined;

export function setRouter(route: () => void): void {
  router = route;
  window.addEventListener("popstate", () => router());
}

/** Go to a page address ("/", "/?match=ID", "/?join=ID", "/?replay=ID"), as a new history entry unless `replace`. */
export function navigate(address: string, replace = false): void {
  if (replace) history.replaceState(null, "", address);
  else history.pushState(null, "", address);
  router();
}

// ---------------------------------------------------------------------------------------------
// Failures

/**
 * The reason of a failure to show: for a ConnectError, the server's one-line reason (also for a
 * fair-use refusal, which the client repeats after its retry-after until that would take too long).
 */
export function message(failure: unknown): string {
  if (failure instanceof ConnectError) return failure.rawMessage;
  if (failure instanceof Error) return failure.message;
  return String(failure);
}

// ---------------------------------------------------------------------------------------------
// The games' names

/** How the page names each game: its title, a word, and what it is about. */
export const GAMES: Readonly<Record<GameName, { title: string; word: string; pitch: string }>> = {
  mercado: { title: "Mercado de Lisboa", word: "Mercado", pitch: "the market board" },
  oregano: { title: "Oregano", word: "Oregano", pitch: "build a market street" },
  leilao: { title: "Leilão das Bancas", word: "Leilão", pitch: "sealed bids for stalls" },
};

/** The game of a match (Mercado de Lisboa when unset) as the page names it. */
export const gameOf = (game: Game | undefined): GameName => (game ? gameName(game) : "mercado");
export const gameTitle = (game: Game | undefined): string => GAMES[gameOf(game)].title;

/** The name of the whole site: the start page's and the pages that are of no one game. */
export const SITE = "mercado";

/** A game's emblem for the header: Mercado's fish and grapes, an Oregano café, a Leilão stall. */
function emblem(game: GameName | undefined): SVGElement {
  switch (game) {
    case "oregano":
      return icon(30, shopTile(OreganoShop.CAFE, 1, undefined, -14, -14, 28));
    case "leilao":
      return icon(
        30,
        s("rect", { x: -10, y: -13, width: 15, height: 21, rx: 3, fill: "#2e6fbf", stroke: "#fff", "stroke-width": 1.2, transform: "rotate(-12)" }),
        s("rect", { x: -5, y: -11, width: 15, height: 21, rx: 3, fill: "#c0392b", stroke: "#fff", "stroke-width": 1.2, transform: "rotate(8)" }),
        s("text", { x: 3, y: 4, "text-anchor": "middle", "font-size": 10, "font-weight": 700, fill: "#fff", transform: "rotate(8)" }, "17"),
      );
    default:
      return icon(30, goodIcon(Good.FISH, -6, -4, 16), goodIcon(Good.GRAPES, 6, 5, 14));
  }
}

// ---------------------------------------------------------------------------------------------
// The header

/** The page's header: the game's emblem and title (none: the site's), the status line and the buttons. */
export function header(game: GameName | undefined, status?: HTMLElement | null, ...buttons: Child[]): HTMLElement {
  return h(
    "header",
    { class: "top" },
    h(
      "a",
      {
        class: "brand",
        href: "/",
        title: "The start page",
        onclick: (event: Event) => {
          event.preventDefault();
          void goHome();
        },
      },
      emblem(game),
      h("h1", { "data-testid": "title" }, game ? GAMES[game].title : SITE),
    ),
    h("div", { class: "header-buttons" }, ...buttons),
    status ?? null,
  );
}

/** To the start page, after the current screen's guard agreed. */
export async function goHome(): Promise<void> {
  if (homeGuard && !(await homeGuard())) return;
  navigate("/");
}

/** The header's way to the start page. */
export function newMatchButton(): HTMLElement {
  return h("button", { class: "ghost", "data-testid": "new-match", onclick: () => void goHome() }, "New match");
}

// ---------------------------------------------------------------------------------------------
// A confirmation dialog

/** Ask a yes/no question in a modal dialog; resolves true for `yes`. */
export function confirmDialog(question: string, detail: string, yes: string, no = "Cancel"): Promise<boolean> {
  return new Promise((resolve) => {
    const dialog = h("dialog", { class: "confirm card", "data-testid": "confirm" });
    const close = (answer: boolean): void => {
      dialog.close();
      dialog.remove();
      resolve(answer);
    };
    dialog.append(
      h("h2", {}, question),
      h("p", {}, detail),
      h(
        "div",
        { class: "confirm-buttons" },
        h("button", { type: "button", class: "secondary", "data-testid": "confirm-no", onclick: () => close(false) }, no),
        h("button", { type: "button", class: "primary", "data-testid": "confirm-yes", onclick: () => close(true) }, yes),
      ),
    );
    dialog.addEventListener("cancel", (event) => {
      event.preventDefault();
      close(false);
    });
    document.body.append(dialog);
    dialog.showModal();
  });
}

// ---------------------------------------------------------------------------------------------
// Seats and players: people count seats from 1 ("Seat 1" is the API's seat 0)

/** How a seat's player is named: "You", their display name, or "Seat N"; "(Seat N)" is added when names repeat. */
export function playerName(match: MatchSummary | undefined, seat: number, you?: number): string {
  if (seat === you) return "You";
  const seats = match?.seats ?? [];
  const name = seats[seat]?.displayName;
  if (!name) return seatLabel(seat);
  // Several seats of one AI agent share its name: tell them apart by seat.
  const shared = seats.some((other) => other.seat !== seat && other.displayName === name);
  return shared ? `${name} (${seatLabel(seat)})` : name;
}

/** 1st, 2nd, 3rd, 4th. */
export function ordinal(rank: number): string {
  return rank === 1 ? "1st" : rank === 2 ? "2nd" : rank === 3 ? "3rd" : `${rank}th`;
}

/**
 * What plays a seat, in a few words: "time ran out · AI plays", "left · AI plays", "forfeited · AI
 * plays", "easy AI" for a bot seat its AI has not taken yet, or "". A bot seat once taken needs
 * none: its name says it ("Easy AI", as on the leaderboard).
 */
export function seatRole(match: MatchSummary | undefined, seat: number): string {
  const info = match?.seats[seat];
  if (!info) return "";
  if (info.forfeited) return "forfeited · AI plays";
  if (info.left) return "left · AI plays";
  if (info.playedByAi) return "time ran out · AI plays";
  if (info.bot && !info.taken) return `${botLevelName(info.botLevel) ?? ""} AI`.trim();
  return "";
}

// ---------------------------------------------------------------------------------------------
// Clocks

/** m:ss (or h:mm:ss), rounding up: "0:01" until the time is out. */
export function formatClock(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = String(total % 60).padStart(2, "0");
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, "0")}:${seconds}` : `${minutes}:${seconds}`;
}

/**
 * A clock that counts down to a deadline: the turn's own time first, then the mover's reserve
 * ("reserve 2:59"). The page's ticker updates it every quarter second (see tickClocks).
 */
export function countdown(deadline: number, reserveMs: number, attrs: Record<string, string> = {}): HTMLElement {
  const element = h("span", {
    class: "clock",
    "data-deadline": deadline,
    "data-reserve": reserveMs,
    ...attrs,
  });
  updateCountdown(element, Date.now());
  return element;
}

function updateCountdown(element: HTMLElement, now: number): void {
  const deadline = Number(element.dataset.deadline);
  const reserve = Number(element.dataset.reserve ?? 0);
  const left = Math.max(0, deadline - now);
  const turn = left - reserve;
  const text = turn > 0 || reserve <= 0 ? formatClock(Math.max(0, turn)) : `reserve ${formatClock(left)}`;
  if (element.textContent !== text) element.textContent = text;
  element.classList.toggle("in-reserve", turn <= 0 && reserve > 0);
  element.classList.toggle("low", left < 10_000);
}

let ticker: ReturnType<typeof setInterval> | undefined;

/** Keep every countdown on the page current (started once). */
export function tickClocks(): void {
  ticker ??= setInterval(() => {
    const now = Date.now();
    for (const element of document.querySelectorAll<HTMLElement>("[data-deadline]")) updateCountdown(element, now);
  }, 250);
}

// ---------------------------------------------------------------------------------------------
// What an action pays, from the server's preview

/** "+3 you, +2 Seat 2" (an amount the viewer may not see is "+?"); "" when it pays nobody. */
function earningsText(preview: MercadoPreview | undefined, you: number | undefined): string {
  return (preview?.earnings ?? [])
    .map((earning) => {
      const amount = earning.amount === undefined ? "?" : String(earning.amount);
      return `+${amount} ${earning.seat === you ? "you" : seatLabel(earning.seat)}`;
    })
    .join(", ");
}

/** The whole preview in words: "costs 2 · +3 you, +2 Seat 2", "costs 1", "+1 you" or "pays nothing". */
export function paymentText(preview: MercadoPreview | undefined, you: number | undefined): string {
  const parts = [preview?.cost ? `costs ${preview.cost}` : "", earningsText(preview, you)].filter(Boolean);
  return parts.length ? parts.join(" · ") : "pays nothing";
}
