// Two people in two browsers: one starts a match with a friend's seat and shares its invite link,
// the other opens it and joins; they play each other to the end by clicking, then step through
// the finished match in the replay viewer. Then clocks: a seat whose time runs out is played by
// the AI until its owner takes it back, and a player resigns.

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
  scratchDir,
  skip,
  startMatch,
  startServer,
  stop,
  turn,
  version,
} from "./support.js";

/** After this many actions both players take coins: four in a row end a 2-player match. */
const VARIED_ACTIONS = 30;

/** The first of `pages` where `selector` matches, waiting until one does. */
async function firstWith(pages: readonly Page[], selector: string, timeout = 60_000): Promise<Page> {
  const ends = Date.now() + timeout;
  for (;;) {
    for (const page of pages) if ((await page.locator(selector).count()) > 0) return page;
    const left = ends - Date.now();
    if (left <= 0) throw new Error(`no page shows ${selector}`);
    // Whichever matches first; the other wait is left to end (or time out) on its own.
    await Promise.race(pages.map((page) => page.waitForSelector(selector, { timeout: left }).catch(() => undefined)));
  }
}

/** Create a match with a friend's seat on `host`, and join it on `guest` through the invite link. */
async function invite(host: Page, guest: Page, url: string): Promise<string> {
  await host.goto(url);
  await startMatch(host, ["open"], { name: "Ana" });
  await host.waitForSelector('body[data-turn="waiting"]', { timeout: 30_000 });
  const link = await host.getByTestId("invite-link").inputValue();
  assert.match(link, /^http:\/\/127\.0\.0\.1:\d+\/\?join=[0-9a-f]{32}$/);
  const matchId = link.slice(-32);

  // The guest's start page lists it among the open matches.
  await guest.goto(url);
  await guest.getByTestId(`lobby-${matchId}`).waitFor({ timeout: 30_000 });
  // The link: the join page, then the seat.
  await guest.goto(link);
  await guest.getByTestId("join-card").waitFor();
  await guest.getByTestId("join-name").fill("Bea");
  await guest.getByTestId("join").click();
  // Both see the match start.
  await guest.waitForSelector(IN_PLAY, { timeout: 30_000 });
  await host.waitForSelector(IN_PLAY, { timeout: 30_000 });
  assert.equal(await guest.getAttribute("body", "data-match"), matchId);
  assert.equal(await host.getAttribute("body", "data-match"), matchId);
  return matchId;
}

