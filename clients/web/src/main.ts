// The page: start a match (against the AI, or a friend with an invite link) or find one (quick
// match), resume your games, join open matches, play by clicking and replay finished matches,
// over gRPC-Web. The browser plays as a guest player (player.ts): its name, rating and the
// leaderboard are on the start page, and every seat it takes is bound to it.
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
  displayRating,
  type FindMatchOptions,
  type FindMatchUpdate,
  Game,
  type GameName,
  gameNamed,
  isMyTurn,
  isOver,
  type LeaderboardEntry,
  type MatchState,
  MatchStatus,
  type MatchSummary,
  matchFound,
  Money,
  openSeats,
  Seat,
  seatLabel,
  seatsOf,
} from "@mercado/client";
import { h, type Child } from "./dom.js";
import { seatColour } from "./labels.js";
import { currentPlayer, ensurePlayer, loadPlayer, type Profile, type SignedIn, signIn } from "./player.js";
import { openGame } from "./play.js";
import { openReplay } from "./replay.js";
import { forgetSeat, isMatchId, markOver, savedGame, saveGame, savedName, savedSeat, savedSeats, saveSeat } from "./storage.js";
import {
  app,
  client,
  enterScreen,
  formatClock,
  GAMES,
  gameOf,
  header,
  message,
  navigate,
  ordinal,
  playerName,
  seatRole,
  setRouter,
  SITE,
} from "./ui.js";
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
  app.replaceChildren(header(undefined), h("main", { class: "start-page" }, h("p", { class: "card loading" }, text)));
}

/**
 * A match this browser holds a seat in (saved, or the player's: its token finds the seat): play
 * it. Without a seat: the join page says what is possible.
 */
async function openMatch(matchId: string): Promise<void> {
  const saved = savedSeat(matchId);
  const me = currentPlayer();
  if (!saved && !me) {
    navigate(`/?join=${matchId}`, true);
    return;
  }
  enterScreen();
  loading("Opening your match…");
  try {
    let seat = saved && new Seat(client, matchId, saved.seat, saved.token);
    if (!seat && me) {
      seat = await client.seatOf(matchId, me.token);
      if (!seat) {
        navigate(`/?join=${matchId}`, true);
        return;
      }
      saveSeat({ ...seat, playerId: me.playerId });
    }
    await openGame(matchId, seat);
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
  const me = currentPlayer();
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
  if (me && seatsOf(match, me.playerId).length) {
    navigate(`/?match=${matchId}`, true); // the player's own seat
    return;
  }
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
    // A player joins under its own name; a browser without one signs in as a guest first, with the name given here.
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
        me
          ? h("p", { class: "muted", "data-testid": "join-as" }, "You join as ", h("strong", {}, me.name), ".")
          : [h("label", { for: "join-name" }, "Your name"), name],
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
  document.title = `${GAMES[gameOf(match?.game)].title} · ${SITE}`;
  app.replaceChildren(
    header(gameOf(match?.game)),
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
          `${gameName(match)} · ${match?.players ?? "?"} players${gameOf(match?.game) === "mercado" ? ` · money ${moneyName(match)}` : ""} · ${clockName(match)}`,
        ),
        seatsList,
        body,
        h("p", {}, h("a", { href: "/", onclick: (event: Event) => (event.preventDefault(), navigate("/")) }, "To the start page")),
      ),
    ),
  );
  (app.querySelector("#join-name") as HTMLInputElement | null)?.focus();
}

/** Take the match's first open seat as the player (signing in as a guest named `name` first if need be). */
async function join(matchId: string, name: string): Promise<void> {
  const me = await ensurePlayer(name);
  const seat = await client.join(matchId, "", undefined, me.token);
  saveSeat({ matchId, seat: seat.seat, token: me.token, playerId: me.playerId });
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
  game: GameName;
  players: number;
  others: SeatChoice[];
  money: "hidden" | "public";
  clock: ClockOptions | "none" | undefined;
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
  delete document.body.dataset.phase;
  document.title = `${SITE}: ${Object.values(GAMES).map((game) => game.title).join(", ")}`;
  const you = playerCard(stop.signal);
  app.replaceChildren(
    header(undefined),
    h(
      "main",
      { class: "start-page" },
      error ? h("p", { class: "refusal page-alert", role: "alert", "data-testid": "page-alert" }, error) : null,
      you.card,
      quickMatchCard(stop.signal, you.refresh),
      yourGamesCard(stop.signal),
      newMatchForm(),
      leaderboardCard(stop.signal),
      lobbyCard(stop.signal),
      finishedCard(stop.signal),
      rulesCard(),
    ),
  );
}

