// The game screen: a match as one seat sees it (or a spectator), played by clicking.
//
// Seat.watch gives the current view, then every change: actions (with their events, for the
// log) and changes of seats, clocks or status. Each move is sent with the version on screen as
// `expected_version` and a fresh request id; a refusal is shown with the server's reason. What a
// move costs and pays comes from the server's previews: the page has no rules code. Oregano and
// Leilão are drawn by their own screens (games.ts) from their typed views, in this frame. A
// finished match's result explains every seat's score from the server's score parts (score.ts).

import { equals } from "@bufbuild/protobuf";
import { Code } from "@connectrpc/connect";
import {
  type Action,
  ActionSchema,
  clockOf,
  codeOf,
  type CustomerTile,
  deadlineMs,
  type Good,
  isMyTurn,
  isOver,
  LeilaoPhase,
  type LegalMove,
  legalMoves,
  type MatchState,
  MatchStatus,
  type MatchSummary,
  type MatchUpdate,
  type MercadoAction,
  type MercadoPreview,
  type MercadoView,
  mercadoView,
  Money,
  newRequestId,
  openSeats,
  OreganoPhase,
  Phase,
  type Restaurant,
  type Seat,
  seatLabel,
} from "@mercado/client";
import { BOARD_SIZE, type BadgePart, customerTile, type Place, type Recent, renderBoard, type Target } from "./board.js";
import { type Child, h, icon, s } from "./dom.js";
import {
  entranceName,
  goodIcon,
  goodName,
  restaurantIcon,
  restaurantName,
  seatColour,
  squareName,
  tileName,
} from "./labels.js";
import { tableScreen } from "./games.js";
import { type LogLine, moveLines } from "./log.js";
import { overText, resultCard } from "./score.js";
import { forgetSeat, markOver } from "./storage.js";
import { ruleName, type Table, type TableView, tableMoves, tableView } from "./table.js";
import {
  app,
  client,
  confirmDialog,
  countdown,
  enterScreen,
  formatClock,
  gameOf,
  gameTitle,
  goHome,
  header,
  message,
  navigate,
  newMatchButton,
  paymentText,
  playerName,
  seatRole,
  SITE,
  tickClocks,
} from "./ui.js";

const LOG_LENGTH = 15;

type Selection =
  | { kind: "good"; good: Good }
  | { kind: "customer"; tile: CustomerTile }
  | { kind: "restaurant"; restaurant: Restaurant };

/** One move in the log: its version, its seat, and a line for each of its events. */
interface LogEntry {
  version: bigint;
  seat: number;
  lines: LogLine[];
}

/** A match on screen. */
interface Game {
  matchId: string;
  /** The seat this page plays; undefined while watching as a spectator. */
  seat: Seat | undefined;
  /** The state on screen; changed only by setState, which keeps `legal` with it. */
  state: MatchState;
  /** What the state's legal actions allow. */
  legal: Options;
  log: LogEntry[];
  selection: Selection | null;
  busy: boolean;
  refusal: string;
  /** A short note that is no failure ("Link copied"). */
  note: string;
  /** The square or entrance of the last move, and who made it. */
  recent: Recent[];
  /** The last action and its seat (Oregano and Leilão mark where it went). */
  last: Table["last"];
  stop: AbortController;
  streamError: string;
  /** Bring the board into view after the next drawing (a piece was picked below it). */
  showBoard: boolean;
  /** Oregano and Leilão: what the player picked so far towards one action (see Table.draft). */
  draft: string[];
}

let game: Game | null = null;

/**
 * Show a match: played with `seat`, or watched as a spectator without one. The current view
 * first, then every update of Seat.watch. Throws (before anything is drawn) when the view fails.
 */
export async function openGame(matchId: string, seat: Seat | undefined): Promise<void> {
  const stop = new AbortController();
  const updates = seat ? seat.watch({ signal: stop.signal }) : client.watch(matchId, undefined, { signal: stop.signal });
  let first: IteratorResult<MatchUpdate, void>;
  try {
    first = await updates.next(); // the current view
  } catch (failure) {
    stop.abort();
    throw failure;
  }
  const state = first.done ? undefined : first.value.state;
  if (!state) throw new Error("the server sent no view of the match");
  const current: Game = {
    matchId,
    seat,
    state,
    legal: options(state),
    log: [],
    selection: null,
    busy: false,
    refusal: "",
    note: "",
    recent: [],
    last: undefined,
    stop,
    streamError: "",
    showBoard: false,
    draft: [],
  };
  enterScreen(
    () => {
      stop.abort();
      if (game === current) game = null;
    },
    () => confirmLeaving(current),
  );
  game = current;
  tickClocks();
  if (isOver(state) && seat) markOver(matchId);
  render();
  void follow(current, updates);
}

/** Before leaving a match in play for the start page: it goes on without us, so ask. */
async function confirmLeaving(current: Game): Promise<boolean> {
  const mine = current.seat && current.state.match?.seats[current.seat.seat];
  if (current.state.match?.status !== MatchStatus.PLAYING || !mine || mine.left || mine.forfeited) return true;
  const clock = clockOf(current.state.match);
  return confirmDialog(
    "Start a new match?",
    clock
      ? "This match goes on without you: your clock keeps running, and when it runs out the AI plays your turns. It stays in Your games, so you can come back to it."
      : "This match waits for you: it stays in Your games, so you can come back to it.",
    "New match",
    "Stay",
  );
}

