// The page: start a match (against the AI, or a friend with an invite link), resume your games,
// join open matches, play by clicking and replay finished matches, over gRPC-Web.
//
// All calls go through the TypeScript client's MercadoClient (clients/typescript), on
// Connect's gRPC-Web transport to this page's own origin: `mercado serve` answers
// gRPC-Web and serves this page on its web port. The client repeats a call the server
// refused for fair use (RESOURCE_EXHAUSTED with `retry-after`) after the time it asks for;
// one that still fails shows the server's reason. TLS is the page's own (https origin).
//
// Addresses: "/" the start page; "/?match=ID" a match this browser holds a seat in (else the
// join page); "/?join=ID" an invite to a match's open seat; "/?replay=ID" a finished match's replay.

import { Code } from "@connectrpc/connect";
import {
  BOT_LEVELS,
  type BotLevelName,
  type ClockOptions,
  clockOf,
  codeOf,
  isMyTurn,
  isOver,
  type MatchState,
  MatchStatus,
  type MatchSummary,
  Money,
  openSeats,
  Seat,
  seatLabel,
} from "@mercado/client";
import { h, type Child } from "./dom.js";
import { seatColour } from "./labels.js";
import { openGame, ordinal } from "./play.js";
import { openReplay } from "./replay.js";
import { forgetSeat, isMatchId, markOver, saveName, savedName, savedSeat, savedSeats, saveSeat } from "./storage.js";
import { app, client, enterScreen, formatClock, header, message, navigate, playerName, seatRole, setRouter } from "./ui.js";
import "./style.css";

// ---------------------------------------------------------------------------------------------
// Addresses

function route(): void {
  const params = new URLSearchParams(window.location.search);
  const join = params.get("join");
  const replay = params.get("replay");
  const match = params.get("match");
  const id = join ?? replay ?? match;
  if (id !== null && !isMatchId(id)) {
    history.replaceState(null, "", "/");
    renderStart(`“${id}” is not a match id (32 hexadecimal characters).`);
  } else if (join) {
    void openJoin(join);
  } else if (replay) {
    void openReplay(replay);
  } else if (match) {
    void openMatch(match);
  } else {
    renderStart();
  }
}

function loading(text: string): void {
  document.body.dataset.turn = "loading";
  app.replaceChildren(header(null), h("main", { class: "start-page" }, h("p", { class: "card loading" }, text)));
}

/** A match this browser holds a seat in: play it. Without a seat: the join page says what is possible. */
async function openMatch(matchId: string): Promise<void> {
  const saved = savedSeat(matchId);
  if (!saved) {
    navigate(`/?join=${matchId}`, true);
    return;
  }
  enterScreen();
  loading("Opening your match…");
  try {
    await openGame(matchId, new Seat(client, matchId, saved.seat, saved.token));
  } catch (failure) {
    if (seatGone(failure)) forgetSeat(matchId);
    history.replaceState(null, "", "/");
    renderStart(
      codeOf(failure) === Code.ResourceExhausted
        ? `Could not open your match: ${message(failure)}. Reload the page to try again.`
        : `Could not open your match: ${message(failure)}`,
    );
  }
}

/** Whether a call failed because this browser's seat is gone (given up, or the match no longer exists). */
function seatGone(failure: unknown): boolean {
  const code = codeOf(failure);
  return code === Code.NotFound || code === Code.Unauthenticated || code === Code.PermissionDenied;
}

// ---------------------------------------------------------------------------------------------
// Joining an open seat (an invite link, or the lobby)

