// Oregano and Leilão end to end: a real `mercado serve` and AI agent; the page starts each game
// against the easy AI from the start form and plays several moves by clicking on its drawings.
// The status says whose move it is, the match moves on, Oregano's declaration is guided (what
// each action would give now, from the server), and in Leilão the page never shows the AI's
// sealed bid before the reveal. The screenshots are test-results/oregano.png and leilao.png.
// (Every game to its end: full-matches.test.ts.)

import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Browser } from "playwright-core";
import {
  assertNoErrors,
  checkSealedBids,
  IN_PLAY,
  launchBrowser,
  leilaoMove,
  newPage,
  oreganoMove,
  ready,
  RESULTS,
  type Running,
  type Server,
  scratchDir,
  seenStatuses,
  skip,
  startAgent,
  startMatch,
  startServer,
  statusText,
  stop,
  version,
  recordPage,
} from "./support.js";

const MOVES = 8;

describe("Oregano and Leilão against the AI", { skip }, () => {
  const scratch = scratchDir();
  let server: Server;
  let agent: Running | undefined;
  let browser: Browser;

  before(async () => {
    server = await startServer(scratch.path);
    agent = await startAgent(scratch.path, server);
    browser = await launchBrowser();
    mkdirSync(RESULTS, { recursive: true });
  });

  after(async () => {
    await browser?.close();
    await stop(agent);
    await stop(server?.server);
    scratch.remove();
  });

  test("Oregano: a match against the AI, played by clicking", { timeout: 300_000 }, async () => {
    const page = await newPage(browser);
    await recordPage(page);
    await page.goto(server.url);
    await startMatch(page, ["easy"], { game: "oregano" });
    await page.waitForSelector(IN_PLAY, { timeout: 60_000 });
    const first = await version(page);
    assert.match((await page.getByTestId("seat-1").textContent()) ?? "", /Easy AI/);

    const statuses: string[] = [];
    let guided = false;
    for (let moves = 0; moves < MOVES; moves += 1) {
      if (!(await ready(page))) break;
      statuses.push(await statusText(page));
      if ((await page.getAttribute("body", "data-phase")) === "declare") {
        // The guide: each kind says what it does and what it would give now.
        assert.match((await page.getByTestId("now-attract").textContent()) ?? "", /^Now: (\d+ choices?; best for your score: .+\(.*score [+−±]\d+.*\)|nothing to do \(you would skip it\))\.$/);
        guided = true;
      }
      await oreganoMove(page);
      // The AI's turn says so, until it is ours again.
      if ((await page.getAttribute("body", "data-turn")) === "other") statuses.push(await statusText(page));
    }
    const mine = statuses.filter((text) => /^(Set-up|Keep one|Your turn|Your first|Your second|Go to the casino)/.test(text));
    assert.ok(mine.length >= MOVES, statuses.join(" | "));
    assert.ok(guided, "no declaration among the moves");
    // Every status shown: the AI's turns name it ("Easy AI is declaring two actions (round 1)…").
    const ai = (await page.getByTestId("seat-1").locator(".player-name").textContent()) ?? "?";
    const shown = await seenStatuses(page);
    assert.ok(shown.some((text) => text.startsWith(`${ai} is `) || text.startsWith(`${ai}: `)), shown.join(" | "));
    assert.ok((await version(page)) >= first + MOVES, "the match did not move on");
    assert.ok((await page.getByTestId("log").locator("li").count()) >= MOVES);
    assert.match((await page.getByTestId("area-0").textContent()) ?? "", /merchant/);
    await page.screenshot({ path: join(RESULTS, "oregano.png"), fullPage: true });
    assertNoErrors(page);
  });

  test("Leilão: bids and picks against the AI by clicking; its sealed bid stays hidden until the reveal", { timeout: 300_000 }, async () => {
    const page = await newPage(browser);
    await recordPage(page);
    await page.goto(server.url);
    await startMatch(page, ["easy"], { game: "leilao" });
    await page.waitForSelector(IN_PLAY, { timeout: 60_000 });
    const first = await version(page);

    const played: string[] = [];
    while (played.length < MOVES && (await ready(page))) played.push(await leilaoMove(page));
    const bids = played.filter((move) => move.startsWith("bid")).length;
    assert.ok(bids >= 2 && played.includes("pick"), played.join(", "));
    assert.ok((await version(page)) > first + MOVES, "the match did not move on");

    // Each bid: either the AI had bid first (its sealed bid, checked below), or the page said it waits for it.
    const statuses = await seenStatuses(page);
    assert.ok(statuses.some((text) => text.startsWith("Your bid: pick your main card")), statuses.join(" | "));
    assert.ok(statuses.some((text) => text === "Your pick: take a stall from the display."), statuses.join(" | "));
    const ai = (await page.getByTestId("seat-1").locator(".player-name").textContent()) ?? "?";
    assert.ok(statuses.some((text) => text.includes(ai)), `the AI's turns: ${statuses.join(" | ")}`);
    await page.waitForSelector('body[data-phase="pick"], body[data-phase="bid"]');
    const sealed = await checkSealedBids(page);
    const waited = statuses.filter((text) => /^You have bid — waiting for .+ to bid…$/.test(text)).length;
    assert.ok(sealed + waited >= bids - 1, `${bids} bids: the AI's sealed bid seen ${sealed} times, waiting for it ${waited} times`);
    await page.screenshot({ path: join(RESULTS, "leilao.png"), fullPage: true });
    assertNoErrors(page);
  });
});