/** Every update after the first view redraws; the log keeps the last moves. */
async function follow(current: Game, updates: AsyncIterable<MatchUpdate>): Promise<void> {
  try {
    for await (const update of updates) {
      if (game !== current) return;
      current.streamError = "";
      accept(current, update);
    }
  } catch (failure) {
    if (current.stop.signal.aborted || game !== current) return;
    // A fair-use refusal the client could not wait out (see retryAfterMs) says why in one line.
    current.streamError =
      codeOf(failure) === Code.ResourceExhausted
        ? `The server refused to send updates: ${message(failure)}. Reload the page to try again.`
        : `Lost the connection to the server: ${message(failure)}. Reload the page to reconnect.`;
    render();
  }
}

function accept(current: Game, update: MatchUpdate): void {
  const seat = update.seat;
  // Another seat's sealed bid comes without its action: its events say that it has bid.
  if (seat !== undefined && (update.action || update.events.length)) {
    const { match, yourSeat } = current.state;
    const name = (other: number): string => playerName(match, other, yourSeat);
    current.log.push({ version: update.version, seat, lines: moveLines(update, name) });
    current.log.splice(0, Math.max(0, current.log.length - LOG_LENGTH));
    current.recent = recentPlaces(update.action, seat);
    current.last = { seat, action: update.action };
  }
  // Not back to an older state: our own move's state may be on screen already (from submit).
  if (update.state && update.version >= current.state.version) setState(current, update.state);
}

function setState(current: Game, state: MatchState): void {
  // A draft stays while the same actions are legal: another seat's sealed bid does not clear yours.
  if (!sameActions(state.legalActions, current.state.legalActions)) current.draft = [];
  current.state = state;
  current.legal = options(state);
  if (current.selection && !selectionStillLegal(current.selection, current.legal)) current.selection = null;
  if (isOver(state) && current.seat) markOver(current.matchId);
  render();
}

const sameActions = (a: readonly Action[], b: readonly Action[]): boolean =>
  a.length === b.length && a.every((action, i) => equals(ActionSchema, action, b[i]!));

export function recentPlaces(action: Action | undefined, seat: number): Recent[] {
  const move = action?.game.case === "mercado" ? action.game.value.action : undefined;
  if (move?.case === "openStand" || move?.case === "openRestaurant") {
    const square = move.value.square;
    if (square) return [{ place: { square }, seat }];
  } else if (move?.case === "bringCustomer") {
    const entrance = move.value.entrance;
    if (entrance) return [{ place: { entrance }, seat }];
  }
  return [];
}

/** Submit one legal action at the version on screen, with a fresh request id; a refusal shows in a line. */
async function submit(action: Action): Promise<void> {
  const current = game;
  if (!current?.seat || current.busy) return;
  current.busy = true;
  current.refusal = "";
  current.selection = null;
  render();
  try {
    const response = await current.seat.submit(action, current.state.version, newRequestId());
    // Show the outcome at once; the update of the move (with its log line) follows on the stream.
    if (response.state && response.version > current.state.version) setState(current, response.state);
  } catch (failure) {
    current.refusal =
      codeOf(failure) === Code.Aborted
        ? "The match moved on before your action arrived: look again and retry."
        : `Refused: ${message(failure)}`;
  } finally {
    current.busy = false;
    if (game === current) render();
  }
}

/** Take the seat back from the AI that plays it since its time ran out. */
async function reclaim(current: Game): Promise<void> {
  if (!current.seat || current.busy) return;
  current.busy = true;
  current.refusal = "";
  render();
  try {
    const state = await current.seat.reclaim();
    if (state.version >= current.state.version) setState(current, state);
  } catch (failure) {
    current.refusal = `Could not take your seat back: ${message(failure)}`;
  } finally {
    current.busy = false;
    if (game === current) render();
  }
}

/** Leave a waiting match (the seat opens again) or resign one in play (the AI plays on, or it forfeits). */
async function leave(current: Game): Promise<void> {
  const seat = current.seat;
  const match = current.state.match;
  if (!seat || current.busy || !match) return;
  const waiting = match.status === MatchStatus.WAITING;
  const forfeits = clockOf(match)?.onTimeout === "forfeit";
  const sure = await confirmDialog(
    waiting ? "Leave this match?" : "Resign this match?",
    waiting
      ? "Your seat opens again for someone else, and this match leaves Your games."
      : forfeits
        ? "You forfeit: you are ranked last, whatever your score. The AI plays your remaining turns, and you cannot come back."
        : "The AI plays your seat to the end, and you cannot take it back.",
    waiting ? "Leave" : "Resign",
    waiting ? "Stay" : "Play on",
  );
  if (!sure || game !== current) return;
  current.busy = true;
  current.refusal = "";
  render();
  try {
    await seat.leave();
    if (waiting) {
      forgetSeat(current.matchId);
      navigate("/");
      return;
    }
    current.note = forfeits ? "You resigned: you forfeit the match." : "You resigned: the AI plays your seat now.";
  } catch (failure) {
    current.refusal = `Could not leave: ${message(failure)}`;
  } finally {
    current.busy = false;
    if (game === current) render();
  }
}

