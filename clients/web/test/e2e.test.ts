// The page end to end: a real `mercado serve` (gRPC-Web and the built page on its web port)
// and the AI agent; Debian's Chromium, headless, driven by playwright-core, plays by clicking.
// Then "Your games", the server's reasons for refusals, and the page against a server's
// fair-use limits. Run by scripts/test-web.sh after `npm run build`; needs the project venv
// (`make setup`).

import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { chromium, type Page } from "playwright-core";
import {
  assertNoErrors,
  CHROMIUM,
  CHROMIUM_ARGS,
  clickOnce,
  IN_PLAY,
  launchBrowser,
  newPage,
  READY,
  RESULTS,
  type Running,
  type Server,
  scratchDir,
  skip,
  startAgent,
  startMatch,
  startServer,
  stop,
  version,
} from "./support.js";

const ACTIONS = 5;

describe("against the AI", { skip }, () => {
  const scratch = scratchDir();
  let server: Server;
  let agent: Running | undefined;

  before(async () => {
    server = await startServer(scratch.path);
    agent = await startAgent(scratch.path, server);
  });

  after(async () => {
    await stop(agent);
    await stop(server?.server);
    scratch.remove();
  });

  test("a person starts a match against the AI and plays it by clicking", { timeout: 300_000 }, async () => {
    const browser = await launchBrowser();
    try {
      const page = await newPage(browser);
      await page.goto(server.url);
      // The start panel: two players, the other an easy AI.
      await startMatch(page, ["easy"]);
      // The agent takes its seat; then it is either side's turn.
      await page.waitForSelector(IN_PLAY, { timeout: 60_000 });
      assert.match(page.url(), /\?match=[0-9a-f]{32}$/);
      const first = await version(page);
      // Seats are named from 1, the AI by its name and level.
      assert.match((await page.getByTestId("player-0").textContent()) ?? "", /Seat 1\s*You/);
      assert.match((await page.getByTestId("player-1").textContent()) ?? "", /Seat 2\s*Easy AI/);

      const played: string[] = [];
      let pays = "";
      while (played.length < ACTIONS) {
        await page.waitForSelector(READY, { timeout: 120_000 });
        if ((await page.getAttribute("body", "data-turn")) === "over") break;
        const { acted, clicked } = await clickOnce(page);
        if (!acted && (await page.getByTestId("choices").count()) > 0) {
          // A piece picked: its places say what they cost and pay, from the server's previews.
          const group = page.getByTestId("choices").locator(".option-group").first();
          pays = `${await group.locator("button.option").first().textContent()}: ${await group.getByTestId("pays").textContent()}`;
        }
        if (acted) played.push(clicked);
      }

      assert.ok(played.length >= ACTIONS, `played only ${played.length} actions: ${played.join(", ")}`);
      assert.ok((await version(page)) >= first + ACTIONS, "the match version did not advance");
      assert.match(pays, /^[a-e][1-5]|^(top|bottom|left|right)-/, `a place and what it pays: ${pays}`);
      assert.match(pays, /costs \d+|\+\d+ you|pays nothing/, pays);
      const logEntries = await page.getByTestId("log").locator("li").count();
      assert.ok(logEntries >= ACTIONS, `the log shows ${logEntries} entries`);
      // Wait for the AI's reply, so the picture shows a board with both players' moves.
      await page.waitForSelector('body[data-turn="you"], body[data-turn="over"]', { timeout: 60_000 }).catch(() => undefined);
      // Your own stands are "Your … stand" (not "You's").
      const titles = await page.locator("g.stand title").allTextContents();
      assert.ok(!titles.some((title) => title.includes("You's")), titles.join("; "));
      assertNoErrors(page);

      mkdirSync(RESULTS, { recursive: true });
      await page.screenshot({ path: join(RESULTS, "e2e.png"), fullPage: true });
    } finally {
      await browser.close();
    }
  });

  test(
    "Your games resumes an unfinished match after a reload, in a new page and after a browser restart",
    { timeout: 180_000 },
    async () => {
      const profile = join(scratch.path, "profile");
      const launch = () =>
        chromium.launchPersistentContext(profile, {
          executablePath: CHROMIUM,
          headless: true,
          args: CHROMIUM_ARGS,
          viewport: { width: 1280, height: 900 },
        });
      let context = await launch();
      try {
        const page = context.pages()[0] ?? (await context.newPage());
        await page.goto(server.url);
        await startMatch(page, ["easy"]);
        await page.waitForSelector(IN_PLAY, { timeout: 60_000 });
        const matchId = await page.getAttribute("body", "data-match");
        assert.ok(matchId);
        const resumed = async (on: Page): Promise<void> => {
          await on.waitForSelector(IN_PLAY, { timeout: 30_000 });
          assert.equal(await on.getAttribute("body", "data-match"), matchId);
          assert.equal(await on.getByTestId("player-0").locator(".player-name").textContent(), "You");
        };

        // A reload: the address names the match, the browser holds its seat.
        await page.reload();
        await resumed(page);

        // "New match" in a match in play asks first; staying keeps the match on screen.
        await page.getByTestId("new-match").click();
        await page.getByTestId("confirm").waitFor();
        await page.getByTestId("confirm-no").click();
        await page.getByTestId("confirm").waitFor({ state: "detached" });
        assert.equal(await page.getAttribute("body", "data-match"), matchId);
        await page.getByTestId("new-match").click();
        await page.getByTestId("confirm-yes").click();
        await page.waitForSelector('body[data-turn="start"]');
        // The start page lists it under Your games.
        await page.getByTestId(`resume-${matchId}`).click();
        await resumed(page);

        // A new page (a new tab) of the same browser.
        const other = await context.newPage();
        await other.goto(server.url);
        await other.getByTestId(`resume-${matchId}`).click();
        await resumed(other);

        // A browser restart: the seat was kept on disk.
        await context.close();
        context = await launch();
        const again = context.pages()[0] ?? (await context.newPage());
        await again.goto(server.url);
        await again.getByTestId(`resume-${matchId}`).click();
        await resumed(again);
        assertNoErrors(page);
      } finally {
        await context.close();
      }
    },
  );
});

