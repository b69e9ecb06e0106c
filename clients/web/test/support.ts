// What the browser tests share: real `mercado serve` (gRPC-Web and the built page on its web
// port) and `mercado ai` processes from the project venv, Debian's Chromium driven by
// playwright-core, and ways to play by clicking. No fixed sleeps: every wait is for a condition.

import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { type Browser, type BrowserContextOptions, chromium, type Page } from "playwright-core";

export const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";
const HERE = dirname(fileURLToPath(import.meta.url));
const PACKAGE = resolve(HERE, "..");
const REPO = resolve(PACKAGE, "../..");
const MERCADO = join(REPO, ".venv/bin/mercado");
const DIST = join(PACKAGE, "dist");
export const RESULTS = join(PACKAGE, "test-results");
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** Why the browser tests cannot run here, or false. */
export const skip = existsSync(CHROMIUM)
  ? false
  : "Chromium not found: install it with `apt-get install -y chromium` to run the browser test";

export interface Running {
  child: ChildProcess;
  log: string[];
}

/** Run `mercado args` (with MERCADO_AGENT_KEY `agentKey`) until `until` accepts one of its log records. */
function start(
  args: string[],
  agentKey: string,
  until?: (record: Record<string, unknown>) => boolean,
): Promise<[Running, Record<string, unknown>]> {
  const child = spawn(MERCADO, args, {
    cwd: REPO,
    stdio: ["ignore", "ignore", "pipe"],
    // The agent key by environment, not on the command line (where `ps` would show it).
    env: { ...process.env, PYTHONUNBUFFERED: "1", MERCADO_AGENT_KEY: agentKey },
  });
  const running: Running = { child, log: [] };
  return new Promise((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`${args[0]} did not start:\n${running.log.join("\n")}`)), 30_000);
    createInterface({ input: child.stderr! }).on("line", (line) => {
      running.log.push(line);
      let record: Record<string, unknown> = {};
      try {
        record = JSON.parse(line) as Record<string, unknown>;
      } catch {
        return; // not a log record (a traceback): kept in the log
      }
      if (!until || until(record)) {
        clearTimeout(timer);
        done([running, record]);
      }
    });
    child.once("error", fail);
    child.once("exit", (code) => fail(new Error(`${args[0]} exited (${code}):\n${running.log.join("\n")}`)));
  });
}

export async function stop(running: Running | undefined): Promise<void> {
  if (!running || running.child.exitCode !== null || running.child.signalCode !== null) return;
  const exited = new Promise((done) => running.child.once("exit", done));
  running.child.kill("SIGTERM");
  await exited;
}

/** A fresh agent key for one server and its agent: the server's bot seats need one. */
const newAgentKey = (): string => randomBytes(32).toString("hex");

export interface Server {
  server: Running;
  port: number;
  webPort: number;
  agentKey: string;
  url: string;
}

/**
 * `mercado serve` on free ports, serving the built page (and gRPC-Web) from DIST; `args` adds
 * options. It lets callers without a player take seats (`--allow-anonymous`) unless
 * `options.anonymous` is false: a server of players only, as `mercado serve` is by default (the
 * page signs in as a guest player, so it plays on either).
 */
export async function startServer(scratch: string, args: string[] = [], options: { anonymous?: boolean } = {}): Promise<Server> {
  assert.ok(existsSync(join(DIST, "index.html")), "the page is not built: run `npm run build` first");
  assert.ok(existsSync(MERCADO), `${MERCADO} is missing: run \`make setup\` first`);
  const agentKey = newAgentKey();
  const [server, listening] = await start(
    [
      "serve",
      "--port",
      "0",
      "--web-port",
      "0",
      "--web-root",
      DIST,
      "--db",
      join(scratch, "mercado.db"),
      ...(options.anonymous === false ? [] : ["--allow-anonymous"]),
      ...args,
    ],
    agentKey,
    (record) => record.message === "listening",
  );
  const port = Number(listening.port);
  const webPort = Number(listening.web_port);
  if (!(webPort > 0)) {
    await stop(server);
    assert.fail(`no web port in ${JSON.stringify(listening)}`);
  }
  return { server, port, webPort, agentKey, url: `http://127.0.0.1:${webPort}/` };
}