// ---------------------------------------------------------------------------------------------
// What the player may do now

type Move = MercadoAction["action"];

/** A legal move (its action is submitted as the server listed it) and its move of case K. */
interface Legal<K extends Move["case"]> extends LegalMove<"mercado"> {
  move: Extract<Move, { case: K }>;
}

interface Options {
  stands: Legal<"openStand">[];
  customers: Legal<"bringCustomer">[];
  restaurants: Legal<"openRestaurant">[];
  offers: Legal<"takeOffer">[];
  coin: Legal<"takeCoin"> | undefined;
  redraw: Action | undefined;
  refresh: Action | undefined;
}

function options(state: MatchState): Options {
  const result: Options = {
    stands: [],
    customers: [],
    restaurants: [],
    offers: [],
    coin: undefined,
    redraw: undefined,
    refresh: undefined,
  };
  for (const { action, gameAction, preview } of legalMoves(state, "mercado")) {
    const move = gameAction.action;
    switch (move.case) {
      case "openStand":
        result.stands.push({ action, gameAction, move, preview });
        break;
      case "bringCustomer":
        result.customers.push({ action, gameAction, move, preview });
        break;
      case "openRestaurant":
        result.restaurants.push({ action, gameAction, move, preview });
        break;
      case "takeOffer":
        result.offers.push({ action, gameAction, move, preview });
        break;
      case "takeCoin":
        result.coin = { action, gameAction, move, preview };
        break;
      case "redrawHand":
        result.redraw = action;
        break;
      case "refreshOffer":
        result.refresh = action;
        break;
    }
  }
  return result;
}

const sameTile = (a: CustomerTile | undefined, b: CustomerTile | undefined): boolean =>
  !!a &&
  !!b &&
  a.level === b.level &&
  a.goods.length === b.goods.length &&
  a.goods.every((good, i) => b.goods[i] === good);

/** Whether two selections pick the same piece: one good, one restaurant or one customer tile. */
function sameSelection(a: Selection | null | undefined, b: Selection): boolean {
  switch (a?.kind) {
    case "good":
      return b.kind === "good" && a.good === b.good;
    case "restaurant":
      return b.kind === "restaurant" && a.restaurant === b.restaurant;
    case "customer":
      return b.kind === "customer" && sameTile(a.tile, b.tile);
    default:
      return false;
  }
}

/** The piece a move plays, as the player selects it before choosing where. */
function pieceOf(move: Move): Selection | undefined {
  switch (move.case) {
    case "openStand":
      return { kind: "good", good: move.value.good };
    case "openRestaurant":
      return { kind: "restaurant", restaurant: move.value.restaurant };
    case "bringCustomer":
      return move.value.tile && { kind: "customer", tile: move.value.tile };
    default:
      return undefined;
  }
}

/** Whether a legal action plays the selected piece. */
const fits = (legal: { move: Move }, choice: Selection): boolean => sameSelection(pieceOf(legal.move), choice);

function selectionStillLegal(choice: Selection, legal: Options): boolean {
  return [...legal.stands, ...legal.restaurants, ...legal.customers].some((action) => fits(action, choice));
}

function select(choice: Selection): void {
  if (!game || game.busy) return;
  game.selection = sameSelection(game.selection, choice) ? null : choice;
  game.refusal = "";
  game.showBoard = game.selection !== null;
  render();
}

/** A preview as badge parts: the cost (dark), then each seat's earnings in its colour. */
function badgeOf(preview: MercadoPreview | undefined): BadgePart[] {
  const parts: BadgePart[] = [];
  if (preview?.cost) parts.push({ text: `-${preview.cost}` });
  for (const earning of preview?.earnings ?? []) {
    parts.push({ text: `+${earning.amount ?? "?"}`, colour: seatColour(earning.seat) });
  }
  return parts.length ? parts : [{ text: "0" }];
}

interface Choice extends Target {
  /** The place's name: "c3", "top-a". */
  name: string;
  /** What it costs and pays, in words. */
  pays: string;
}

function targets(current: Game): Choice[] {
  const { selection: choice, legal } = current;
  if (!choice || current.busy) return [];
  const you = current.state.yourSeat;
  const result: Choice[] = [];
  const add = (move: LegalMove<"mercado">, place: Place, name: string, doing: string): void => {
    const pays = paymentText(move.preview, you);
    result.push({
      place,
      name,
      pays,
      badge: badgeOf(move.preview),
      title: `${doing} ${name}: ${pays}`,
      onClick: () => void submit(move.action),
    });
  };
  if (choice.kind === "customer") {
    const doing = `Bring the ${tileName(choice.tile)} to`;
    for (const customer of legal.customers) {
      const entrance = customer.move.value.entrance;
      if (entrance && fits(customer, choice)) add(customer, { entrance }, entranceName(entrance), doing);
    }
  } else {
    // Stands and restaurants both go on a square; only those of the picked piece fit.
    const doing =
      choice.kind === "good"
        ? `Open a ${goodName(choice.good)} stand on`
        : `Open the ${restaurantName(choice.restaurant)} on`;
    for (const opening of [...legal.stands, ...legal.restaurants]) {
      const square = opening.move.value.square;
      if (square && fits(opening, choice)) add(opening, { square }, squareName(square), doing);
    }
  }
  return result;
}

