// The page: create a match against the AI, then play it by clicking, over gRPC-Web.
//
// All calls go through the TypeScript client's MercadoClient (clients/typescript), on
// Connect's gRPC-Web transport to this page's own origin: `mercado serve` answers
// gRPC-Web and serves this page on its web port. The client repeats a call the server
// refused for fair use (RESOURCE_EXHAUSTED with `retry-after`) after the time it asks for;
// one that still fails shows the server's reason. TLS is the page's own (https origin).

import { Code, ConnectError } from "@connectrpc/connect";
import { createGrpcWebTransport } from "@connectrpc/connect-web";
import {
  type Action,
  BOT_LEVELS,
  type BotLevelName,
  botLevelName,
  codeOf,
  type CustomerTile,
  Good,
  isFinished,
  isMyTurn,
  type MatchState,
  MatchStatus,
  type MatchUpdate,
  type MercadoAction,
  MercadoClient,
  matchResult,
  type MercadoView,
  mercadoView,
  Money,
  newRequestId,
  Phase,
  type Restaurant,
  Seat,
  Side,
} from "@mercado/client";
import { BOARD_SIZE, customerTile, type Recent, renderBoard, type Target } from "./board.js";
import { h, icon, s } from "./dom.js";
import {
  describeEvent,
  entranceName,
  goodIcon,
  goodName,
  improves,
  restaurantIcon,
  restaurantName,
  seatColour,
  squareName,
  tileName,
} from "./labels.js";
import "./style.css";

const client = new MercadoClient(createGrpcWebTransport({ baseUrl: window.location.origin }));
const app = document.getElementById("app") as HTMLElement;
const SESSION_KEY = "mercado.session";
const LOG_LENGTH = 15;

type Selection =
  | { kind: "good"; good: Good }
  | { kind: "customer"; tile: CustomerTile }
  | { kind: "restaurant"; restaurant: Restaurant };

interface LogEntry {
  version: bigint;
  seat: number;
  lines: string[];
}

/** A match being played from this page. */
interface Game {
  seat: Seat;
  resultHidden: boolean;
  /** The state on screen; changed only by setState, which keeps `legal` with it. */
  state: MatchState;
  /** What the state's legal actions allow. */
  legal: Options;
  log: LogEntry[];
  selection: Selection | null;
  busy: boolean;
  refusal: string;
  /** The square or entrance of the last move, and who made it. */
  recent: Recent[];
  stop: AbortController;
  streamError: string;
}

let game: Game | null = null;

// ---------------------------------------------------------------------------------------------
// Start

interface StartOptions {
  players: number;
  levels: BotLevelName[];
  money: "hidden" | "public";
  name: string;
}