async function openJoin(matchId: string): Promise<void> {
  if (savedSeat(matchId)) {
    navigate(`/?match=${matchId}`, true);
    return;
  }
  enterScreen();
  loading("Looking at the match…");
  let state: MatchState;
  try {
    state = await client.view(matchId);
  } catch (failure) {
    history.replaceState(null, "", "/");
    renderStart(`Could not open that match: ${message(failure)}`);
    return;
  }
  const match = state.match;
  document.body.dataset.turn = "join";
  const open = openSeats(match);
  const seatsList = h(
    "ul",
    { class: "seat-list" },
    (match?.seats ?? []).map((seat) => {
      const role = seat.taken ? seatRole(match, seat.seat) : "";
      return h(
        "li",
        { style: `--seat:${seatColour(seat.seat)}` },
        h("span", { class: "chip" }),
        `${seatLabel(seat.seat)}: `,
        seat.taken
          ? h("strong", {}, playerName(match, seat.seat))
          : seat.bot
            ? h("span", { class: "muted" }, "the AI's, not taken yet")
            : h("span", { class: "open-seat" }, "open"),
        role ? h("span", { class: "muted small" }, ` · ${role}`) : null,
      );
    }),
  );
  const body: Child[] = [];
  if (open.length) {
    const name = h("input", {
      id: "join-name",
      name: "name",
      value: savedName(),
      placeholder: "Guest",
      maxlength: 40,
      autocomplete: "nickname",
      "data-testid": "join-name",
    });
    const button = h("button", { type: "submit", class: "primary", "data-testid": "join" }, "Join the match");
    const alert = h("p", { class: "refusal", role: "alert", hidden: true });
    body.push(
      h(
        "form",
        {
          class: "join-form",
          onsubmit: (event: Event) => {
            event.preventDefault();
            button.disabled = true;
            button.textContent = "Joining…";
            void join(matchId, name.value.trim()).catch((failure: unknown) => {
              button.disabled = false;
              button.textContent = "Join the match";
              alert.hidden = false;
              alert.textContent = `Could not join: ${message(failure)}`;
            });
          },
        },
        h("label", { for: "join-name" }, "Your name"),
        name,
        button,
        alert,
      ),
    );
  } else if (match?.status === MatchStatus.FINISHED) {
    body.push(
      h("p", {}, "This match is over."),
      h("button", { class: "primary", onclick: () => navigate(`/?replay=${matchId}`) }, "Watch the replay"),
    );
  } else if (match?.status === MatchStatus.CANCELLED) {
    body.push(h("p", {}, "This match was cancelled before it started."));
  } else {
    body.push(
      h("p", {}, "Every seat of this match is taken."),
      h("button", { class: "primary", "data-testid": "watch", onclick: () => void watch(matchId) }, "Watch it"),
    );
  }
  app.replaceChildren(
    header(null),
    h(
      "main",
      { class: "start-page" },
      h(
        "section",
        { class: "card join", "data-testid": "join-card" },
        h("h2", {}, open.length ? "You are invited to a match" : "A match"),
        h(
          "p",
          { class: "muted" },
          `${match?.players ?? "?"} players · money ${moneyName(match)} · ${clockName(match)}`,
        ),
        seatsList,
        body,
        h("p", {}, h("a", { href: "/", onclick: (event: Event) => (event.preventDefault(), navigate("/")) }, "To the start page")),
      ),
    ),
  );
  (app.querySelector("#join-name") as HTMLInputElement | null)?.focus();
}

async function join(matchId: string, name: string): Promise<void> {
  const seat = await client.join(matchId, name || "Guest");
  saveSeat(seat);
  if (name) saveName(name);
  navigate(`/?match=${matchId}`, true);
}

async function watch(matchId: string): Promise<void> {
  enterScreen();
  loading("Opening the match…");
  try {
    await openGame(matchId, undefined);
  } catch (failure) {
    renderStart(`Could not watch that match: ${message(failure)}`);
  }
}

// ---------------------------------------------------------------------------------------------
// The start page

type SeatChoice = BotLevelName | "open";

interface StartOptions {
  players: number;
  others: SeatChoice[];
  money: "hidden" | "public";
  clock: ClockOptions | "none" | undefined;
  /** As typed; empty: "Player" (and nothing is remembered). */
  name: string;
}

const CLOCKS: Record<string, { label: string; clock: ClockOptions | "none" | undefined }> = {
  default: { label: "live (the server's default)", clock: undefined },
  blitz: { label: "quick: 20 s a turn + 1 min", clock: { turnSeconds: 20, reserveSeconds: 60 } },
  relaxed: { label: "relaxed: 5 min a turn + 10 min", clock: { turnSeconds: 300, reserveSeconds: 600 } },
  none: { label: "no clock", clock: "none" },
};

function renderStart(error = ""): void {
  const stop = new AbortController();
  enterScreen(() => stop.abort());
  document.body.dataset.turn = "start";
  delete document.body.dataset.version;
  delete document.body.dataset.match;
  app.replaceChildren(
    header(null),
    h(
      "main",
      { class: "start-page" },
      error ? h("p", { class: "refusal page-alert", role: "alert", "data-testid": "page-alert" }, error) : null,
      yourGamesCard(stop.signal),
      newMatchForm(),
      lobbyCard(stop.signal),
      finishedCard(stop.signal),
      rulesCard(),
    ),
  );
}