/**
 * `mercado ai` for a server, with a state file of its own. Resolves once it logged "agent
 * started", which it does after its first heartbeat: from then on the server accepts bot seats.
 */
export async function startAgent(scratch: string, server: Server, levels: string[] = ["easy"]): Promise<Running> {
  const [agent] = await start(
    [
      "ai",
      "--server",
      `127.0.0.1:${server.port}`,
      "--state-file",
      join(scratch, `ai-state-${randomBytes(4).toString("hex")}.json`),
      "--max-matches",
      "4",
      "--workers",
      "1",
      "--log-level",
      "info",
      ...levels.flatMap((level) => ["--level", level]),
    ],
    server.agentKey,
    (record) => record.message === "agent started",
  );
  return agent;
}

export function scratchDir(): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), "mercado-web-"));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
}

/** The uncaught errors of each page made by newPage. */
const pageErrors = new WeakMap<Page, string[]>();

/** A page in a context of its own that records uncaught errors (checked with assertNoErrors). */
export async function newPage(
  browser: Browser,
  options: BrowserContextOptions = { viewport: { width: 1440, height: 1000 } },
): Promise<Page> {
  const context = await browser.newContext(options);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(String(error)));
  pageErrors.set(page, errors);
  return page;
}

export function assertNoErrors(page: Page): void {
  assert.deepEqual(pageErrors.get(page) ?? [], [], "the page threw");
}

/**
 * Start a match from the start page: seat 2.. as `others` ("easy", "medium", "hard" or "open").
 * `name`: the guest player's name, typed in the "You" card of a browser that has no player yet
 * (starting the match signs in with it).
 */
export async function startMatch(
  page: Page,
  others: string[],
  options: { clock?: string; name?: string; game?: "mercado" | "oregano" | "leilao" } = {},
): Promise<void> {
  if (options.name) await page.locator("#name").fill(options.name);
  if (options.game) await page.getByTestId("game").selectOption(options.game);
  await page.getByTestId("players").selectOption(String(others.length + 1));
  for (const [i, kind] of others.entries()) await page.getByTestId(`level-${i + 1}`).selectOption(kind);
  if (options.clock) await page.getByTestId("clock-choice").selectOption(options.clock);
  await page.getByTestId("start").click();
}

export const IN_PLAY = 'body[data-turn="you"], body[data-turn="other"]';
export const READY = 'body[data-turn="you"][data-busy="false"], body[data-turn="over"]';
// The first highlighted legal option, most specific first: a board target after a pick,
// an offer tile when one must be taken, a tile of the hand, then any other choice (a coin).
const CHOICES = ["g.target", '[data-testid^="offer-"].choice', '[data-testid^="hand-"].choice', ".choice"];

async function clickFirstChoice(page: Page, prefer: string[] = []): Promise<string> {
  for (const selector of [...prefer, ...CHOICES]) {
    const choice = page.locator(selector).first();
    if ((await choice.count()) > 0) {
      const name = (await choice.getAttribute("data-testid")) ?? selector;
      await choice.click();
      return name;
    }
  }
  throw new Error("it is our turn but nothing is highlighted");
}

export const version = async (page: Page): Promise<number> => Number(await page.getAttribute("body", "data-version"));
export const turn = async (page: Page): Promise<string | null> => page.getAttribute("body", "data-turn");

/**
 * One click of the player whose turn it is on `page`: either it submits an action (the version
 * moves on), or it picks a tile (targets appear). A refusal fails the test. Returns whether an
 * action was sent, and what was clicked.
 */
export async function clickOnce(page: Page, prefer: string[] = []): Promise<{ acted: boolean; clicked: string }> {
  const before = await version(page);
  const clicked = await clickFirstChoice(page, prefer);
  await page.waitForFunction(
    (seen) =>
      Number(document.body.dataset.version) > seen ||
      document.querySelector("g.target") !== null ||
      document.querySelector('[data-testid="refusal"]') !== null,
    before,
    { timeout: 30_000 },
  );
  const refusal = page.getByTestId("refusal");
  if ((await refusal.count()) > 0) assert.fail(`refused after ${clicked}: ${await refusal.first().textContent()}`);
  return { acted: (await version(page)) > before, clicked };
}

