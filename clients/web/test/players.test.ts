// Players on the page, against a server of players only (no `--allow-anonymous`): the page signs
// in as a guest (its name and rating on the start page, the leaderboard card), and Quick match
// (FindMatch): two browsers queue for 2 players and land in the same match, each in its own seat,
// and play a move; Cancel leaves the queue; with "allow AI" a bot takes the other seat after the
// server's `--matchmaking-ai-wait`.

import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { Page } from "playwright-core";
import {
  assertNoErrors,
  clickOnce,
  IN_PLAY,
  launchBrowser,
  newPage,
  READY,
  RESULTS,
  type Running,
  scratchDir,
  skip,
  startAgent,
  startServer,
  stop,
  version,
} from "./support.js";

const MATCH_URL = /\?match=([0-9a-f]{32})$/;

/** The seat this page plays (0-based): the player row named "You". */
async function mySeat(page: Page): Promise<number> {
  const rows = page.locator('[data-testid^="player-"]');
  for (let i = 0; i < (await rows.count()); i++) {
    const row = rows.nth(i);
    if ((await row.locator(".player-name").textContent()) === "You") {
      return Number((await row.getAttribute("data-testid"))!.slice("player-".length));
    }
  }
  assert.fail("no seat named You");
}

/** Sign in as a guest named `name` from the start page's "You" card. */
async function signIn(page: Page, name: string): Promise<void> {
  await page.getByTestId("name").fill(name);
  await page.getByTestId("sign-in").click();
  await page.getByTestId("you-rating-mercado").filter({ hasText: /^rating / }).waitFor({ timeout: 30_000 });
}

test("a guest signs in: the start page shows its name and rating, and the leaderboard", { skip, timeout: 60_000 }, async () => {
  const scratch = scratchDir();
  const server = await startServer(scratch.path, [], { anonymous: false });
  const browser = await launchBrowser();
  try {
    const page = await newPage(browser);
    await page.goto(server.url);
    // No player yet: the card asks for a name; the leaderboard has nobody rated yet.
    await page.getByTestId("sign-in").waitFor();
    await page.getByTestId("leaderboard").locator("li", { hasText: /Nobody is rated in Mercado yet/ }).waitFor();
    await signIn(page, "Ada Lovelace");
    assert.equal(await page.getByTestId("you-name").textContent(), "Ada Lovelace");
    // A rating in each game, each named.
    for (const [game, title] of [["mercado", "Mercado de Lisboa"], ["oregano", "Oregano"], ["leilao", "Leilão das Bancas"]]) {
      assert.equal(await page.getByTestId(`you-rating-${game}`).textContent(), "rating 0.0");
      assert.equal(await page.getByTestId(`you-record-${game}`).textContent(), "0 rated games · 0 wins");
      assert.match((await page.getByTestId(`you-game-${game}`).textContent()) ?? "", new RegExp(`^${title}rating 0\\.0`));
    }
    await page.getByTestId("your-games").getByTestId("no-games").waitFor();
    // The player token is kept per server origin: a reload is the same player.
    const stored = await page.evaluate(() => localStorage.getItem(`mercado.player@${window.location.origin}`));
    const player = JSON.parse(stored ?? "{}") as { playerId?: string; token?: string; name?: string };
    assert.match(player.playerId ?? "", /^[0-9a-f]{32}$/);
    assert.equal(player.token?.split(".").length, 3);
    assert.equal(player.name, "Ada Lovelace");
    await page.reload();
    await page.getByTestId("you-rating-mercado").filter({ hasText: /^rating / }).waitFor();
    assert.equal(await page.getByTestId("you-name").textContent(), "Ada Lovelace");
    await page.getByTestId("leaderboard").locator("li").first().waitFor();
    assert.equal(await page.getByTestId("leaderboard-you").isVisible(), true, "not on the leaderboard yet: it says so");
    mkdirSync(RESULTS, { recursive: true });
    await page.screenshot({ path: join(RESULTS, "start.png"), fullPage: true });
    // "New name" starts over as another guest; "Stay" keeps this one.
    await page.getByTestId("new-player").click();
    await page.getByTestId("keep-player").click();
    assert.equal(await page.getByTestId("you-name").textContent(), "Ada Lovelace");
    assertNoErrors(page);
  } finally {
    await browser.close();
    await stop(server.server);
    scratch.remove();
  }
});