// ---------------------------------------------------------------------------------------------
// Drawing

function render(): void {
  const current = game;
  if (!current) return;
  const { state } = current;
  const match = state.match;
  const view = mercadoView(state);
  const over = isOver(state);
  const yourTurn = isMyTurn(state) && !!current.seat;
  document.body.dataset.turn =
    match?.status === MatchStatus.FINISHED
      ? "over"
      : match?.status === MatchStatus.CANCELLED
        ? "cancelled"
        : match?.status === MatchStatus.WAITING
          ? "waiting"
          : yourTurn
            ? "you"
            : "other";
  document.body.dataset.version = String(state.version);
  document.body.dataset.busy = String(current.busy);
  document.body.dataset.match = current.matchId;
  document.title = `${yourTurn ? "Your turn · " : ""}${gameTitle(match?.game)} · ${SITE}`;
  const table = tableView(state);
  if (table) {
    renderTable(current, table, yourTurn);
    return;
  }
  delete document.body.dataset.phase;

  const deadline = deadlineMs(match);
  const mover = state.toMove === undefined ? undefined : match?.seats[state.toMove];
  const statusLine = h(
    "div",
    { class: `status ${yourTurn ? "your-turn" : ""}`, "data-testid": "status", role: "status" },
    deadline !== undefined && mover
      ? countdown(deadline, Number(mover.reserveMs), { "data-testid": "clock", title: "time left for this turn" })
      : null,
    h("span", { class: "status-text" }, statusText(current, view, yourTurn)),
  );
  const top = header(gameOf(match?.game), statusLine, newMatchButton());

  if (!view) {
    app.replaceChildren(top, h("main", { class: "game" }, h("p", { class: "card" }, "Loading the market…")));
    return;
  }

  const choices = yourTurn ? targets(current) : [];
  const board = renderBoard({
    view,
    targets: choices,
    recent: current.recent,
    name: (seat) => playerName(match, seat, state.yourSeat),
  });
  board.setAttribute("width", String(BOARD_SIZE));

  const boardArea = h(
    "section",
    { class: "board-area" },
    notices(current),
    finalResult(current),
    h("div", { class: "board-frame" }, board),
    choices.length ? choicesCard(current, choices) : null,
    current.seat && !over ? yourHand(current, view) : null,
    current.refusal ? h("p", { class: "refusal", role: "alert", "data-testid": "refusal" }, current.refusal) : null,
    current.streamError ? h("p", { class: "refusal", role: "alert" }, current.streamError) : null,
    current.note ? h("p", { class: "note", role: "status", "data-testid": "note" }, current.note) : null,
    matchButtons(current),
  );

  const side = h(
    "aside",
    { class: "side" },
    playersCard(state, view),
    offerCard(current, view),
    customersCard(current, view),
    logCard(current),
  );
  app.replaceChildren(top, h("main", { class: "game" }, boardArea, side));
  if (current.showBoard) {
    current.showBoard = false;
    bringIntoView(board);
  }
}

/** Oregano or Leilão: the game's screen draws the match from its typed view. */
function renderTable(current: Game, shown: TableView, yourTurn: boolean): void {
  const { state } = current;
  const match = state.match;
  const you = state.yourSeat;
  const table: Table = {
    state,
    you,
    moves: yourTurn && !current.busy ? tableMoves(state) : [],
    draft: current.draft,
    setDraft: (draft) => {
      current.draft = draft;
      current.refusal = "";
      render();
    },
    submit: (action) => void submit(action),
    name: (seat) => playerName(match, seat, you),
    last: current.last,
  };
  const screen = tableScreen(table, shown);
  document.body.dataset.phase = phaseName(shown);
  // In a simultaneous step each seat has its own deadline: yours while you are to act.
  const mine = you === undefined ? undefined : match?.seats[you];
  const deadline = yourTurn && mine?.deadlineUnixMs !== undefined ? Number(mine.deadlineUnixMs) : deadlineMs(match);
  const mover = yourTurn ? mine : state.toMove === undefined ? undefined : match?.seats[state.toMove];
  const statusLine = h(
    "div",
    { class: `status ${yourTurn ? "your-turn" : ""}`, "data-testid": "status", role: "status" },
    deadline !== undefined
      ? countdown(deadline, Number(mover?.reserveMs ?? 0n), { "data-testid": "clock", title: "time left to act" })
      : null,
    h("span", { class: "status-text" }, statusOfTable(current, screen.status)),
  );
  const main = h(
    "section",
    { class: "board-area" },
    notices(current),
    finalResult(current),
    screen.main,
    current.refusal ? h("p", { class: "refusal", role: "alert", "data-testid": "refusal" }, current.refusal) : null,
    current.streamError ? h("p", { class: "refusal", role: "alert" }, current.streamError) : null,
    current.note ? h("p", { class: "note", role: "status", "data-testid": "note" }, current.note) : null,
    matchButtons(current),
  );
  const side = h("aside", { class: "side" }, screen.side, logCard(current));
  app.replaceChildren(header(gameOf(match?.game), statusLine, newMatchButton()), h("main", { class: `game table-game ${shown.game}` }, main, side));
}