// --- Oregano and Leilão ----------------------------------------------------------------------------

/** The status line's text (without its clock). */
export const statusText = async (page: Page): Promise<string> =>
  (await page.getByTestId("status").locator(".status-text").textContent()) ?? "";

/** Wait until the page may act (or the match is over); false when it is over. */
export async function ready(page: Page, timeout = 120_000): Promise<boolean> {
  await page.waitForSelector(READY, { timeout });
  return (await turn(page)) !== "over";
}

/** Click `selector` (one of the page's own legal moves) and wait until the match moved on past it. */
export async function act(page: Page, selector: string): Promise<void> {
  const before = await version(page);
  await page.locator(selector).first().click();
  await page.waitForFunction(
    (seen) => Number(document.body.dataset.version) > seen || document.querySelector('[data-testid="refusal"]') !== null,
    before,
    { timeout: 30_000 },
  );
  const refusal = page.getByTestId("refusal");
  if ((await refusal.count()) > 0) assert.fail(`refused after ${selector}: ${await refusal.first().textContent()}`);
}

/**
 * One Leilão decision of the page's seat: a bid (round 1: `first` with an extra card, later
 * the highest card alone), a re-bid (the highest card) or a pick (the first stall), by clicking.
 */
export async function leilaoMove(page: Page, first: [number, number] = [11, 4]): Promise<string> {
  const phase = await page.getAttribute("body", "data-phase");
  if (phase === "pick") {
    await act(page, '[data-testid^="pick-"]');
    return "pick";
  }
  const cards = (await page.getByTestId("hand-of-0").getAttribute("data-cards"))!.split(",").map(Number);
  const round = Number(await page.getByTestId("display").getAttribute("data-round"));
  const bid = phase === "bid" && round === 1 && cards.includes(first[0]) && cards.includes(first[1]) ? first : [Math.max(...cards)];
  for (const card of bid) await page.getByTestId(`card-${card}`).click();
  await page.getByTestId("confirm-bid").waitFor();
  await act(page, '[data-testid="confirm-bid"]');
  return `${phase} ${bid.join("+")}`;
}

/**
 * One Oregano decision of the page's seat (seat 1, the API's 0), by clicking on the drawings: a
 * merchant then a cell of column 1 to start; a strategy card to keep; two action kinds (the first
 * that would do something now, attract and resource first) and the declaration; then each action
 * played on the areas (a shop kind then a cell, a merchant, a shop to sell, a boulevard token then
 * a cell), or skipped when nothing can be done; the casino is passed.
 */
export async function oreganoMove(page: Page): Promise<string> {
  const phase = await page.getAttribute("body", "data-phase");
  const some = async (selector: string): Promise<boolean> => (await page.locator(selector).count()) > 0;
  const target = '[data-testid^="cell-0-"].mark-target';
  switch (phase) {
    case "start_shop":
      await page.locator('[data-testid^="pick-shop-"]').first().click();
      await act(page, target);
      return "start";
    case "keep_strategy":
      await act(page, '[data-testid^="keep-"]');
      return "keep";
    case "casino":
      await act(page, '[data-testid="casino-stay"]');
      return "casino";
    case "declare": {
      const kinds = ["attract", "resource", "acquire", "sell"];
      const useful: string[] = [];
      for (const kind of kinds) if (!(await page.getByTestId(`kind-${kind}`).evaluate((card) => card.classList.contains("idle")))) useful.push(kind);
      const chosen = [...useful, ...kinds.filter((kind) => !useful.includes(kind))].slice(0, 2);
      for (const kind of chosen) await page.getByTestId(`kind-${kind}`).click();
      await act(page, '[data-testid="confirm-declare"]');
      return `declare ${chosen.join(", ")}`;
    }
  }
  const doing = await page.getByTestId("actions").getAttribute("data-doing");
  if (doing === "attract" && (await some('[data-testid^="pick-shop-"]'))) {
    await page.locator('[data-testid^="pick-shop-"]').first().click();
    await act(page, target);
    return "build";
  }
  if (doing === "attract" && (await some('[data-testid^="cell-0-"].mark-pick'))) {
    await page.locator('[data-testid^="cell-0-"].mark-pick').first().click();
    await act(page, target);
    return "level up";
  }
  if ((doing === "resource" || doing === "sell") && (await some('[data-testid^="cell-"].mark-pick'))) {
    await act(page, '[data-testid^="cell-"].mark-pick');
    return doing;
  }
  if (doing === "acquire" && (await some('[data-testid="boulevard-pick"] button.token'))) {
    await page.locator('[data-testid="boulevard-pick"] button.token').first().click();
    await act(page, target);
    return "acquire";
  }
  await act(page, '[data-testid="act-skip"]');
  return `skip ${doing}`;
}

