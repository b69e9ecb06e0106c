// The Oregano and Leilão screens in Chromium, each through a whole game of the Python engine
// (fixtures/timeline.py) served by a stand-in for the match service (mock.ts): the page plays
// seat 0 by clicking, the other seat's moves come on the event stream. Whose move it is, what a
// seat holds, that another seat's sealed bid never shows before the reveal, and the result.
// The screenshots are test-results/oregano-fixture.png and leilao-fixture.png.

import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { MATCH_ID, MOCK_URL, mockMatch, timeline } from "./mock.js";
import {
  act,
  assertNoErrors,
  checkSealedBids,
  launchBrowser,
  leilaoMove,
  newPage,
  ready,
  RESULTS,
  skip,
  statusText,
  watchSealedBids,
} from "./support.js";

/** Wait until the page shows the match where seat 0 acts next: the other seat's moves are in. */
async function caughtUp(page: Page, mock: { settled: () => number }): Promise<boolean> {
  await page.waitForSelector(`body[data-version="${mock.settled()}"]`);
  return ready(page, 30_000);
}

describe("Oregano and Leilão screens on the engine's games", { skip }, () => {
  let browser: Browser;

  before(async () => {
    browser = await launchBrowser();
    mkdirSync(RESULTS, { recursive: true });
  });

  after(async () => {
    await browser?.close();
  });

  test("Oregano: a whole game by clicking, from the set-up to the result", { timeout: 180_000 }, async () => {
    const steps = timeline("oregano");
    const page = await newPage(browser);
    const mock = await mockMatch(page, "oregano", steps);
    await page.goto(`${MOCK_URL}?match=${MATCH_ID}`);
    const seen = new Set<string>();
    while (await caughtUp(page, mock)) {
      const status = await statusText(page);
      seen.add(status.replace(/\d+/g, "N"));
      if (mock.sent.length === 20) {
        await page.screenshot({ path: join(RESULTS, "oregano-fixture.png"), fullPage: true });
        assert.match((await page.getByTestId("market").textContent()) ?? "", /Café\s*\d+\s*1 wood/);
      }
      // Every legal action is a button; the first is the engine's first legal action.
      await act(page, '[data-testid="actions"] button.choice');
    }
    assert.deepEqual(mock.problems, []);
    assert.equal(mock.sent.length, steps.filter((step) => step.seat === 0).length);
    for (const status of [
      "Set-up: choose a merchant to start with and its cell in column N.",
      "Keep one of the strategy cards you drew.",
      "Your turn (round N): declare your two actions, in order.",
      "Your first action: attract (build or level up a shop), or skip it.",
      "Your second action: resource (take a merchant's cards), or skip it.",
    ]) {
      assert.ok(seen.has(status), `status "${status}" in ${[...seen].join(" | ")}`);
    }
    assert.match(await statusText(page), /The match is over: you finished 1st with 61 points\./);
    assert.match((await page.getByTestId("result").textContent()) ?? "", /You win!/);
    assert.match((await page.getByTestId("area-0").textContent()) ?? "", /merchant/);
    assertNoErrors(page);
  });

  test("Leilão: bids, re-bids and picks by clicking; the other seat's bid stays hidden until the reveal", { timeout: 180_000 }, async () => {
    const steps = timeline("leilao");
    const page = await newPage(browser);
    await watchSealedBids(page);
    const mock = await mockMatch(page, "leilao", steps);
    await page.goto(`${MOCK_URL}?match=${MATCH_ID}`);

    // Round 1: the other seat bids first; its cards stay in its hand, and the page says it has bid.
    await page.waitForSelector('[data-testid="seat-1"][data-acted="true"]');
    assert.match(await statusText(page), /^Your bid: pick your main card/);
    assert.equal(await page.getByTestId("tag-1").textContent(), "has bid");
    assert.equal((await page.getByTestId("hand-of-1").getAttribute("data-cards"))?.split(",").length, 20);
    // Main card 11, extra 4: the confirmation says what it costs.
    await page.getByTestId("card-11").click();
    await page.getByTestId("card-4").click();
    assert.equal(await page.getByTestId("confirm-bid").textContent(), "Bid 11 + extra 4 (costs 15 + fee 5)");
    await act(page, '[data-testid="confirm-bid"]');
    const statuses = new Set<string>();
    while (await caughtUp(page, mock)) {
      statuses.add((await statusText(page)).replace(/\d+/g, "N"));
      await leilaoMove(page);
      // Round 2: the page bids first, and waits for the other seat.
      // (One look at the page: the other seat's bid may come any moment.)
      const shown = await page.evaluate(() => ({
        sealed: document.body.dataset.phase === "bid" && document.querySelector('[data-testid="sealed"]') !== null,
        status: document.querySelector('[data-testid="status"] .status-text')?.textContent ?? "",
      }));
      if (mock.sent.length > 1 && shown.sealed) {
        assert.match(shown.status, /^You have bid — waiting for easy AI to bid…$/);
        if (!statuses.has("waiting")) await page.screenshot({ path: join(RESULTS, "leilao-fixture.png"), fullPage: true });
        statuses.add("waiting");
      }
    }
    assert.deepEqual(mock.problems, []);
    assert.ok(statuses.has("waiting"), [...statuses].join(" | "));
    assert.ok(statuses.has("Your pick: take a stall from the display."), [...statuses].join(" | "));
    const sealed = await checkSealedBids(page);
    assert.ok(sealed >= 5, `the other seat's sealed bid was seen ${sealed} times`);
    assert.match(await statusText(page), /The match is over: you finished 1st with 277 points\./);
    assertNoErrors(page);
  });
});