/** The status line of an Oregano or Leilão match: waiting for players, sending, over, or the screen's own. */
function statusOfTable(current: Game, status: string): string {
  const { state } = current;
  if (state.match?.status === MatchStatus.FINISHED) return overText(state, state.yourSeat);
  return waitingText(state.match) ?? (current.busy ? "Sending…" : status);
}

/** The view's phase as the rules name it ("declare", "bid"), for the page's data-phase. */
const phaseName = (shown: TableView): string =>
  shown.game === "oregano" ? ruleName(OreganoPhase, shown.view.phase) : ruleName(LeilaoPhase, shown.view.phase);

/** A finished match's result, every seat's score explained, with the way to its replay. */
function finalResult(current: Game): HTMLElement | null {
  const { state } = current;
  if (state.match?.status !== MatchStatus.FINISHED) return null;
  return resultCard(
    state,
    (seat) => playerName(state.match, seat, state.yourSeat),
    state.yourSeat,
    h(
      "div",
      { class: "result-buttons" },
      h("button", { class: "secondary", "data-testid": "replay", onclick: () => navigate(`/?replay=${current.matchId}`) }, "Replay"),
      h("button", { class: "primary", onclick: () => void goHome() }, "Play again"),
    ),
  );
}

/** Scroll so that `element` shows whole, just under the (sticky) header, if it does not already. */
function bringIntoView(element: Element): void {
  const head = document.querySelector("header.top");
  const below = head ? head.getBoundingClientRect().bottom : 0;
  const box = element.getBoundingClientRect();
  if (box.top >= below && box.bottom <= window.innerHeight) return;
  window.scrollTo({ top: Math.max(0, window.scrollY + box.top - below - 6), behavior: "smooth" });
}

/** What the match needs from the player now, above the board: an invite, a seat to take back, a note. */
function notices(current: Game): HTMLElement | null {
  const { state } = current;
  const match = state.match;
  if (!match) return null;
  const you = state.yourSeat;
  const mine = you === undefined ? undefined : match.seats[you];
  if (match.status === MatchStatus.CANCELLED) {
    return h(
      "div",
      { class: "notice card", "data-testid": "cancelled" },
      h("strong", {}, "This match was cancelled"),
      " before it started: ",
      match.seats.some((seat) => seat.bot && !seat.taken)
        ? "no AI agent took its seat in time."
        : "its open seats waited too long for players.",
    );
  }
  if (match.status === MatchStatus.WAITING) {
    const open = openSeats(match);
    if (!open.length || !current.seat) return null;
    const link = `${window.location.origin}/?join=${match.matchId}`;
    const field = h("input", {
      class: "invite-link",
      readonly: true,
      value: link,
      "data-testid": "invite-link",
      "aria-label": "invite link",
      onfocus: (event: Event) => (event.target as HTMLInputElement).select(),
    });
    return h(
      "div",
      { class: "notice invite card", "data-testid": "invite" },
      h("strong", {}, "Invite a friend"),
      h(
        "p",
        {},
        `${open.map(seatLabel).join(", ")} ${open.length === 1 ? "is" : "are"} open. Send this link; the match starts once every seat is taken.`,
      ),
      h(
        "div",
        { class: "invite-row" },
        field,
        h(
          "button",
          {
            type: "button",
            class: "secondary",
            "data-testid": "copy-invite",
            onclick: () => {
              field.select();
              // The clipboard API needs a secure origin (https or localhost); else the old way.
              const copied: Promise<boolean> = navigator.clipboard
                ? navigator.clipboard.writeText(link).then(
                    () => true,
                    () => false,
                  )
                : Promise.resolve(document.execCommand("copy"));
              void copied.then((done) => {
                current.note = done ? "Link copied: paste it to your friend." : "Select the link and copy it.";
                if (game === current) render();
              });
            },
          },
          "Copy",
        ),
      ),
    );
  }
  if (!current.seat) {
    return h("div", { class: "notice card", "data-testid": "watching" }, "You are watching this match.");
  }
  if (mine?.playedByAi && !mine.left && !mine.forfeited && match.status === MatchStatus.PLAYING) {
    return h(
      "div",
      { class: "notice attention card", "data-testid": "ai-plays-you" },
      h("span", {}, h("strong", {}, "Your time ran out: "), "the AI is playing your turns."),
      h(
        "button",
        {
          type: "button",
          class: "primary",
          "data-testid": "reclaim",
          disabled: current.busy,
          onclick: () => void reclaim(current),
        },
        "Take my seat back",
      ),
    );
  }
  if (mine?.left || mine?.forfeited) {
    return h(
      "div",
      { class: "notice card", "data-testid": "you-left" },
      mine.forfeited ? "You forfeited this match: " : "You left this match: ",
      "the AI plays your seat.",
    );
  }
  return null;
}