/** That nothing is wider than the window: the page does not scroll sideways. */
export async function assertFits(page: Page, where: string): Promise<void> {
  const { scrollWidth, clientWidth } = await page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    clientWidth: document.documentElement.clientWidth,
  }));
  assert.ok(scrollWidth <= clientWidth, `${where}: the page is ${scrollWidth} px wide in a ${clientWidth} px window`);
}

/**
 * Record, at every change of the page, every status line it shows (see seenStatuses) and, in
 * Leilão, what it shows of seat 1 while seat 1 has bid and the bids are not revealed yet: its hand
 * and its played cards (checked by checkSealedBids).
 */
export async function recordPage(page: Page): Promise<void> {
  // A string, not a function: the test's compiler would add helpers the page does not have.
  await page.addInitScript(`
    const seen = (window.sealedSnapshots = []);
    const statuses = (window.statusTexts = []);
    new MutationObserver(() => {
      const status = document.querySelector('[data-testid="status"] .status-text')?.textContent;
      if (status && statuses.at(-1) !== status) statuses.push(status);
      const seat = document.querySelector('[data-testid="seat-1"]');
      if (document.body?.dataset.phase !== "bid" || seat?.dataset.acted !== "true") return;
      const snapshot = {
        round: document.querySelector('[data-testid="display"]')?.dataset.round ?? "",
        hand: document.querySelector('[data-testid="hand-of-1"]')?.dataset.cards ?? "",
        played: document.querySelector('[data-testid="played-1"]')?.dataset.cards ?? "",
      };
      const last = seen.at(-1);
      if (!last || last.round !== snapshot.round || last.hand !== snapshot.hand || last.played !== snapshot.played) seen.push(snapshot);
    }).observe(document, { subtree: true, childList: true, attributes: true });
  `);
}

/** Every status line the page showed since recordPage, in order (repeats dropped). */
export const seenStatuses = (page: Page): Promise<string[]> => page.evaluate(() => (window as unknown as { statusTexts: string[] }).statusTexts);

/**
 * Every time seat 1 had bid and the bids were not yet revealed, the page showed the cards of that
 * bid (known now, from seat 1's played cards) still in its hand and none of them played.
 * Returns how many such moments were seen.
 */
export async function checkSealedBids(page: Page): Promise<number> {
  const snapshots = await page.evaluate(() => (window as unknown as { sealedSnapshots: { round: string; hand: string; played: string }[] }).sealedSnapshots);
  const played = ((await page.getByTestId("played-1").getAttribute("data-cards")) ?? "").split(",").filter(Boolean);
  let checked = 0;
  for (const snapshot of snapshots) {
    // The cards seat 1 bid (main and extra) in that round, as revealed later.
    const bid = played.filter((item) => /^\d+:(\d+):(main|extra)$/.exec(item)?.[1] === snapshot.round).map((item) => item.split(":")[0]!);
    if (!bid.length) continue; // not revealed yet
    const hand = snapshot.hand.split(",");
    const shown = snapshot.played.split(",").filter((item) => item.split(":")[1] === snapshot.round);
    assert.deepEqual(shown, [], `round ${snapshot.round}: seat 1's bid was shown as played before the reveal`);
    for (const card of bid) assert.ok(hand.includes(card), `round ${snapshot.round}: seat 1's card ${card} left its hand before the reveal`);
    checked += 1;
  }
  return checked;
}