test("a friend joins through the invite link; they play to the end; the replay steps through it", { skip, timeout: 300_000 }, async () => {
  const scratch = scratchDir();
  const server = await startServer(scratch.path);
  const browser = await launchBrowser();
  try {
    const ana = await newPage(browser, { viewport: { width: 1280, height: 900 } });
    const bea = await newPage(browser, { viewport: { width: 1280, height: 900 } });
    const matchId = await invite(ana, bea, server.url);
    // Seats by number, and names: each sees itself as "You".
    assert.match((await ana.getByTestId("player-1").textContent()) ?? "", /Seat 2\s*Bea/);
    assert.match((await bea.getByTestId("player-0").textContent()) ?? "", /Seat 1\s*Ana/);
    assert.match((await bea.getByTestId("player-1").textContent()) ?? "", /Seat 2\s*You/);

    // Play by clicking, whoever's turn it is, to the end.
    let actions = 0;
    for (;;) {
      const page = await firstWith([ana, bea], READY);
      if ((await turn(page)) === "over") break;
      const prefer = actions >= VARIED_ACTIONS ? ['[data-testid="take-coin"].choice'] : [];
      const { acted } = await clickOnce(page, prefer);
      if (acted) actions++;
      assert.ok(actions < 400, "the match does not end");
    }
    for (const page of [ana, bea]) {
      await page.waitForSelector('body[data-turn="over"]', { timeout: 30_000 });
      await page.getByTestId("result").waitFor();
      assert.match((await page.getByTestId("status").textContent()) ?? "", /The match is over: you finished (1st|2nd)/);
    }
    const moves = await version(ana);
    assert.equal(await version(bea), moves);
    assert.ok(moves >= actions, `${moves} moves, ${actions} by clicking`);
    mkdirSync(RESULTS, { recursive: true });
    await bea.screenshot({ path: join(RESULTS, "friends-over.png"), fullPage: true });

    // The replay: from the result, at the first move; to the last, back, to the first, forward, by keys, to the last.
    await ana.getByTestId("replay").click();
    await ana.waitForSelector('body[data-turn="replay"]', { timeout: 60_000 });
    assert.match(ana.url(), new RegExp(`\\?replay=${matchId}$`));
    const at = async (move: number): Promise<void> => {
      await ana.waitForFunction((move) => document.body.dataset.version === String(move), move);
      assert.equal(await ana.getByTestId("replay-step").textContent(), `Replay · move ${move} of ${moves}`);
      assert.match((await ana.getByTestId("replay-move").textContent()) ?? "", new RegExp(`^#${move}(?!\\d)`));
    };
    await at(1);
    assert.ok(await ana.getByTestId("replay-back").isDisabled());
    await ana.getByTestId("replay-last").click();
    await at(moves);
    assert.ok(await ana.getByTestId("replay-forward").isDisabled());
    const lastBoard = await ana.getByTestId("board").innerHTML();
    await ana.getByTestId("replay-back").click();
    await at(moves - 1);
    await ana.getByTestId("replay-first").click();
    await at(1);
    assert.ok(await ana.getByTestId("replay-back").isDisabled());
    const firstBoard = await ana.getByTestId("board").innerHTML();
    assert.notEqual(firstBoard, lastBoard, "the board of the first move is not the last one's");
    await ana.getByTestId("replay-forward").click();
    await at(2);
    await ana.keyboard.press("ArrowRight");
    await at(3);
    await ana.keyboard.press("ArrowLeft");
    await at(2);
    await ana.getByTestId("replay-last").click();
    await at(moves);
    assert.equal(await ana.getByTestId("board").innerHTML(), lastBoard);
    await ana.screenshot({ path: join(RESULTS, "replay.png"), fullPage: true });

    // The match was rated: both players are on the leaderboard, Bea's row highlighted for her, and
    // her card counts the game. (The server rates a finished match in the background: the start
    // page is loaded again until it shows.)
    const mine = bea.getByTestId("leaderboard").locator('li[data-you="true"]');
    const record = bea.getByTestId("you-record-mercado");
    const rated = async (): Promise<boolean> =>
      (await mine.count()) > 0 && (await record.count()) > 0 && /^1 rated game · [01] wins?$/.test((await record.textContent()) ?? "");
    for (let tries = 0; !(await rated()); tries++) {
      assert.ok(tries < 40, "Bea's rated game does not show");
      await bea.goto(server.url);
      await bea.waitForFunction(() => {
        const board = document.querySelector('[data-testid="leaderboard"]');
        const card = document.querySelector('[data-testid="you-record-mercado"]');
        return board !== null && card !== null && !board.textContent?.includes("Loading");
      });
    }
    assert.match((await mine.textContent()) ?? "", /Bea \(you\)/);
    assert.equal(await bea.getByTestId("leaderboard").locator("li", { hasText: "Ana" }).count(), 1);

    // Anyone can replay it: the start page lists it among the finished matches.
    await bea.getByTestId(`replay-${matchId}`).click();
    await bea.waitForSelector('body[data-turn="replay"]', { timeout: 60_000 });
    assert.equal(await bea.getByTestId("replay-step").textContent(), `Replay · move 1 of ${moves}`);
    assertNoErrors(ana);
    assertNoErrors(bea);
  } finally {
    await browser.close();
    await stop(server.server);
    scratch.remove();
  }
});

test("clocks: a seat whose time runs out is played by the AI until taken back; a player resigns", { skip, timeout: 120_000 }, async () => {
  const scratch = scratchDir();
  // 3 s a turn, no reserve: the AI takes over a seat that does not move in time.
  const server = await startServer(scratch.path, ["--turn-seconds", "3", "--reserve-seconds", "0"]);
  const browser = await launchBrowser();
  try {
    const ana = await newPage(browser, { viewport: { width: 1280, height: 900 } });
    const bea = await newPage(browser, { viewport: { width: 1280, height: 900 } });
    await invite(ana, bea, server.url);
    // The mover's time counts down in the status.
    const clock = (await firstWith([ana, bea], '[data-testid="clock"]')).getByTestId("clock");
    assert.match((await clock.textContent()) ?? "", /^0:0[0-3]$/);

    // Nobody moves: the mover's time runs out and the AI plays its seat; its page offers it back.
    const late = await firstWith([ana, bea], '[data-testid="reclaim"]', 30_000);
    const other = late === ana ? bea : ana;
    const lateSeat = late === ana ? 0 : 1;
    await other.waitForFunction(
      (seat) => document.querySelector(`[data-testid="role-${seat}"]`)?.textContent === "time ran out · AI plays",
      lateSeat,
    );
    await late.getByTestId("reclaim").click();
    await late.getByTestId("reclaim").waitFor({ state: "detached", timeout: 2_000 });
    assert.notEqual(await late.getByTestId(`role-${lateSeat}`).count(), 1, "no longer played by the AI");
    await late.screenshot({ path: join(RESULTS, "clock.png") });

    // The other resigns: asked first, then the AI plays its seat, as both pages show.
    await other.getByTestId("leave").click();
    await other.getByTestId("confirm-yes").click();
    await other.getByTestId("note").waitFor();
    assert.equal(await other.getByTestId("note").textContent(), "You resigned: the AI plays your seat now.");
    await late.waitForFunction(
      (seat) => document.querySelector(`[data-testid="role-${seat}"]`)?.textContent === "left · AI plays",
      1 - lateSeat,
    );
    assertNoErrors(ana);
    assertNoErrors(bea);
  } finally {
    await browser.close();
    await stop(server.server);
    scratch.remove();
  }
});