/** Below the board: leave or resign (a finished match's replay is in its result). */
function matchButtons(current: Game): HTMLElement | null {
  const match = current.state.match;
  const mine = current.seat && match?.seats[current.seat.seat];
  const buttons: Child[] = [];
  if (mine && !mine.left && !mine.forfeited && !isOver(current.state)) {
    const waiting = match?.status === MatchStatus.WAITING;
    buttons.push(
      h(
        "button",
        {
          type: "button",
          class: "secondary danger",
          "data-testid": "leave",
          disabled: current.busy,
          onclick: () => void leave(current),
        },
        waiting ? "Leave this match" : "Leave / resign",
      ),
    );
  }
  return buttons.length ? h("div", { class: "match-buttons" }, buttons) : null;
}

/**
 * The places the picked piece may go, grouped by what they cost and pay: the board's targets as
 * a list ("costs 1: a1 b1 c1", "+3 you, +2 Seat 2: top-a").
 */
function choicesCard(current: Game, choices: readonly Choice[]): HTMLElement {
  const what =
    current.selection?.kind === "customer"
      ? "Bring the customers to"
      : current.selection?.kind === "restaurant"
        ? "Open the restaurant on"
        : "Open the stand on";
  const groups = new Map<string, Choice[]>();
  for (const choice of choices) groups.set(choice.pays, [...(groups.get(choice.pays) ?? []), choice]);
  return h(
    "section",
    { class: "card choices", "data-testid": "choices" },
    h("h2", {}, what),
    [...groups].map(([pays, places]) =>
      h(
        "div",
        { class: "option-group" },
        h("span", { class: "pays", "data-testid": "pays" }, pays),
        h(
          "span",
          { class: "options" },
          places.map((choice) =>
            h(
              "button",
              {
                type: "button",
                class: "option",
                title: choice.title,
                "data-testid": `option-${choice.name}`,
                onclick: () => choice.onClick(),
              },
              choice.name,
            ),
          ),
        ),
      ),
    ),
  );
}

/** The status of a match that waits for players or was cancelled; undefined otherwise. */
function waitingText(match: MatchSummary | undefined): string | undefined {
  if (match?.status === MatchStatus.CANCELLED) return "This match was cancelled.";
  if (match?.status !== MatchStatus.WAITING) return undefined;
  const bots = match.seats.filter((seat) => seat.bot && !seat.taken).length;
  const open = openSeats(match).length;
  if (open && bots) return "Waiting for players and for the AI to take their seats…";
  if (open) return `Waiting for ${open === 1 ? "a player" : `${open} players`} to join…`;
  return "Waiting for the AI to take its seat…";
}

function statusText(current: Game, view: MercadoView | undefined, yourTurn: boolean): string {
  const { state, legal } = current;
  const match = state.match;
  const you = state.yourSeat;
  const waiting = waitingText(match);
  if (waiting) return waiting;
  if (match?.status === MatchStatus.FINISHED) return overText(state, you);
  const final =
    view?.finalTurnsLeft !== undefined
      ? ` · final round: ${view.finalTurnsLeft} turn${view.finalTurnsLeft === 1 ? "" : "s"} left`
      : "";
  if (current.busy) return `Sending…${final}`;
  const mine = you === undefined ? undefined : match?.seats[you];
  if (!yourTurn) {
    const mover = state.toMove;
    if (mover === undefined) return `Waiting…${final}`;
    if (mover === you && mine?.playedByAi) return `The AI is playing your turn…${final}`;
    return `${playerName(match, mover, you)} ${mover === you ? "are" : "is"} thinking…${final}`;
  }
  if (view?.phase === Phase.TAKE_OFFER)
    return `Your turn: take a tile from the stand offer${legal.refresh ? " (or refresh it)" : ""}.${final}`;
  const choice = current.selection;
  if (choice?.kind === "good")
    return `Your turn: choose a highlighted square for your ${goodName(choice.good)} stand.${final}`;
  if (choice?.kind === "restaurant")
    return `Your turn: choose a highlighted square for the ${restaurantName(choice.restaurant)}.${final}`;
  if (choice?.kind === "customer") return `Your turn: choose a highlighted entrance for the customers.${final}`;
  const picks = [
    legal.stands.length ? "a tile from your hand" : "",
    legal.customers.length ? "a customer" : "",
    legal.restaurants.length ? "a restaurant" : "",
  ].filter(Boolean);
  const listed = picks.length > 1 ? `${picks.slice(0, -1).join(", ")} or ${picks.at(-1)}` : (picks[0] ?? "");
  if (!listed) return `Your turn: take a coin.${final}`;
  return `Your turn: pick ${listed}${legal.coin ? ", or take a coin" : ""}.${final}`;
}

function tileButton(
  content: SVGElement,
  attrs: { label: string; testId: string; legal: boolean; selected: boolean; onClick?: () => void },
): HTMLElement {
  const classes = ["tile", attrs.legal ? "choice" : "", attrs.selected ? "selected" : ""].filter(Boolean).join(" ");
  if (!attrs.legal) return h("span", { class: classes, title: attrs.label, "data-testid": attrs.testId }, content);
  return h(
    "button",
    {
      type: "button",
      class: classes,
      title: attrs.label,
      "aria-pressed": attrs.selected,
      "data-testid": attrs.testId,
      onclick: attrs.onClick,
    },
    content,
  );
}