/** The name typed in the player card while this browser has no player yet ("" once it has one). */
function typedName(): string {
  return (document.getElementById("name") as HTMLInputElement | null)?.value.trim() ?? "";
}

// --- You: the guest player this browser plays as -----------------------------------------------

/**
 * The player's name, display rating and record; without a player yet, the name to sign in with
 * (a browser that remembers a name from before signs in with it at once), after which the start
 * page is drawn again for the player. Anything that needs a player (a match, a quick match,
 * joining) signs in with the name typed here; `refresh` redraws the card after such a sign-in.
 */
function playerCard(signal: AbortSignal): { card: HTMLElement; refresh: () => void } {
  const card = h("section", { class: "card you", "data-testid": "you" });
  const show = (): void => {
    if (signal.aborted) return;
    const me = currentPlayer();
    if (!me && !savedName()) {
      card.replaceChildren(...signInForm(signal, () => renderStart()));
      return;
    }
    card.replaceChildren(
      h("h2", {}, "You"),
      h("p", { class: "you-name" }, h("strong", { "data-testid": "you-name" }, me?.name ?? savedName())),
      h("p", { class: "muted", "data-testid": "you-loading" }, me ? "Loading your ratings…" : "Signing in…"),
    );
    loadPlayer(signal).then(
      (profile) => {
        if (signal.aborted) return;
        // Signed in just now with the name remembered from before: the whole page is the player's.
        if (!me) renderStart();
        else card.replaceChildren(...playerDetails(profile, signal));
      },
      (failure: unknown) => {
        if (signal.aborted) return;
        const what = me ? "Could not load your player" : "Could not sign in";
        card.append(h("p", { class: "refusal-text", role: "alert" }, `${what}: ${message(failure)}`));
      },
    );
  };
  show();
  return { card, refresh: show };
}

/**
 * The name to sign in with as a new guest player. `current`: the player this browser plays as now,
 * which the new one replaces (it keeps its rating and games; this browser no longer plays as it).
 */
function signInForm(signal: AbortSignal, done: () => void, current?: SignedIn): HTMLElement[] {
  const name = h("input", {
    id: "name",
    name: "name",
    placeholder: "Guest",
    maxlength: 40,
    autocomplete: "nickname",
    "data-testid": "name",
  });
  const button = h("button", { type: "submit", class: "primary", "data-testid": "sign-in" }, current ? "Play under this name" : "Play as a guest");
  const alert = h("p", { class: "refusal", role: "alert", hidden: true });
  return [
    h(
      "h2",
      { class: "with-button" },
      h("span", {}, current ? "A new name" : "Welcome"),
      current
        ? h("button", { type: "button", class: "ghost-dark small-button", "data-testid": "keep-player", onclick: done }, `Stay ${current.name}`)
        : null,
    ),
    h(
      "form",
      {
        class: "you-form",
        onsubmit: (event: Event) => {
          event.preventDefault();
          button.disabled = true;
          alert.hidden = true;
          signIn(name.value).then(done, (failure: unknown) => {
            if (signal.aborted) return;
            button.disabled = false;
            alert.hidden = false;
            alert.textContent = `Could not sign in: ${message(failure)}`;
          });
        },
      },
      h("label", { for: "name" }, "Your name"),
      h("div", { class: "you-row" }, name, button),
      alert,
    ),
    h(
      "p",
      { class: "hint" },
      current
        ? `A new guest player, with a new rating. ${current.name}'s rating and games stay on the server, but this browser will play as the new one.`
        : "You play as a guest: this browser keeps your player, your rating and your games. Starting a match signs you in too.",
    ),
  ];
}