test("two browsers press Quick match for 2 players and land in the same match", { skip, timeout: 120_000 }, async () => {
  const scratch = scratchDir();
  const server = await startServer(scratch.path, [], { anonymous: false });
  const browser = await launchBrowser();
  try {
    const ana = await newPage(browser, { viewport: { width: 1280, height: 900 } });
    const bea = await newPage(browser, { viewport: { width: 1280, height: 900 } });
    for (const page of [ana, bea]) await page.goto(server.url);
    await signIn(ana, "Ana");
    // Bea gives her name and presses Quick match at once: that signs her in.
    await bea.getByTestId("name").fill("Bea");

    // Ana queues alone: she waits, the elapsed time counting; Cancel leaves the queue.
    await ana.getByTestId("quick-start").click();
    await ana.getByTestId("quick-waiting").waitFor();
    await ana.waitForFunction(() => document.querySelector('[data-testid="quick-elapsed"]')?.textContent === "0:01");
    await ana.getByTestId("quick-detail").filter({ hasText: /1 player looking/ }).waitFor();
    await ana.getByTestId("quick-cancel").click();
    await ana.getByTestId("quick-waiting").waitFor({ state: "hidden" });
    assert.equal(await ana.getAttribute("body", "data-turn"), "start");

    // Both queue for 2 players: one match, both in it.
    await ana.getByTestId("quick-start").click();
    await ana.getByTestId("quick-waiting").waitFor();
    await bea.getByTestId("quick-players").selectOption("2");
    await bea.getByTestId("quick-start").click();
    for (const page of [ana, bea]) await page.waitForURL(MATCH_URL, { timeout: 30_000 });
    const matchId = MATCH_URL.exec(ana.url())?.[1];
    assert.ok(matchId);
    assert.equal(MATCH_URL.exec(bea.url())?.[1], matchId, "the same match");
    for (const page of [ana, bea]) await page.waitForSelector(IN_PLAY, { timeout: 30_000 });
    const seats = [await mySeat(ana), await mySeat(bea)];
    assert.notEqual(seats[0], seats[1], "each in a seat of its own");
    // Each sees the other by name.
    assert.match((await ana.getByTestId(`player-${seats[1]}`).textContent()) ?? "", /Bea/);
    assert.match((await bea.getByTestId(`player-${seats[0]}`).textContent()) ?? "", /Ana/);

    // Whoever is to move makes a move; the other sees it.
    const mover = (await ana.getAttribute("body", "data-turn")) === "you" ? ana : bea;
    const other = mover === ana ? bea : ana;
    await mover.waitForSelector(READY, { timeout: 30_000 });
    const before = await version(mover);
    let acted = false;
    for (let clicks = 0; !acted && clicks < 3; clicks++) acted = (await clickOnce(mover)).acted;
    assert.ok(acted, "a move was made");
    await other.waitForFunction((seen) => Number(document.body.dataset.version) > seen, before, { timeout: 30_000 });
    mkdirSync(RESULTS, { recursive: true });
    await other.screenshot({ path: join(RESULTS, "quick-match.png"), fullPage: true });

    // The match is in both players' Your games (from the server: ListMatches by player).
    for (const page of [ana, bea]) {
      await page.evaluate(() => localStorage.removeItem("mercado.seats")); // not from the saved seats
      await page.goto(server.url);
      await page.getByTestId(`resume-${matchId}`).waitFor({ timeout: 30_000 });
    }
    await ana.getByTestId(`resume-${matchId}`).click();
    await ana.waitForSelector(IN_PLAY, { timeout: 30_000 });
    assert.equal(await mySeat(ana), seats[0], "resumed with the player token");
    assertNoErrors(ana);
    assertNoErrors(bea);
  } finally {
    await browser.close();
    await stop(server.server);
    scratch.remove();
  }
});

test("Quick match with allow AI: a bot takes the other seat after the server's wait", { skip, timeout: 120_000 }, async () => {
  const scratch = scratchDir();
  const server = await startServer(scratch.path, ["--matchmaking-ai-wait", "1"], { anonymous: false });
  let agent: Running | undefined;
  const browser = await launchBrowser();
  try {
    agent = await startAgent(scratch.path, server, ["easy", "medium", "hard"]);
    const page = await newPage(browser);
    await page.goto(server.url);
    await page.getByTestId("quick-ai").check();
    await page.getByTestId("quick-start").click();
    await page.waitForURL(MATCH_URL, { timeout: 30_000 });
    await page.waitForSelector(IN_PLAY, { timeout: 60_000 });
    const mine = await mySeat(page);
    const bot = 1 - mine;
    // The bot's seat is named after its level, as on the leaderboard.
    const botName = await page.getByTestId(`player-${bot}`).locator(".player-name").textContent();
    assert.match(botName ?? "", /^(Easy|Medium|Hard) AI$/);
    // The page signed in as a guest on the way: the start page shows it.
    await page.getByTestId("new-match").click();
    await page.getByTestId("confirm-yes").click(); // the match goes on without us
    await page.getByTestId("you-name").filter({ hasText: /^Guest \d{4}$/ }).waitFor({ timeout: 30_000 });
    // Quick match plays the game picked: Leilão, whose screen has the display of stalls.
    await page.getByTestId("quick-game").selectOption("leilao");
    await page.getByTestId("quick-ai").check();
    await page.getByTestId("quick-start").click();
    await page.waitForURL(MATCH_URL, { timeout: 30_000 });
    await page.waitForSelector(IN_PLAY, { timeout: 60_000 });
    await page.getByTestId("display").waitFor();
    assertNoErrors(page);
  } finally {
    await browser.close();
    await stop(agent);
    await stop(server.server);
    scratch.remove();
  }
});