/** Whether the page may act now (in `phase`, when given): it plays the seat to move and sends nothing. */
function mayAct(current: Game | null, view: MercadoView, phase?: Phase): boolean {
  return !!current?.seat && isMyTurn(current.state) && !current.busy && (phase === undefined || view.phase === phase);
}

function yourHand(current: Game, view: MercadoView): HTMLElement {
  const { legal } = current;
  const seat = current.state.yourSeat ?? 0;
  const me = view.players[seat];
  const main = mayAct(current, view, Phase.MAIN);
  const goods = (me?.standHand ?? []).map((good, i) => {
    const piece: Selection = { kind: "good", good };
    const playable = main && legal.stands.some((stand) => fits(stand, piece));
    const selected = sameSelection(current.selection, piece);
    return tileButton(
      icon(46, s("rect", { x: -21, y: -21, width: 42, height: 42, rx: 8, class: "hand-bg" }), goodIcon(good, 0, 0, 30)),
      {
        label: `${goodName(good)}: open a stand`,
        testId: `hand-${i}`,
        legal: playable,
        selected,
        onClick: () => select(piece),
      },
    );
  });
  const restaurants = (me?.restaurantHand ?? []).map((restaurant, i) => {
    const piece: Selection = { kind: "restaurant", restaurant };
    const playable = main && legal.restaurants.some((action) => fits(action, piece));
    const selected = sameSelection(current.selection, piece);
    return tileButton(icon(46, restaurantIcon(restaurant, 0, 0, 44)), {
      label: `${restaurantName(restaurant)}: open it on the market`,
      testId: `restaurant-${i}`,
      legal: playable,
      selected,
      onClick: () => select(piece),
    });
  });
  const action = (label: string, testId: string, move: Action | undefined, enabled: boolean, title = ""): HTMLElement =>
    h(
      "button",
      {
        type: "button",
        class: move && enabled ? "action choice" : "action",
        disabled: !move || !enabled,
        "data-testid": testId,
        title: title || null,
        onclick: () => move && void submit(move),
      },
      label,
    );
  const coinPays = legal.coin ? paymentText(legal.coin.preview, current.state.yourSeat) : "";
  return h(
    "div",
    { class: "hand card", style: `--seat:${seatColour(seat)}` },
    h(
      "div",
      { class: "hand-group" },
      h("h3", {}, "Your stand tiles"),
      h("div", { class: "tiles" }, goods.length ? goods : h("span", { class: "muted" }, "none")),
    ),
    h(
      "div",
      { class: "hand-group" },
      h("h3", {}, "Your restaurants"),
      h("div", { class: "tiles" }, restaurants.length ? restaurants : h("span", { class: "muted" }, "none")),
    ),
    h(
      "div",
      { class: "hand-group actions" },
      action(
        legal.coin ? `Take a coin (${coinPays})` : "Take a coin",
        "take-coin",
        legal.coin?.action,
        main,
        coinPays,
      ),
      action("Redraw hand", "redraw-hand", legal.redraw, main),
      action("Refresh offer", "refresh-offer", legal.refresh, mayAct(current, view)),
    ),
  );
}

/** Every player: name, what plays the seat, coins, stands and hands; with `clocks`, the turn's time and reserves. */
export function playersCard(state: MatchState, view: MercadoView, clocks = true): HTMLElement {
  const match = state.match;
  const money = view.options?.money === Money.PUBLIC ? "public" : "hidden";
  const clock = clocks ? clockOf(match) : undefined;
  const deadline = clocks ? deadlineMs(match) : undefined;
  const rows = view.players.map((player, seat) => {
    const info = match?.seats[seat];
    const turn = match?.status === MatchStatus.PLAYING && state.toMove === seat;
    const role = seatRole(match, seat);
    const reserve = Number(info?.reserveMs ?? 0);
    const coins = player.coins ?? finalCoins(state, seat);
    const timed = clock && info && !info.bot && !info.playedByAi && match?.status === MatchStatus.PLAYING;
    return h(
      "li",
      {
        class: `player ${turn ? "to-move" : ""} ${info?.playedByAi ? "ai-played" : ""}`,
        style: `--seat:${seatColour(seat)}`,
        "data-testid": `player-${seat}`,
      },
      h(
        "div",
        { class: "player-head" },
        h("span", { class: "chip" }),
        h("span", { class: "seat-number" }, seatLabel(seat)),
        h("strong", { class: "player-name" }, playerName(match, seat, state.yourSeat)),
        role ? h("span", { class: "role", "data-testid": `role-${seat}` }, role) : null,
        h(
          "span",
          { class: "coins", title: coins === undefined ? "coins are hidden" : "coins", "data-testid": `coins-${seat}` },
          icon(16, s("circle", { r: 7, class: "coin" }), s("circle", { r: 4.5, class: "coin-inner" })),
          coins === undefined ? "hidden" : String(coins),
        ),
      ),
      h(
        "div",
        { class: "player-body" },
        turn ? h("span", { class: "turn-tag" }, "to move") : null,
        turn && deadline !== undefined && timed
          ? countdown(deadline, reserve, { title: "time left for this turn" })
          : timed && clock.reserveSeconds > 0
            ? h("span", { class: "reserve", title: "time in reserve" }, `reserve ${formatClock(reserve)}`)
            : null,
        h(
          "span",
          { class: "stands-left", title: "wooden stands left" },
          `${player.woodenStands}`,
          h("small", {}, " stands left"),
        ),
        h(
          "span",
          { class: "mini-tiles", title: "stand tiles in hand" },
          player.standHand.map((good) => icon(20, goodIcon(good, 0, 0, 17))),
        ),
        player.restaurantHand.length
          ? h(
              "span",
              {
                class: "mini-tiles",
                title: `restaurants in hand: ${player.restaurantHand.map(restaurantName).join(", ")}`,
              },
              player.restaurantHand.map((r) => icon(22, restaurantIcon(r, 0, 0, 21, true))),
            )
          : null,
      ),
    );
  });
  const clockNote = !clocks
    ? ""
    : clock
      ? ` · ${clock.turnSeconds} s a turn${clock.reserveSeconds ? ` + ${formatClock(clock.reserveSeconds * 1000)} reserve` : ""}`
      : " · no clock";
  return h(
    "section",
    { class: "card" },
    h("h2", {}, "Players", h("span", { class: "muted small" }, ` · money ${money}${clockNote}`)),
    h("ul", { class: "players" }, rows),
  );
}