function newMatchForm(): HTMLElement {
  const players = h("select", { id: "players", name: "players", "data-testid": "players" });
  for (const n of [2, 3, 4]) players.append(h("option", { value: n }, `${n} players`));
  const others = h("div", { class: "levels" });
  const money = h(
    "select",
    { id: "money", name: "money", "data-testid": "money" },
    h("option", { value: "hidden" }, "hidden (you see only your own coins)"),
    h("option", { value: "public" }, "public (everyone sees every total)"),
  );
  const clock = h("select", { id: "clock", name: "clock", "data-testid": "clock-choice" });
  for (const [value, { label }] of Object.entries(CLOCKS)) clock.append(h("option", { value }, label));
  const name = h("input", {
    id: "name",
    name: "name",
    value: savedName(),
    placeholder: "Player",
    maxlength: 40,
    autocomplete: "nickname",
  });
  const drawSeats = (): void => {
    const count = Number(players.value);
    const previous = [...others.querySelectorAll("select")].map((select) => select.value);
    others.replaceChildren(
      ...Array.from({ length: count - 1 }, (_, i) => {
        const seat = i + 1;
        const select = h("select", { "data-testid": `level-${seat}`, "aria-label": `${seatLabel(seat)}: who plays it` });
        for (const level of Object.keys(BOT_LEVELS)) select.append(h("option", { value: level }, `${level} AI`));
        select.append(h("option", { value: "open" }, "a friend (invite link)"));
        select.value = previous[i] ?? "medium";
        return h(
          "label",
          { class: "level" },
          h("span", { class: "chip", style: `background:${seatColour(seat)}` }),
          seatLabel(seat),
          select,
        );
      }),
    );
  };
  players.addEventListener("change", drawSeats);
  drawSeats();

  const button = h("button", { type: "submit", class: "primary", "data-testid": "start" }, "Start the match");
  const alert = h("p", { class: "refusal", role: "alert", hidden: true, "data-testid": "start-refusal" });
  return h(
    "form",
    {
      class: "start card",
      onsubmit: (event: Event) => {
        event.preventDefault();
        button.disabled = true;
        button.textContent = "Starting…";
        alert.hidden = true;
        const options: StartOptions = {
          players: Number(players.value),
          others: [...others.querySelectorAll("select")].map((select) => select.value as SeatChoice),
          money: money.value === "public" ? "public" : "hidden",
          clock: CLOCKS[clock.value]?.clock,
          name: name.value.trim(),
        };
        startMatch(options).catch((failure: unknown) => {
          button.disabled = false;
          button.textContent = "Start the match";
          alert.hidden = false;
          alert.textContent = `Could not start a match: ${message(failure)}`;
        });
      },
    },
    h("h2", {}, "A new match"),
    h("label", { for: "name" }, "Your name"),
    name,
    h("label", { for: "players" }, "Players"),
    players,
    h("label", {}, h("span", { class: "chip", style: `background:${seatColour(0)}` }), "You are Seat 1; the others are"),
    others,
    h("label", { for: "money" }, "Money"),
    money,
    h("label", { for: "clock" }, "Clock"),
    clock,
    h(
      "p",
      { class: "hint" },
      "A turn that takes longer than its time draws on a reserve; when both run out, the AI plays your turns until you take your seat back.",
    ),
    button,
    alert,
    h(
      "p",
      { class: "hint" },
      "AI seats need an AI agent running (make run starts one). A friend's seat waits for them: you get a link to send. The first player is drawn at random.",
    ),
  );
}

async function startMatch(options: StartOptions): Promise<void> {
  const created = await client.createMatch({
    players: options.players,
    seats: ["open", ...options.others],
    money: options.money,
    ...(options.clock === undefined ? {} : { clock: options.clock }),
  });
  const seat = await client.join(created.matchId, options.name || "Player", 0);
  saveSeat(seat);
  if (options.name) saveName(options.name);
  navigate(`/?match=${seat.matchId}`);
}

// --- Your games --------------------------------------------------------------------------------