/** The player's name, and its display rating and record in each game (ratings are per game). */
function playerDetails(profile: Profile, signal: AbortSignal): HTMLElement[] {
  const { me, ratings } = profile;
  const card = (): HTMLElement | null => document.querySelector('[data-testid="you"]');
  const rename = h(
    "button",
    {
      type: "button",
      class: "ghost-dark small-button",
      "data-testid": "new-player",
      title: "Play as a new guest player, under another name",
      onclick: () => {
        card()?.replaceChildren(...signInForm(signal, () => renderStart(), me));
        (document.getElementById("name") as HTMLInputElement | null)?.focus();
      },
    },
    "New name",
  );
  const rows = (Object.keys(GAMES) as GameName[]).map((game) => {
    const player = ratings[game];
    const games = player.ratedMatches;
    return h(
      "li",
      { class: "you-game", "data-testid": `you-game-${game}` },
      h("span", { class: "you-game-name" }, GAMES[game].title),
      h(
        "span",
        { class: "rating", "data-testid": `you-rating-${game}`, title: "Your display rating in this game: mu − 3·sigma, at least 0; its leaderboard ranks by mu − 3·sigma" },
        `rating ${displayRating(player).toFixed(1)}`,
      ),
      h("span", { class: "muted small you-record", "data-testid": `you-record-${game}` }, `${games} rated game${games === 1 ? "" : "s"} · ${player.wins} win${player.wins === 1 ? "" : "s"}`),
    );
  });
  return [
    h("h2", { class: "with-button" }, h("span", {}, "You"), rename),
    h("p", { class: "you-name" }, h("strong", { "data-testid": "you-name" }, ratings.mercado.displayName || me.name)),
    h("ul", { class: "you-ratings", "data-testid": "you-ratings" }, rows),
  ];
}

// --- Quick match: matchmaking --------------------------------------------------------------------

/**
 * Find a match of 2 to 4 players (FindMatch): the page waits in the queue, showing how long, until
 * the server has made the match, then opens it. Cancel (or leaving the page) closes the stream,
 * which leaves the queue. With "allow AI", bots take the seats nobody queued for after a wait.
 */
function quickMatchCard(page: AbortSignal, signedInNow: () => void): HTMLElement {
  const game = gameSelect("quick-game");
  const players = h("select", { id: "quick-players", "data-testid": "quick-players" });
  for (const n of [2, 3, 4]) players.append(h("option", { value: n }, `${n} players`));
  const allowAi = h("input", { type: "checkbox", id: "quick-ai", "data-testid": "quick-ai" });
  const button = h("button", { type: "submit", class: "primary", "data-testid": "quick-start" }, "Quick match");
  const alert = h("p", { class: "refusal", role: "alert", hidden: true, "data-testid": "quick-refusal" });
  const elapsed = h("span", { class: "clock quick-clock", "data-testid": "quick-elapsed" }, "0:00");
  const detail = h("span", { class: "muted small", "data-testid": "quick-detail" }, "");
  const cancel = h("button", { type: "button", class: "secondary", "data-testid": "quick-cancel" }, "Cancel");
  const waiting = h(
    "div",
    { class: "quick-waiting", "data-testid": "quick-waiting", hidden: true, role: "status" },
    h("p", { class: "quick-line" }, h("span", { class: "spinner", "aria-hidden": "true" }), h("strong", {}, "Looking for players…"), elapsed),
    detail,
    cancel,
  );
  const controls = h(
    "div",
    { class: "quick-controls" },
    h("label", { for: "quick-game" }, "Game"),
    game,
    h("label", { for: "quick-players" }, "Players"),
    players,
    h("label", { class: "check" }, allowAi, "allow AI: bots fill the seats nobody takes after a wait"),
    button,
  );
  let searching: AbortController | undefined;
  cancel.addEventListener("click", () => searching?.abort());

  const find = async (): Promise<void> => {
    const stop = new AbortController();
    searching = stop;
    const signal = AbortSignal.any([page, stop.signal]);
    const count = Number(players.value);
    alert.hidden = true;
    button.disabled = true;
    let ticker: ReturnType<typeof setInterval> | undefined;
    try {
      const hadPlayer = currentPlayer() !== undefined;
      const me = await ensurePlayer(typedName());
      if (!hadPlayer) signedInNow();
      if (signal.aborted) return;
      controls.hidden = true;
      waiting.hidden = false;
      delete waiting.dataset.found;
      const started = Date.now();
      const tick = (): void => {
        elapsed.textContent = formatClock(Date.now() - started - 999); // counts up from 0:00
      };
      tick();
      ticker = setInterval(tick, 250);
      detail.textContent = `A match of ${count} players${allowAi.checked ? ", bots allowed" : ""}.`;
      const options = { game: gameNamed(game.value) ?? Game.MERCADO, players: count, allowAi: allowAi.checked };
      for await (const update of queue(me, options, signal)) {
        if (update.kind.case === "queued") {
          const { queuedPlayers } = update.kind.value;
          detail.textContent =
            `A match of ${count} players${allowAi.checked ? ", bots allowed" : ""}: ` +
            `${queuedPlayers} ${queuedPlayers === 1 ? "player" : "players"} looking.`;
        }
        const found = matchFound(update);
        if (found) {
          waiting.dataset.found = found.matchId;
          saveSeat({ matchId: found.matchId, seat: found.seat, token: me.token, playerId: me.playerId });
          navigate(`/?match=${found.matchId}`);
          return;
        }
      }
    } catch (failure) {
      if (stop.signal.aborted || page.aborted) return; // cancelled, or the page was left
      alert.hidden = false;
      alert.textContent = `Could not find a match: ${message(failure)}`;
    } finally {
      clearInterval(ticker);
      if (searching === stop) searching = undefined;
      if (!page.aborted) {
        controls.hidden = false;
        waiting.hidden = true;
        button.disabled = false;
      }
    }
  };

  return h(
    "form",
    {
      class: "card quick",
      "data-testid": "quick-match",
      onsubmit: (event: Event) => {
        event.preventDefault();
        if (!searching) void find();
      },
    },
    h("h2", {}, "Quick match"),
    h("p", { class: "hint" }, "Play people of about your rating: the server finds them and starts the match."),
    controls,
    waiting,
    alert,
  );
}