function renderStart(error = ""): void {
  document.body.dataset.turn = "start";
  const players = h("select", { id: "players", name: "players", "data-testid": "players" });
  for (const n of [2, 3, 4]) players.append(h("option", { value: n }, `${n} players`));
  const levels = h("div", { class: "levels" });
  const money = h(
    "select",
    { id: "money", name: "money", "data-testid": "money" },
    h("option", { value: "hidden" }, "hidden (you see only your own coins)"),
    h("option", { value: "public" }, "public (everyone sees every total)"),
  );
  const name = h("input", { id: "name", name: "name", value: "You", maxlength: 40, autocomplete: "nickname" });
  const drawLevels = (): void => {
    const count = Number(players.value);
    const previous = [...levels.querySelectorAll("select")].map((select) => select.value);
    levels.replaceChildren(
      ...Array.from({ length: count - 1 }, (_, i) => {
        const select = h("select", { "data-testid": `level-${i + 1}`, "aria-label": `AI ${i + 1} level` });
        for (const level of Object.keys(BOT_LEVELS)) select.append(h("option", { value: level }, level));
        select.value = previous[i] ?? "medium";
        return h(
          "label",
          { class: "level" },
          h("span", { class: "chip", style: `background:${seatColour(i + 1)}` }),
          `AI ${i + 1}`,
          select,
        );
      }),
    );
  };
  players.addEventListener("change", drawLevels);
  drawLevels();

  const button = h("button", { type: "submit", class: "primary", "data-testid": "start" }, "Start the match");
  const form = h(
    "form",
    {
      class: "start card",
      onsubmit: (event: Event) => {
        event.preventDefault();
        button.disabled = true;
        button.textContent = "Starting…";
        const options: StartOptions = {
          players: Number(players.value),
          levels: [...levels.querySelectorAll("select")].map((select) => select.value as BotLevelName),
          money: money.value === "public" ? "public" : "hidden",
          name: name.value.trim() || "You",
        };
        startMatch(options).catch((failure: unknown) => renderStart(`Could not start a match: ${message(failure)}`));
      },
    },
    h("h2", {}, "A new match against the AI"),
    h("label", { for: "name" }, "Your name"),
    name,
    h("label", { for: "players" }, "Players"),
    players,
    h("label", {}, "AI levels"),
    levels,
    h("label", { for: "money" }, "Money"),
    money,
    button,
    error ? h("p", { class: "refusal", role: "alert" }, error) : null,
    h(
      "p",
      { class: "hint" },
      "You take seat 1; AI agents take the others (make run starts one). The first player is drawn at random.",
    ),
  );
  app.replaceChildren(header(), h("main", { class: "start-page" }, form, rulesCard()));
}

function rulesCard(): HTMLElement {
  return h(
    "section",
    { class: "card rules" },
    h("h2", {}, "How to play"),
    h(
      "ul",
      {},
      h(
        "li",
        {},
        "Open a stand: pick a tile from your hand, then a highlighted square. It costs 1 + the most stands already in its row or column.",
      ),
      h(
        "li",
        {},
        "Bring customers: pick a customer from the display, then a highlighted entrance. Every stand in that line with a good they want earns its owner coins.",
      ),
      h("li", {}, "Open a restaurant from your hand: adjacent stands of its good earn more. Or simply take a coin."),
      h("li", {}, "Most coins at the end wins; restaurants left in hand cost 1 each."),
    ),
  );
}

async function startMatch(options: StartOptions): Promise<void> {
  const created = await client.createMatch({
    players: options.players,
    seats: ["open", ...options.levels],
    money: options.money,
  });
  const seat = await client.join(created.matchId, options.name, 0);
  sessionStorage.setItem(SESSION_KEY, JSON.stringify({ matchId: seat.matchId, seat: seat.seat, token: seat.token }));
  await play(seat);
}

/** Resume the match of this tab: true if it did, else why not when the player should know (it may resume later). */
async function resume(): Promise<true | string> {
  const saved = sessionStorage.getItem(SESSION_KEY);
  if (!saved) return "";
  try {
    const { matchId, seat, token } = JSON.parse(saved) as { matchId: string; seat: number; token: string };
    const state = await client.view(matchId, token);
    if (isFinished(state)) throw new Error("finished");
    await play(new Seat(client, matchId, seat, token));
    return true;
  } catch (failure) {
    // Refused for fair use for longer than the client waits: the match is still there for a reload.
    if (codeOf(failure) === Code.ResourceExhausted)
      return `Could not resume your match: ${message(failure)}. Reload the page to try again.`;
    sessionStorage.removeItem(SESSION_KEY);
    return "";
  }
}

// ---------------------------------------------------------------------------------------------
// Playing

