// The replay viewer: step forward and back through a finished match.
//
// The page has no rules code, so it does not re-play the actions: it reads the match's event
// stream as a spectator from version 0. The stream's first message is the match as it stands;
// then come its actions in order, each carrying the state after it. Those states are the steps,
// and the replay opens at the first. (Before the first action there is no state to show: the
// stream carries none.) The last step shows the result, every seat's score explained.

import { clone } from "@bufbuild/protobuf";
import {
  isFinished,
  type MatchState,
  MatchStateSchema,
  MatchStatus,
  type MatchUpdate,
  mercadoView,
} from "@mercado/client";
import { BOARD_SIZE, renderBoard } from "./board.js";
import { h } from "./dom.js";
import { tableScreen } from "./games.js";
import { seatColour } from "./labels.js";
import { moveLines } from "./log.js";
import { customersCard, logItems, offerCard, playersCard, recentPlaces } from "./play.js";
import { resultCard } from "./score.js";
import { type Table, tableView } from "./table.js";
import { app, client, enterScreen, gameOf, gameTitle, header, message, navigate, newMatchButton, playerName, SITE } from "./ui.js";

interface Replay {
  matchId: string;
  /** The match as it ended (names, ranks). */
  final: MatchState;
  /** One per action: the action and the state after it. */
  steps: MatchUpdate[];
  /** The step on screen, 0-based. */
  index: number;
  /** The list of every move, one item per step (drawn once; the current one is marked). */
  moves: HTMLOListElement;
}

let replay: Replay | null = null;

export async function openReplay(matchId: string): Promise<void> {
  const stop = new AbortController();
  const onKey = (event: KeyboardEvent): void => {
    if (!replay || event.target instanceof HTMLInputElement) return;
    const moves: Record<string, number> = { ArrowLeft: -1, ArrowRight: 1, Home: -Infinity, End: Infinity };
    const by = moves[event.key];
    if (by === undefined) return;
    event.preventDefault();
    step(by);
  };
  enterScreen(() => {
    stop.abort();
    replay = null;
    document.removeEventListener("keydown", onKey);
  });
  document.addEventListener("keydown", onKey);
  document.body.dataset.turn = "loading";
  const progress = h("p", { class: "card", "data-testid": "replay-loading" }, "Loading the replay…");
  app.replaceChildren(header(undefined, newMatchButton()), h("main", { class: "start-page" }, progress));

  let final: MatchState | undefined;
  const steps: MatchUpdate[] = [];
  try {
    for await (const update of client.follow(matchId, undefined, { afterVersion: 0n, signal: stop.signal })) {
      // A move has its seat (a sealed bid may come without its action); the match as it stands has none.
      if (update.seat === undefined) {
        final ??= update.state;
        if (!isFinished(update.state)) break; // not over: nothing to replay (yet)
        continue;
      }
      steps.push(update);
      if (steps.length % 10 === 0) progress.textContent = `Loading the replay… ${steps.length} moves`;
    }
  } catch (failure) {
    if (stop.signal.aborted) return;
    showProblem(`Could not load the replay: ${message(failure)}`);
    return;
  }
  if (stop.signal.aborted) return;
  if (!final || !isFinished(final)) {
    const status = final?.match?.status;
    showProblem(
      status === MatchStatus.CANCELLED
        ? "This match was cancelled before it started: there is nothing to replay."
        : "This match is not over yet: its replay opens once it has finished.",
      status === MatchStatus.PLAYING || status === MatchStatus.WAITING ? matchId : undefined,
    );
    return;
  }
  if (steps.length === 0 || BigInt(steps.length) !== final.version) {
    showProblem(`The server sent ${steps.length} of the match's ${final.version} moves; reload to try again.`);
    return;
  }
  replay = { matchId, final, steps, index: 0, moves: movesList(steps, final) };
  render();
}

function showProblem(text: string, watchId?: string): void {
  document.body.dataset.turn = "problem";
  app.replaceChildren(
    header(undefined, newMatchButton()),
    h(
      "main",
      { class: "start-page" },
      h(
        "div",
        { class: "card problem" },
        h("p", { class: "refusal", role: "alert", "data-testid": "replay-problem" }, text),
        watchId
          ? h("button", { class: "secondary", onclick: () => navigate(`/?match=${watchId}`) }, "Watch it")
          : null,
      ),
    ),
  );
}

/** Move by `by` steps (±Infinity: to the first or last), within the match. */
function step(by: number): void {
  if (replay) goTo(replay.index + by);
}

function goTo(index: number): void {
  if (!replay) return;
  const within = Math.max(0, Math.min(replay.steps.length - 1, index));
  if (within === replay.index) return;
  replay.index = within;
  render();
}