/**
 * FindMatch's updates. A queue of this player that is still open (one just cancelled, whose
 * stream the server has not seen closed yet) refuses a new one with ALREADY_EXISTS: that is tried
 * again for a few seconds; a queue open elsewhere (another tab) is refused with the server's reason then.
 */
async function* queue(me: SignedIn, options: FindMatchOptions, signal: AbortSignal): AsyncGenerator<FindMatchUpdate> {
  const until = Date.now() + 3_000;
  for (;;) {
    let received = false;
    try {
      for await (const update of client.findMatch(options, me.token, { signal })) {
        received = true;
        yield update;
      }
      return;
    } catch (failure) {
      if (received || codeOf(failure) !== Code.AlreadyExists || Date.now() > until) throw failure;
      await new Promise((resolve) => setTimeout(resolve, 300));
      if (signal.aborted) throw failure;
    }
  }
}

// --- A new match, set up by hand ----------------------------------------------------------------

/** A choice of the game, its id also its test id; it starts at the game the start page shows. */
function gameSelect(id: string): HTMLSelectElement {
  const select = h("select", { id, name: id, "data-testid": id });
  for (const [value, { title, pitch }] of Object.entries(GAMES)) select.append(h("option", { value }, `${title} (${pitch})`));
  select.value = shownGame();
  return select;
}