function yourGamesCard(signal: AbortSignal): HTMLElement | null {
  const seats = savedSeats();
  if (!seats.length) return null;
  const list = h("ul", { class: "match-list" });
  const card = h(
    "section",
    { class: "card games", "data-testid": "your-games" },
    h("h2", {}, "Your games"),
    list,
  );
  // Unfinished ones first; the newest first within each.
  const ordered = [...seats.filter((seat) => !seat.over), ...seats.filter((seat) => seat.over)];
  for (const saved of ordered) {
    const item = h(
      "li",
      { "data-testid": `your-game-${saved.matchId}` },
      h("span", { class: "muted" }, `${saved.matchId.slice(0, 8)}… loading`),
    );
    list.append(item);
    client.view(saved.matchId, saved.token, signal).then(
      (state) => {
        if (signal.aborted) return;
        if (isOver(state)) markOver(saved.matchId);
        item.replaceChildren(...yourGame(state, saved.matchId));
      },
      (failure: unknown) => {
        if (signal.aborted) return;
        if (seatGone(failure)) {
          forgetSeat(saved.matchId);
          item.remove();
          if (!list.childElementCount) card.remove();
          return;
        }
        item.replaceChildren(h("span", { class: "refusal-text" }, `${saved.matchId.slice(0, 8)}…: ${message(failure)}`));
      },
    );
  }
  return card;
}

function yourGame(state: MatchState, matchId: string): HTMLElement[] {
  const match = state.match;
  const you = state.yourSeat;
  const others = (match?.seats ?? [])
    .filter((seat) => seat.seat !== you)
    .map((seat) => (seat.taken ? playerName(match, seat.seat, you) : seat.bot ? "the AI" : "an open seat"));
  let status: string;
  const mine = you === undefined ? undefined : match?.seats[you];
  switch (match?.status) {
    case MatchStatus.WAITING:
      status = "waiting for players";
      break;
    case MatchStatus.PLAYING:
      status = mine?.left || mine?.forfeited ? "you left; the AI plays on" : isMyTurn(state) ? "your turn" : "in play";
      break;
    case MatchStatus.FINISHED: {
      const rank = you === undefined ? undefined : match.ranks[you];
      status = rank === undefined ? "finished" : `finished: you came ${ordinal(rank)}`;
      break;
    }
    case MatchStatus.CANCELLED:
      status = "cancelled";
      break;
    default:
      status = "";
  }
  const buttons: Child[] = [];
  if (!isOver(state)) {
    buttons.push(
      h(
        "button",
        { class: "primary small-button", "data-testid": `resume-${matchId}`, onclick: () => navigate(`/?match=${matchId}`) },
        "Resume",
      ),
    );
  } else {
    if (match?.status === MatchStatus.FINISHED) {
      buttons.push(
        h("button", { class: "secondary small-button", onclick: () => navigate(`/?replay=${matchId}`) }, "Replay"),
      );
    }
    buttons.push(
      h(
        "button",
        {
          class: "ghost-dark small-button",
          title: "Remove it from this list",
          onclick: (event: Event) => {
            forgetSeat(matchId);
            (event.target as HTMLElement).closest("li")?.remove();
          },
        },
        "Forget",
      ),
    );
  }
  return [
    h(
      "div",
      { class: "match-text" },
      h("strong", {}, `With ${others.join(", ") || "nobody"}`),
      h("span", { class: `muted small ${isMyTurn(state) ? "your-turn-text" : ""}` }, ` · ${status}`),
      h("span", { class: "muted small" }, ` · ${ago(match?.createdUnixMs)}`),
    ),
    h("div", { class: "match-buttons-inline" }, buttons),
  ];
}

// --- The lobby: open matches to join -----------------------------------------------------------

function lobbyCard(signal: AbortSignal): HTMLElement {
  const list = h("ul", { class: "match-list", "data-testid": "lobby" });
  const refresh = h("button", { type: "button", class: "ghost-dark small-button", "data-testid": "lobby-refresh" }, "Refresh");
  const fill = async (): Promise<void> => {
    refresh.disabled = true;
    try {
      const response = await client.listMatches({ status: "waiting", pageSize: 50 });
      if (signal.aborted) return;
      const yours = new Set(savedSeats().map((saved) => saved.matchId));
      const open = response.matches.filter((match) => openSeats(match).length > 0 && !yours.has(match.matchId));
      list.replaceChildren(
        ...(open.length
          ? open.map(lobbyItem)
          : [h("li", { class: "muted" }, "No open matches right now: start one with a friend's seat and share its link.")]),
      );
    } catch (failure) {
      if (!signal.aborted) list.replaceChildren(h("li", { class: "refusal-text" }, `Could not list matches: ${message(failure)}`));
    } finally {
      refresh.disabled = false;
    }
  };
  refresh.addEventListener("click", () => void fill());
  list.append(h("li", { class: "muted" }, "Loading…"));
  void fill();
  return h(
    "section",
    { class: "card games" },
    h("h2", { class: "with-button" }, h("span", {}, "Open matches"), refresh),
    list,
  );
}