function render(): void {
  const current = replay;
  if (!current) return;
  const { steps, index, final, moves } = current;
  const update = steps[index]!;
  const count = steps.length;
  // The step's state with the final names and seats; the clocks of a past turn do not run.
  const state = clone(MatchStateSchema, update.state!);
  if (state.match && final.match) {
    state.match.seats = final.match.seats;
    state.match.deadlineUnixMs = undefined;
  }
  const view = mercadoView(state);
  const table = tableView(state);
  const match = final.match;
  const name = (seat: number): string => playerName(match, seat);
  document.body.dataset.turn = "replay";
  document.body.dataset.version = String(update.version);
  document.body.dataset.match = current.matchId;
  document.title = `Replay · ${gameTitle(match?.game)} · ${SITE}`;

  const status = h(
    "div",
    { class: "status", "data-testid": "status", role: "status" },
    h("span", { class: "status-text", "data-testid": "replay-step" }, `Replay · move ${index + 1} of ${count}`),
  );
  const top = header(gameOf(match?.game), status, newMatchButton());

  const button = (label: string, testId: string, by: number, disabled: boolean, title: string): HTMLElement =>
    h("button", { type: "button", class: "secondary", "data-testid": testId, title, disabled, onclick: () => step(by) }, label);
  const slider = h("input", {
    type: "range",
    min: 1,
    max: count,
    value: index + 1,
    "aria-label": "move",
    "data-testid": "replay-slider",
    oninput: (event: Event) => goTo(Number((event.target as HTMLInputElement).value) - 1),
  });
  const controls = h(
    "div",
    { class: "replay-controls card" },
    h(
      "div",
      { class: "replay-buttons" },
      button("« First", "replay-first", -Infinity, index === 0, "the first move (Home)"),
      button("◀ Back", "replay-back", -1, index === 0, "the move before (←)"),
      button("Forward ▶", "replay-forward", 1, index === count - 1, "the next move (→)"),
      button("Last »", "replay-last", Infinity, index === count - 1, "the last move (End)"),
    ),
    slider,
  );

  const mover = update.seat ?? 0;
  const moveCard = h(
    "section",
    { class: "card replay-move log", style: `--seat:${seatColour(mover)}`, "data-testid": "replay-move" },
    h("ol", {}, logItems(update.version, moveLines(update, name))),
  );
  // The last step: the result, every seat's score explained (the final state's score parts).
  const result = isFinished(state) ? resultCard(state, name, undefined) : null;
  for (const [i, item] of [...moves.children].entries()) item.classList.toggle("current", i === index);
  const movesCard = h("section", { class: "card log" }, h("h2", {}, "Moves"), moves);
  if (table) {
    // Oregano or Leilão: the game's own screen, with nothing to click.
    const screen = tableScreen(
      {
        state,
        you: undefined,
        moves: [],
        draft: [],
        setDraft: () => undefined,
        submit: () => undefined,
        name,
        last: { seat: mover, action: update.action },
      } satisfies Table,
      table,
    );
    app.replaceChildren(
      top,
      h(
        "main",
        { class: `game table-game ${table.game}` },
        h("section", { class: "board-area" }, controls, moveCard, result, screen.main),
        h("aside", { class: "side" }, screen.side, movesCard),
      ),
    );
    showCurrent(moves);
    return;
  }
  if (!view) {
    app.replaceChildren(top, h("main", { class: "game" }, h("p", { class: "card" }, "This move has no view.")));
    return;
  }

  const board = renderBoard({
    view,
    targets: [],
    recent: recentPlaces(update.action, mover),
    name,
  });
  board.setAttribute("width", String(BOARD_SIZE));
  const boardArea = h("section", { class: "board-area" }, controls, moveCard, result, h("div", { class: "board-frame" }, board));
  const side = h(
    "aside",
    { class: "side" },
    playersCard(state, view, false),
    offerCard(null, view),
    customersCard(null, view),
    movesCard,
  );
  app.replaceChildren(top, h("main", { class: "game" }, boardArea, side));
  showCurrent(moves);
}

/** Keep the current move in sight within the list (not by scrolling the page). */
function showCurrent(moves: HTMLOListElement): void {
  const currentItem = moves.querySelector<HTMLElement>("li.current");
  if (currentItem) moves.scrollTop = Math.max(0, currentItem.offsetTop - moves.clientHeight / 2);
}

/** Every move, one item each: its version, who made it and what it did. */
function movesList(steps: readonly MatchUpdate[], final: MatchState): HTMLOListElement {
  const name = (seat: number): string => playerName(final.match, seat);
  return h(
    "ol",
    { class: "replay-list", "data-testid": "replay-list" },
    steps.map((item, i) =>
      h(
        "li",
        { style: `--seat:${seatColour(item.seat ?? 0)}` },
        h(
          "button",
          { type: "button", onclick: () => goTo(i) },
          h("span", { class: "version" }, `#${item.version}`),
          `${name(item.seat ?? 0)} · ${moveName(item)}`,
        ),
      ),
    ),
  );
}

const MOVE_NAMES: Record<string, string> = {
  redrawHand: "redrew the hand",
  openStand: "opened a stand",
  refreshOffer: "refreshed the offer",
  takeOffer: "took a tile from the offer",
  bringCustomer: "brought customers",
  openRestaurant: "opened a restaurant",
  takeCoin: "took a coin",
};

function moveName(update: MatchUpdate): string {
  const game = update.action?.game;
  if (game?.case !== undefined && game.case !== "mercado") {
    // "levelUp" as "level up"
    return game.value.action.case?.replace(/[A-Z]/g, (letter) => ` ${letter.toLowerCase()}`) ?? "moved";
  }
  if (!game && update.events.length) return "a sealed choice";
  const move = game?.case === "mercado" ? game.value.action.case : undefined;
  return (move && MOVE_NAMES[move]) ?? "moved";
}
