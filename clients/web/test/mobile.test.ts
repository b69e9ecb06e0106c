// The page on a phone, 390 px wide: nothing scrolls sideways, the header's status and buttons
// fit, and after tapping a customer (far below the board) the entrances to tap and the status
// are in view. The screenshot is test-results/mobile-390.png.

import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { Page } from "playwright-core";
import {
  assertFits,
  assertNoErrors,
  clickOnce,
  launchBrowser,
  newPage,
  READY,
  RESULTS,
  type Running,
  scratchDir,
  skip,
  startAgent,
  startMatch,
  startServer,
  stop,
  version,
} from "./support.js";

const WIDTH = 390;
const HEIGHT = 844;

/** Whether every element the selector finds shows whole in the window (below the sticky header, unless in it). */
function inView(page: Page, selector: string): Promise<boolean> {
  return page.evaluate((selector) => {
    const elements = Array.from(document.querySelectorAll(selector));
    const header = document.querySelector("header.top")?.getBoundingClientRect();
    return (
      elements.length > 0 &&
      elements.every((element) => {
        const box = element.getBoundingClientRect();
        const top = element.closest("header") ? 0 : (header?.bottom ?? 0);
        return box.top >= top - 1 && box.bottom <= window.innerHeight + 1 && box.left >= -1 && box.right <= window.innerWidth + 1;
      })
    );
  }, selector);
}

test("the page at 390 px: no sideways scrolling, and the places to tap stay in view", { skip, timeout: 180_000 }, async () => {
  const scratch = scratchDir();
  let agent: Running | undefined;
  const server = await startServer(scratch.path);
  const browser = await launchBrowser();
  try {
    agent = await startAgent(scratch.path, server);
    const page = await newPage(browser, {
      viewport: { width: WIDTH, height: HEIGHT },
      deviceScaleFactor: 2,
      isMobile: true,
      hasTouch: true,
    });
    await page.goto(server.url);
    await page.getByTestId("start").waitFor();
    await assertFits(page, "the start page");

    await startMatch(page, ["easy"]);
    // Our turn (the AI may move first), with a customer we may bring: play on until there is one.
    for (let moves = 0; ; moves++) {
      await page.waitForSelector(READY, { timeout: 60_000 });
      assert.notEqual(await page.getAttribute("body", "data-turn"), "over", "the match ended before a customer could be brought");
      if ((await page.locator('[data-testid^="customer-"].choice').count()) > 0) break;
      assert.ok(moves < 40, "no customer to bring in 40 moves");
      await clickOnce(page); // stands first: customers come to lines with stands
    }
    await assertFits(page, "the match");

    // The header: the status has a line of its own (not a word per line), "New match" is whole.
    const status = await page.getByTestId("status").boundingBox();
    assert.ok(status && status.width >= WIDTH - 40, `the status is ${status?.width} px wide`);
    assert.ok(status.height <= 80, `the status is ${status.height} px tall`);
    const button = page.getByTestId("new-match");
    const box = await button.boundingBox();
    assert.ok(box && box.x >= 0 && box.x + box.width <= WIDTH, `"New match" at ${box?.x}..${(box?.x ?? 0) + (box?.width ?? 0)}`);
    assert.ok(await button.evaluate((element) => element.scrollWidth <= element.clientWidth), "the button's text is clipped");

    // A customer is far below the board: tap it.
    const customer = page.locator('[data-testid^="customer-"].choice').first();
    await customer.scrollIntoViewIfNeeded();
    await customer.tap();
    // The board comes into view: every entrance (or square) to tap, and the status, show whole.
    await page.waitForFunction(() => document.querySelector("g.target") !== null);
    await page.waitForFunction(
      () => {
        const header = document.querySelector("header.top")!.getBoundingClientRect();
        const targets = Array.from(document.querySelectorAll("g.target"));
        const status = document.querySelector('[data-testid="status"]')!.getBoundingClientRect();
        return (
          status.top >= 0 &&
          status.bottom <= window.innerHeight &&
          targets.length > 0 &&
          targets.every((target) => {
            const box = target.getBoundingClientRect();
            return box.top >= header.bottom - 1 && box.bottom <= window.innerHeight + 1;
          })
        );
      },
      undefined,
      { timeout: 10_000 },
    );
    assert.ok(await inView(page, '[data-testid="status"]'), "the status is in view");
    assert.ok(await inView(page, "g.target"), "the places to tap are in view");
    await assertFits(page, "after the tap");
    mkdirSync(RESULTS, { recursive: true });
    await page.screenshot({ path: join(RESULTS, "mobile-390.png") });
    await page.screenshot({ path: join(RESULTS, "mobile-390-full.png"), fullPage: true });

    // And the tap on a place plays the move.
    const before = await version(page);
    await page.locator("g.target").first().tap();
    await page.waitForFunction((seen) => Number(document.body.dataset.version) > seen, before, { timeout: 30_000 });
    await assertFits(page, "after the move");

    // The start page of a player (signed in as a guest by starting the match): its card, Your
    // games, the leaderboard, and Quick match waiting in the queue.
    await page.getByTestId("new-match").tap();
    await page.getByTestId("confirm-yes").tap();
    await page.getByTestId("you-rating-mercado").filter({ hasText: /^rating / }).waitFor({ timeout: 30_000 });
    await page.getByTestId("leaderboard").locator("li").first().waitFor();
    await page.locator('[data-testid="your-games"] [data-testid^="resume-"]').first().waitFor({ timeout: 30_000 });
    await assertFits(page, "the start page of a player");
    await page.getByTestId("quick-players").selectOption("4");
    await page.getByTestId("quick-start").tap();
    await page.getByTestId("quick-waiting").waitFor();
    await assertFits(page, "waiting for a quick match");
    await page.screenshot({ path: join(RESULTS, "mobile-390-start.png"), fullPage: true });
    await page.getByTestId("quick-cancel").tap();
    await page.getByTestId("quick-waiting").waitFor({ state: "hidden" });
    assertNoErrors(page);
  } finally {
    await browser.close();
    await stop(agent);
    await stop(server.server);
    scratch.remove();
  }
});