function lobbyItem(match: MatchSummary): HTMLElement {
  const hosts = match.seats.filter((seat) => seat.taken).map((seat) => playerName(match, seat.seat));
  const open = openSeats(match).length;
  return h(
    "li",
    { "data-testid": `lobby-${match.matchId}` },
    h(
      "div",
      { class: "match-text" },
      h("strong", {}, hosts.length ? `${hosts.join(", ")}'s match` : "A match"),
      h(
        "span",
        { class: "muted small" },
        ` · ${match.players} players · ${open} open seat${open === 1 ? "" : "s"} · ${clockName(match)} · ${ago(match.createdUnixMs)}`,
      ),
    ),
    h(
      "div",
      { class: "match-buttons-inline" },
      h(
        "button",
        { class: "primary small-button", "data-testid": `lobby-join-${match.matchId}`, onclick: () => navigate(`/?join=${match.matchId}`) },
        "Join",
      ),
    ),
  );
}

// --- Finished matches, to replay ---------------------------------------------------------------

function finishedCard(signal: AbortSignal): HTMLElement {
  const list = h("ul", { class: "match-list", "data-testid": "finished" });
  list.append(h("li", { class: "muted" }, "Loading…"));
  client.listMatches({ status: "finished", pageSize: 8 }).then(
    (response) => {
      if (signal.aborted) return;
      list.replaceChildren(
        ...(response.matches.length
          ? response.matches.map((match) =>
              h(
                "li",
                { "data-testid": `finished-${match.matchId}` },
                h(
                  "div",
                  { class: "match-text" },
                  h("strong", {}, match.seats.map((seat) => playerName(match, seat.seat)).join(" vs ")),
                  h("span", { class: "muted small" }, ` · ${match.version} moves · ${ago(match.createdUnixMs)}`),
                ),
                h(
                  "div",
                  { class: "match-buttons-inline" },
                  h(
                    "button",
                    {
                      class: "secondary small-button",
                      "data-testid": `replay-${match.matchId}`,
                      onclick: () => navigate(`/?replay=${match.matchId}`),
                    },
                    "Replay",
                  ),
                ),
              ),
            )
          : [h("li", { class: "muted" }, "None yet.")]),
      );
    },
    (failure: unknown) => {
      if (!signal.aborted) list.replaceChildren(h("li", { class: "refusal-text" }, `Could not list matches: ${message(failure)}`));
    },
  );
  return h("section", { class: "card games" }, h("h2", {}, "Finished matches"), list);
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
        "Open a stand: pick a tile from your hand, then a highlighted square. Each square shows what it costs and what its customers pay at once.",
      ),
      h(
        "li",
        {},
        "Bring customers: pick a customer from the display, then a highlighted entrance. Every stand in that line with a good they want earns its owner coins: each entrance shows who earns what.",
      ),
      h("li", {}, "Open a restaurant from your hand: adjacent stands of its good earn more. Or simply take a coin."),
      h("li", {}, "Most coins at the end wins; restaurants left in hand cost 1 each."),
      h(
        "li",
        {},
        "With a clock, a turn that runs over its time draws on your reserve; when both run out the AI plays your turns until you take your seat back.",
      ),
    ),
  );
}

// ---------------------------------------------------------------------------------------------
// Words

function moneyName(match: MatchSummary | undefined): string {
  const options = match?.options.case === "mercado" ? match.options.value : undefined;
  return options?.money === Money.PUBLIC ? "public" : "hidden";
}

function clockName(match: MatchSummary | undefined): string {
  const clock = clockOf(match);
  if (!clock) return "no clock";
  return `${clock.turnSeconds} s a turn${clock.reserveSeconds ? ` + ${formatClock(clock.reserveSeconds * 1000)}` : ""}`;
}

function ago(createdMs: bigint | undefined): string {
  if (createdMs === undefined) return "";
  const minutes = Math.floor((Date.now() - Number(createdMs)) / 60_000);
  if (minutes < 1) return "just now";
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h ago`;
  return `${Math.floor(hours / 24)} days ago`;
}

setRouter(route);
route();