test("with no AI agent running, starting a match against the AI shows the server's reason", { skip, timeout: 60_000 }, async () => {
  const scratch = scratchDir();
  const server = await startServer(scratch.path);
  const browser = await launchBrowser();
  try {
    const page = await newPage(browser);
    await page.goto(server.url);
    await startMatch(page, ["easy"]);
    const alert = page.locator('.start [role="alert"]');
    await alert.waitFor({ timeout: 30_000 });
    const text = (await alert.textContent()) ?? "";
    // The server's one-line FAILED_PRECONDITION reason, as it gave it.
    assert.match(text, /^Could not start a match: no AI agent can take this match's bot seats now \(.*\); try again later$/);
    assert.equal(await page.getAttribute("body", "data-turn"), "start");
    assertNoErrors(page);
  } finally {
    await browser.close();
    await stop(server.server);
    scratch.remove();
  }
});

/** A gRPC-Web call's outcome as the page got it: its status and `retry-after` (from the trailer frame). */
interface Outcome {
  status: number;
  retryAfter: number | undefined;
}

test(
  "the page waits out a rate limit, and shows the server's reason for a refusal it cannot wait out",
  { skip, timeout: 120_000 },
  async () => {
    const scratch = scratchDir();
    // One match every 4 s (so the page's second one, a click later, is refused with retry-after
    // of up to 4 s), and at most 2 matches waiting per client (then retry-after 60, longer than
    // the client waits). The matches have a friend's seat: they wait for players.
    const server = await startServer(scratch.path, [
      "--rate-limit",
      "CreateMatch=0.25/1",
      "--max-waiting-per-client",
      "2",
    ]);
    const browser = await launchBrowser();
    try {
      const page = await newPage(browser);
      // Every CreateMatch the page sends, passed on as is, with the status of its trailer frame.
      const outcomes: Outcome[] = [];
      await page.route("**/mercado.v1.MatchService/CreateMatch", async (route) => {
        const response = await route.fetch();
        const trailer = (await response.body()).toString("latin1");
        const status = /grpc-status:\s*(\d+)/i.exec(trailer)?.[1];
        const retryAfter = /retry-after:\s*(\d+)/i.exec(trailer)?.[1];
        outcomes.push({ status: Number(status ?? -1), retryAfter: retryAfter === undefined ? undefined : Number(retryAfter) });
        await route.fulfill({ response });
      });
      await page.goto(server.url);

      // The first match: created at once; it waits for the friend.
      await startMatch(page, ["open"]);
      await page.waitForSelector('body[data-turn="waiting"]', { timeout: 30_000 });
      // The second, right after: refused by the rate limit, repeated after its retry-after.
      // (A waiting match is left without asking: it goes on waiting in Your games.)
      await page.getByTestId("new-match").click();
      await startMatch(page, ["open"]);
      await page.waitForSelector('body[data-turn="waiting"]', { timeout: 30_000 });
      // The third: two matches of ours wait already; the client does not wait 60 s for that.
      await page.getByTestId("new-match").click();
      await startMatch(page, ["open"]);
      const alert = page.locator('.start [role="alert"]');
      await alert.waitFor({ timeout: 30_000 });
      assert.equal(await alert.textContent(), "Could not start a match: you have 2 matches waiting for players already");

      const RESOURCE_EXHAUSTED = 8;
      assert.deepEqual(
        outcomes.slice(0, 3).map((outcome) => outcome.status),
        [0, RESOURCE_EXHAUSTED, 0],
      );
      const waited = outcomes[1]?.retryAfter;
      assert.ok(waited !== undefined && waited >= 1 && waited <= 4, `retry-after ${waited}`);
      // The third match: maybe rate-limited first (and repeated), then refused for the waiting matches, once.
      const last = outcomes.at(-1);
      assert.deepEqual(last, { status: RESOURCE_EXHAUSTED, retryAfter: 60 });
      for (const between of outcomes.slice(3, -1)) {
        assert.equal(between.status, RESOURCE_EXHAUSTED);
        assert.ok(between.retryAfter !== undefined && between.retryAfter <= 4, `retry-after ${between.retryAfter}`);
      }
      // Both waiting matches are in Your games.
      await page.waitForFunction(() => document.querySelectorAll('[data-testid="your-games"] [data-testid^="resume-"]').length === 2);
      assertNoErrors(page);
    } finally {
      await browser.close();
      await stop(server.server);
      scratch.remove();
    }
  },
);