/** Play a seat: its view first, then every update of Seat.watch (which sees seat changes while the match waits). */
async function play(seat: Seat): Promise<void> {
  const stop = new AbortController();
  const updates = seat.watch({ signal: stop.signal });
  const first = await updates.next(); // the current view
  const state = first.done ? undefined : first.value.state;
  if (!state) throw new Error("the server sent no view of the match");
  game?.stop.abort();
  const current: Game = {
    seat,
    resultHidden: false,
    state,
    legal: options(state),
    log: [],
    selection: null,
    busy: false,
    refusal: "",
    recent: [],
    stop,
    streamError: "",
  };
  game = current;
  render();
  void follow(current, updates);
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
  if (update.action && seat !== undefined) {
    const name = (other: number): string => playerName(current.state, other);
    const lines = update.events.flatMap((event) => {
      const line = event.game.case === "mercado" ? describeEvent(event.game.value, name) : undefined;
      return line ? [line] : [];
    });
    current.log.push({ version: update.version, seat, lines });
    current.log.splice(0, Math.max(0, current.log.length - LOG_LENGTH));
    current.recent = recentPlaces(update.action, seat);
  }
  // Not back to an older state: our own move's state may be on screen already (from submit).
  if (update.state && update.version >= current.state.version) setState(current, update.state);
}

function setState(current: Game, state: MatchState): void {
  current.state = state;
  current.legal = options(state);
  if (current.selection && !selectionStillLegal(current.selection, current.legal)) current.selection = null;
  render();
}