function newMatchForm(): HTMLElement {
  const game = gameSelect("game");
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
  // Money is Mercado's option; the other games take their rules' defaults.
  const moneyLabel = h("label", { for: "money" }, "Money");
  game.addEventListener("change", () => {
    moneyLabel.hidden = money.hidden = game.value !== "mercado";
  });

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
          game: game.value as GameName,
          players: Number(players.value),
          others: [...others.querySelectorAll("select")].map((select) => select.value as SeatChoice),
          money: money.value === "public" ? "public" : "hidden",
          clock: CLOCKS[clock.value]?.clock,
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
    h("label", { for: "game" }, "Game"),
    game,
    h("label", { for: "players" }, "Players"),
    players,
    h("label", {}, h("span", { class: "chip", style: `background:${seatColour(0)}` }), "You are Seat 1; the others are"),
    others,
    moneyLabel,
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

/** Create the match as the player (signing in first if need be), take seat 1 and open it. */
async function startMatch(options: StartOptions): Promise<void> {
  const me = await ensurePlayer(typedName());
  saveGame(options.game);
  const created = await client.createMatch(
    {
      game: gameNamed(options.game) ?? Game.MERCADO,
      players: options.players,
      seats: ["open", ...options.others],
      money: options.money,
      ...(options.clock === undefined ? {} : { clock: options.clock }),
    },
    me.token,
  );
  const seat = await client.join(created.matchId, "", 0, me.token);
  saveSeat({ matchId: seat.matchId, seat: seat.seat, token: me.token, playerId: me.playerId });
  navigate(`/?match=${seat.matchId}`);
}

// --- The leaderboard ----------------------------------------------------------------------------

const LEADERS = 10;

/** The game whose leaderboard and finished matches the start page shows: the one last chosen. */
function shownGame(): GameName {
  const saved = savedGame();
  return saved in GAMES ? (saved as GameName) : "mercado";
}

/**
 * A card of one game's list, with a tab for each game: `fill` draws the chosen game's list (its
 * title names the game) and is called again when another tab is chosen, which the page remembers.
 */
function perGameCard(testId: string, heading: string, list: HTMLElement, fill: (game: GameName) => void, after: Child = null): HTMLElement {
  const title = h("h2", {}, "");
  const tabs = h("div", { class: "game-tabs", role: "tablist" });
  const show = (game: GameName): void => {
    title.textContent = `${heading} · ${GAMES[game].word}`;
    for (const tab of tabs.children) tab.setAttribute("aria-selected", String((tab as HTMLElement).dataset.game === game));
    list.replaceChildren(h("li", { class: "muted" }, "Loading…"));
    list.dataset.game = game;
    fill(game);
  };
  for (const [game, { word }] of Object.entries(GAMES) as [GameName, (typeof GAMES)[GameName]][]) {
    tabs.append(
      h(
        "button",
        {
          type: "button",
          role: "tab",
          class: "game-tab",
          "data-game": game,
          "data-testid": `${testId}-tab-${game}`,
          onclick: () => {
            saveGame(game);
            show(game);
          },
        },
        word,
      ),
    );
  }
  show(shownGame());
  return h("section", { class: "card games per-game", "data-testid": `${testId}-card` }, title, tabs, list, after);
}

/** The top 10 of one game's ladder (people and bot levels), the player's row highlighted. */
function leaderboardCard(signal: AbortSignal): HTMLElement {
  const note = h("p", { class: "muted small", hidden: true, "data-testid": "leaderboard-you" });
  const list = h("ol", { class: "leaders", "data-testid": "leaderboard" });
  return perGameCard(
    "leaderboard",
    "Leaderboard",
    list,
    (game) => {
      note.hidden = true;
      const request = { pageSize: LEADERS, pageToken: "", game };
      client.retrying(() => client.service.getLeaderboard(request, client.callOptions(undefined, signal)), signal).then(
        (response) => {
          if (signal.aborted || list.dataset.game !== game) return;
          const me = currentPlayer();
          list.replaceChildren(
            ...(response.entries.length
              ? response.entries.map((entry) => leaderRow(entry, me))
              : [h("li", { class: "muted empty" }, `Nobody is rated in ${GAMES[game].word} yet: finish a rated match to be the first.`)]),
          );
          if (me && !response.entries.some((entry) => entry.player?.playerId === me.playerId)) {
            note.hidden = false;
            note.textContent = `You are not on it yet: finish a rated match of ${GAMES[game].word} (against people or bots) to be ranked.`;
          }
        },
        (failure: unknown) => {
          if (!signal.aborted) list.replaceChildren(h("li", { class: "refusal-text" }, `Could not load the leaderboard: ${message(failure)}`));
        },
      );
    },
    note,
  );
}

function leaderRow(entry: LeaderboardEntry, me: SignedIn | undefined): HTMLElement {
  const player = entry.player;
  const mine = !!me && player?.playerId === me.playerId;
  return h(
    "li",
    { class: mine ? "you" : "", "data-testid": `leader-${entry.rank}`, ...(mine ? { "data-you": "true" } : {}) },
    h("span", { class: "rank" }, `${entry.rank}.`),
    h("span", { class: "leader-name" }, player?.displayName ?? "?", mine ? h("span", { class: "muted small" }, " (you)") : null),
    h("span", { class: "leader-rating", title: `${player?.ratedMatches ?? 0} rated games` }, displayRating(player).toFixed(1)),
  );
}

// --- Your games --------------------------------------------------------------------------------

/**
 * The matches this browser holds a seat in (saved seats) and the player's matches
 * (ListMatches(player_id): also those it did not take in this browser), unfinished ones first.
 */
function yourGamesCard(signal: AbortSignal): HTMLElement | null {
  const seats = savedSeats();
  const me = currentPlayer();
  if (!seats.length && !me) return null;
  const list = h("ul", { class: "match-list" });
  const card = h(
    "section",
    { class: "card games", "data-testid": "your-games" },
    h("h2", {}, "Your games"),
    list,
  );
  const empty = (): void => {
    if (list.childElementCount) return;
    if (me) list.append(h("li", { class: "muted", "data-testid": "no-games" }, "No games yet: start a match or a quick match."));
    else card.remove();
  };
  const shown = new Set<string>();
  /** A list item for a match, filled from its view with `token`. */
  const add = (matchId: string, token: string, forgettable: boolean, over: boolean): void => {
    shown.add(matchId);
    const item = h(
      "li",
      { "data-testid": `your-game-${matchId}`, ...(over ? { "data-over": "true" } : {}) },
      h("span", { class: "muted" }, `${matchId.slice(0, 8)}… loading`),
    );
    // Unfinished ones before the first finished one.
    list.insertBefore(item, over ? null : list.querySelector("li[data-over]"));
    client.view(matchId, token, signal).then(
      (state) => {
        if (signal.aborted) return;
        if (isOver(state)) markOver(matchId);
        item.replaceChildren(...yourGame(state, matchId, forgettable));
      },
      (failure: unknown) => {
        if (signal.aborted) return;
        if (seatGone(failure)) {
          forgetSeat(matchId);
          item.remove();
          empty();
          return;
        }
        item.replaceChildren(h("span", { class: "refusal-text" }, `${matchId.slice(0, 8)}…: ${message(failure)}`));
      },
    );
  };
  // Unfinished ones first; the newest first within each. A saved seat of the player is listed
  // by the server too: only seats without a player may be forgotten here.
  const ordered = [...seats.filter((seat) => !seat.over), ...seats.filter((seat) => seat.over)];
  for (const saved of ordered) add(saved.matchId, saved.token, !saved.playerId || saved.playerId !== me?.playerId, !!saved.over);
  if (me) {
    client.listMatches({ playerId: me.playerId, pageSize: 10, signal }).then(
      (response) => {
        if (signal.aborted) return;
        for (const match of response.matches) {
          if (shown.has(match.matchId) || !seatsOf(match, me.playerId).length) continue;
          const over = match.status === MatchStatus.FINISHED || match.status === MatchStatus.CANCELLED;
          add(match.matchId, me.token, false, over);
        }
        list.querySelector('[data-testid="no-games"]')?.remove();
        empty();
      },
      () => empty(), // the saved seats still show
    );
  } else {
    empty();
  }
  return card;
}
/** A match of Your games: who plays, how it stands, and Resume or Replay (and Forget, for a seat without a player). */
function yourGame(state: MatchState, matchId: string, forgettable: boolean): HTMLElement[] {
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
    if (forgettable) {
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
  }
  return [
    h(
      "div",
      { class: "match-text" },
      h("strong", {}, `${gameName(match)} with ${others.join(", ") || "nobody"}`),
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
      const me = currentPlayer();
      const open = response.matches.filter(
        (match) =>
          openSeats(match).length > 0 && !yours.has(match.matchId) && !(me && seatsOf(match, me.playerId).length),
      );
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
        ` · ${gameName(match)} · ${match.players} players · ${open} open seat${open === 1 ? "" : "s"} · ${clockName(match)} · ${ago(match.createdUnixMs)}`,
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

/** One game's latest finished matches, to replay. */
function finishedCard(signal: AbortSignal): HTMLElement {
  const list = h("ul", { class: "match-list", "data-testid": "finished" });
  return perGameCard("finished", "Finished matches", list, (game) => {
    const request = { status: MatchStatus.FINISHED, pageSize: 8, pageToken: "", playerId: "", game: gameNamed(game) ?? Game.MERCADO };
    client.retrying(() => client.service.listMatches(request, client.callOptions(undefined, signal)), signal).then(
      (response) => {
        if (signal.aborted || list.dataset.game !== game) return;
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
                    h("span", { class: "muted small" }, ` · ${gameName(match)} · ${match.version} moves · ${ago(match.createdUnixMs)}`),
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
            : [h("li", { class: "muted" }, `No ${GAMES[game].word} match has finished yet.`)]),
        );
      },
      (failure: unknown) => {
        if (!signal.aborted) list.replaceChildren(h("li", { class: "refusal-text" }, `Could not list matches: ${message(failure)}`));
      },
    );
  });
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
        "Oregano: declare two actions each turn (attract, resource, sell, acquire; a guide says what each would give), then play each on the areas: a shop to build, then a highlighted cell; a merchant to take its cards; a shop to sell. Gold, shops by level and bonus cards score.",
      ),
      h(
        "li",
        {},
        "Leilão: everyone bids at once, sealed: pick a card, maybe an extra card (5 points), confirm. Highest bids pick stalls first; stalls score their number, one of each colour makes a set (+10), the cards you bid cost theirs.",
      ),
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

/** The game of a match, in a word. */
const gameName = (match: MatchSummary | undefined): string => GAMES[gameOf(match?.game)].word;

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