/** A seat's coins once the match is over, when money was hidden: its final score's coins part. */
function finalCoins(state: MatchState, seat: number): bigint | number | undefined {
  if (state.match?.status !== MatchStatus.FINISHED) return undefined;
  return state.scoreParts.find((score) => score.seat === seat)?.parts.find((part) => part.name === "coins")?.points;
}

/** The stand offer; `current` null: only shown (the replay). */
export function offerCard(current: Game | null, view: MercadoView): HTMLElement {
  const taking = mayAct(current, view, Phase.TAKE_OFFER);
  const tiles = view.offer.map((good, i) => {
    const move = current?.legal.offers.find((offer) => offer.move.value.good === good)?.action;
    return tileButton(
      icon(40, s("rect", { x: -18, y: -18, width: 36, height: 36, rx: 7, class: "hand-bg" }), goodIcon(good, 0, 0, 26)),
      {
        label: `take ${goodName(good)}`,
        testId: `offer-${i}`,
        legal: taking && !!move,
        selected: false,
        onClick: () => move && void submit(move),
      },
    );
  });
  return h(
    "section",
    { class: `card ${taking ? "attention" : ""}` },
    h("h2", {}, "Stand offer", h("span", { class: "muted small" }, ` · bag ${view.bagSize}`)),
    h("div", { class: "tiles" }, tiles.length ? tiles : h("span", { class: "muted" }, "empty")),
  );
}

/** The customer display; `current` null: only shown (the replay). */
export function customersCard(current: Game | null, view: MercadoView): HTMLElement {
  const main = mayAct(current, view, Phase.MAIN);
  const levels = view.customers.map((level) =>
    h(
      "div",
      { class: "customer-level" },
      h("span", { class: "level-label" }, `Level ${level.level}`),
      h(
        "div",
        { class: "tiles" },
        level.display.map((tile, i) => {
          const piece: Selection = { kind: "customer", tile };
          const playable = main && !!current?.legal.customers.some((customer) => fits(customer, piece));
          const selected = sameSelection(current?.selection, piece);
          const svg = s(
            "svg",
            { width: 58, height: 50, viewBox: "0 0 58 50", class: "icon" },
            customerTile(tile, 0, 0, 58, 50),
          );
          return tileButton(svg, {
            label: tileName(tile),
            testId: `customer-${level.level}-${i}`,
            legal: playable,
            selected,
            onClick: () => select(piece),
          });
        }),
      ),
      h("span", { class: "muted small deck" }, `deck ${level.deckSize}`),
    ),
  );
  return h("section", { class: "card" }, h("h2", {}, "Customers"), levels);
}

/** The last moves, newest first: each event of a move on a line of its own, in its seat's colour. */
function logCard(current: Game): HTMLElement {
  const entries = [...current.log].reverse().flatMap((entry) => logItems(entry.version, entry.lines).reverse());
  return h(
    "section",
    { class: "card log" },
    h("h2", {}, "Log"),
    h("ol", { "data-testid": "log" }, entries.length ? entries : h("li", { class: "muted" }, "No moves yet.")),
  );
}

/** A move's lines as list items, in the order they happened: the first says the move's version. */
export function logItems(version: bigint | number, lines: readonly LogLine[]): HTMLElement[] {
  return lines.map((line, i) =>
    h(
      "li",
      { class: line.seat === undefined ? "table-line" : "", style: line.seat === undefined ? "" : `--seat:${seatColour(line.seat)}` },
      h("span", { class: "version" }, i ? "" : `#${version}`),
      h("span", {}, line.text),
    ),
  );
}