function recentPlaces(action: Action, seat: number): Recent[] {
  const move = action.game.case === "mercado" ? action.game.value.action : undefined;
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
  if (!current || current.busy) return;
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

// ---------------------------------------------------------------------------------------------
// What the player may do now

type Move = MercadoAction["action"];

/** A legal action, kept as the server listed it (it is submitted as is), and its move of case K. */
interface Legal<K extends Move["case"]> {
  action: Action;
  move: Extract<Move, { case: K }>;
}

interface Options {
  stands: Legal<"openStand">[];
  customers: Legal<"bringCustomer">[];
  restaurants: Legal<"openRestaurant">[];
  offers: Legal<"takeOffer">[];
  coin: Action | undefined;
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
  for (const action of state.legalActions) {
    if (action.game.case !== "mercado") continue;
    const move = action.game.value.action;
    switch (move.case) {
      case "openStand":
        result.stands.push({ action, move });
        break;
      case "bringCustomer":
        result.customers.push({ action, move });
        break;
      case "openRestaurant":
        result.restaurants.push({ action, move });
        break;
      case "takeOffer":
        result.offers.push({ action, move });
        break;
      case "takeCoin":
        result.coin = action;
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
  render();
}

/** The cost of a stand on a square, and what its customers would pay for a good there now. */
function standPreview(view: MercadoView, column: number, row: number, good: Good): { cost: number; income: number } {
  let inRow = 0;
  let inColumn = 0;
  let value = 1;
  for (const content of view.market) {
    const square = content.square;
    if (!square) continue;
    if (content.content.case === "stand") {
      if (square.row === row) inRow++;
      if (square.column === column) inColumn++;
    } else if (content.content.case === "restaurant") {
      const adjacent = Math.abs(square.row - row) + Math.abs(square.column - column) === 1;
      if (adjacent && improves(content.content.value, good)) value++;
    }
  }
  let income = 0;
  for (const waiting of view.entrances) {
    const entrance = waiting.entrance;
    if (!entrance || !waiting.tile?.goods.includes(good)) continue;
    const vertical = entrance.side === Side.TOP || entrance.side === Side.BOTTOM;
    if ((vertical && entrance.line === column) || (!vertical && entrance.line === row))
      income += waiting.tile.level * value;
  }
  return { cost: 1 + Math.max(inRow, inColumn), income };
}

function targets(current: Game, view: MercadoView): Target[] {
  const result: Target[] = [];
  const { selection: choice, legal } = current;
  if (!choice || current.busy) return result;
  if (choice.kind === "good") {
    for (const stand of legal.stands) {
      const square = stand.move.value.square;
      if (!square || !fits(stand, choice)) continue;
      const { cost, income } = standPreview(view, square.column, square.row, choice.good);
      result.push({
        place: { square },
        badge: income > 0 ? `-${cost} +${income}` : `-${cost}`,
        title: `Open a ${goodName(choice.good)} stand on ${squareName(square)}: costs ${cost}${income ? `, customers pay ${income}` : ""}`,
        onClick: () => void submit(stand.action),
      });
    }
  } else if (choice.kind === "restaurant") {
    for (const restaurant of legal.restaurants) {
      const square = restaurant.move.value.square;
      if (!square || !fits(restaurant, choice)) continue;
      result.push({
        place: { square },
        badge: "+1",
        title: `Open the ${restaurantName(choice.restaurant)} on ${squareName(square)} (+1 coin)`,
        onClick: () => void submit(restaurant.action),
      });
    }
  } else {
    for (const customer of legal.customers) {
      const entrance = customer.move.value.entrance;
      if (!entrance || !fits(customer, choice)) continue;
      result.push({
        place: { entrance },
        title: `Bring the ${tileName(choice.tile)} to ${entranceName(entrance)}`,
        onClick: () => void submit(customer.action),
      });
    }
  }
  return result;
}

// ---------------------------------------------------------------------------------------------
// Drawing

function playerName(state: MatchState, seat: number): string {
  if (seat === state.yourSeat) return "You";
  const seats = state.match?.seats ?? [];
  const name = seats[seat]?.displayName || `Seat ${seat + 1}`;
  // Several seats of one AI agent share its name: tell them apart by seat, as the start panel does.
  const shared = seats.some((other) => other.seat !== seat && other.displayName === name);
  return shared ? `${name} ${seat}` : name;
}

function header(status?: HTMLElement): HTMLElement {
  return h(
    "header",
    { class: "top" },
    h(
      "div",
      { class: "brand" },
      icon(30, goodIcon(Good.FISH, -6, -4, 16), goodIcon(Good.GRAPES, 6, 5, 14)),
      h("h1", {}, "Mercado de Lisboa"),
    ),
    status ?? null,
    game ? h("button", { class: "ghost", "data-testid": "new-match", onclick: newMatch }, "New match") : null,
  );
}

function render(): void {
  const current = game;
  if (!current) return;
  const { state, legal } = current;
  const view = mercadoView(state);
  const finished = isFinished(state);
  const yourTurn = isMyTurn(state);
  document.body.dataset.turn = finished
    ? "over"
    : state.match?.status === MatchStatus.WAITING
      ? "waiting"
      : yourTurn
        ? "you"
        : "other";
  document.body.dataset.version = String(state.version);
  document.body.dataset.busy = String(current.busy);

  const statusLine = h(
    "div",
    { class: `status ${yourTurn ? "your-turn" : ""}`, "data-testid": "status", role: "status" },
    statusText(current, view, yourTurn),
  );

  if (!view) {
    app.replaceChildren(
      header(statusLine),
      h("main", { class: "game" }, h("p", { class: "card" }, "Loading the market…")),
    );
    return;
  }

  const boardTargets = yourTurn ? targets(current, view) : [];
  const board = renderBoard({
    view,
    targets: boardTargets,
    recent: current.recent,
    name: (seat) => playerName(state, seat),
  });
  board.setAttribute("width", String(BOARD_SIZE));

  const boardArea = h(
    "section",
    { class: "board-area" },
    h("div", { class: "board-frame" }, board, finished && !current.resultHidden ? resultCard(current, view) : null),
    finished && current.resultHidden
      ? h(
          "button",
          {
            class: "secondary",
            onclick: () => {
              current.resultHidden = false;
              render();
            },
          },
          "Show the final scores",
        )
      : yourHand(current, view, legal, yourTurn),
    current.refusal ? h("p", { class: "refusal", role: "alert", "data-testid": "refusal" }, current.refusal) : null,
    current.streamError ? h("p", { class: "refusal", role: "alert" }, current.streamError) : null,
  );

  const side = h(
    "aside",
    { class: "side" },
    playersCard(state, view),
    offerCard(current, view, legal, yourTurn),
    customersCard(current, view, legal, yourTurn),
    logCard(current),
  );
  app.replaceChildren(header(statusLine), h("main", { class: "game" }, boardArea, side));
}

function statusText(current: Game, view: MercadoView | undefined, yourTurn: boolean): string {
  const { state, legal } = current;
  if (state.match?.status === MatchStatus.WAITING)
    return "Waiting for the AI to take its seat… (is `mercado ai` running? make run starts one)";
  if (isFinished(state)) {
    const result = matchResult(state);
    const you = state.yourSeat;
    const rank = result && you !== undefined ? result.ranks[you] : undefined;
    return rank === undefined
      ? "The match is over."
      : `The match is over: you finished ${ordinal(rank)} with ${result?.scores[you ?? 0]} points.`;
  }
  const final =
    view?.finalTurnsLeft !== undefined
      ? ` · final round: ${view.finalTurnsLeft} turn${view.finalTurnsLeft === 1 ? "" : "s"} left`
      : "";
  if (current.busy) return `Sending your move…${final}`;
  if (!yourTurn)
    return `${playerName(state, state.toMove ?? 0)} ${state.toMove === undefined ? "" : "is thinking…"}${final}`;
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

function yourHand(current: Game, view: MercadoView, legal: Options, yourTurn: boolean): HTMLElement {
  const seat = current.state.yourSeat ?? 0;
  const me = view.players[seat];
  const main = yourTurn && view.phase === Phase.MAIN && !current.busy;
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
  const action = (label: string, testId: string, move: Action | undefined, enabled: boolean): HTMLElement =>
    h(
      "button",
      {
        type: "button",
        class: move && enabled ? "action choice" : "action",
        disabled: !move || !enabled,
        "data-testid": testId,
        onclick: () => move && void submit(move),
      },
      label,
    );
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
      action("Take a coin", "take-coin", legal.coin, main),
      action("Redraw hand", "redraw-hand", legal.redraw, main),
      action("Refresh offer", "refresh-offer", legal.refresh, yourTurn && !current.busy),
    ),
  );
}

function playersCard(state: MatchState, view: MercadoView): HTMLElement {
  const money = view.options?.money === Money.PUBLIC ? "public" : "hidden";
  const rows = view.players.map((player, seat) => {
    const info = state.match?.seats[seat];
    const turn = state.match?.status === MatchStatus.PLAYING && state.toMove === seat;
    const level = info?.bot ? (botLevelName(info.botLevel) ?? "") : "";
    return h(
      "li",
      {
        class: `player ${turn ? "to-move" : ""}`,
        style: `--seat:${seatColour(seat)}`,
        "data-testid": `player-${seat}`,
      },
      h(
        "div",
        { class: "player-head" },
        h("span", { class: "chip" }),
        h("strong", {}, playerName(state, seat)),
        level ? h("span", { class: "muted" }, ` ${level} AI`) : null,
        turn ? h("span", { class: "turn-tag" }, "to move") : null,
        h(
          "span",
          { class: "coins", title: player.coins === undefined ? "coins are hidden" : "coins" },
          icon(16, s("circle", { r: 7, class: "coin" }), s("circle", { r: 4.5, class: "coin-inner" })),
          player.coins === undefined ? "hidden" : String(player.coins),
        ),
      ),
      h(
        "div",
        { class: "player-body" },
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
  return h(
    "section",
    { class: "card" },
    h("h2", {}, "Players", h("span", { class: "muted small" }, ` · money ${money}`)),
    h("ul", { class: "players" }, rows),
  );
}

function offerCard(current: Game, view: MercadoView, legal: Options, yourTurn: boolean): HTMLElement {
  const taking = yourTurn && view.phase === Phase.TAKE_OFFER && !current.busy;
  const tiles = view.offer.map((good, i) => {
    const move = legal.offers.find((offer) => offer.move.value.good === good)?.action;
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

function customersCard(current: Game, view: MercadoView, legal: Options, yourTurn: boolean): HTMLElement {
  const main = yourTurn && view.phase === Phase.MAIN && !current.busy;
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
          const playable = main && legal.customers.some((customer) => fits(customer, piece));
          const selected = sameSelection(current.selection, piece);
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

function logCard(current: Game): HTMLElement {
  const entries = [...current.log]
    .reverse()
    .map((entry) =>
      h(
        "li",
        { style: `--seat:${seatColour(entry.seat)}` },
        h("span", { class: "version" }, `#${entry.version}`),
        h("span", {}, entry.lines.length ? sentence(entry.lines) : `${playerName(current.state, entry.seat)} moved`),
      ),
    );
  return h(
    "section",
    { class: "card log" },
    h("h2", {}, "Log"),
    h("ol", { "data-testid": "log" }, entries.length ? entries : h("li", { class: "muted" }, "No moves yet.")),
  );
}

function resultCard(current: Game, view: MercadoView): HTMLElement | null {
  const state = current.state;
  const result = view.result;
  if (!result) return null;
  const order = view.players.map((_, seat) => seat).sort((a, b) => (result.ranks[a] ?? 9) - (result.ranks[b] ?? 9));
  const winner = order[0];
  const youWon = winner !== undefined && winner === state.yourSeat && result.ranks[winner] === 1;
  return h(
    "div",
    { class: "result card", "data-testid": "result" },
    h("h2", {}, youWon ? "You win!" : `${playerName(state, winner ?? 0)} wins`),
    h(
      "table",
      {},
      h(
        "thead",
        {},
        h("tr", {}, h("th", {}, "Rank"), h("th", {}, "Player"), h("th", {}, "Score"), h("th", {}, "Stands")),
      ),
      h(
        "tbody",
        {},
        order.map((seat) =>
          h(
            "tr",
            { style: `--seat:${seatColour(seat)}` },
            h("td", {}, String(result.ranks[seat] ?? "")),
            h("td", {}, h("span", { class: "chip" }), playerName(state, seat)),
            h("td", {}, String(result.scores[seat] ?? "")),
            h("td", {}, String(result.standsOnMarket[seat] ?? "")),
          ),
        ),
      ),
    ),
    h("p", { class: "muted small" }, "Scores count restaurants left in hand as −1 each; ties go to the most stands."),
    h(
      "div",
      { class: "result-buttons" },
      h(
        "button",
        {
          class: "secondary",
          onclick: () => {
            current.resultHidden = true;
            render();
          },
        },
        "See the board",
      ),
      h("button", { class: "primary", onclick: newMatch }, "Play again"),
    ),
  );
}

/** Leave the match on screen (it goes on without us if it is not over) and show the start panel. */
function newMatch(): void {
  game?.stop.abort();
  game = null;
  sessionStorage.removeItem(SESSION_KEY);
  renderStart();
}

/** The lines of one move as one sentence: "You opened…; you earned…". */
function sentence(lines: readonly string[]): string {
  const text = lines.map((line, i) => (i > 0 && line.startsWith("You ") ? `you ${line.slice(4)}` : line)).join("; ");
  return text.startsWith("the ") ? `The ${text.slice(4)}` : text; // names keep their case
}

function ordinal(rank: number): string {
  return rank === 1 ? "1st" : rank === 2 ? "2nd" : rank === 3 ? "3rd" : `${rank}th`;
}

/**
 * The reason of a failure to show: for a ConnectError, the server's one-line reason (also for a
 * fair-use refusal, which the client repeats after its retry-after until that would take too long).
 */
function message(failure: unknown): string {
  if (failure instanceof ConnectError) return failure.rawMessage;
  if (failure instanceof Error) return failure.message;
  return String(failure);
}

void resume().then((resumed) => {
  if (resumed !== true) renderStart(resumed);
});
