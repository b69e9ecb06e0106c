// Every game played to its end by clicking, against the easy AI, on a desktop (1280 px) and on a
// phone (390 px) at once: the header and the tab's title name the game; the log gives each event
// a line of its own; the result explains every seat's score from its parts, with the tie-breaks;
// the replay opens at its first move with the seats' names in its moves list (Mercado's shows the
// money at the last); the start page's ratings, leaderboard and finished matches are the game's;
// and at 390 px no page of the game scrolls sideways: its join page, every move of the match,
// the result, the replay and the start page. The screenshots, for each game and width, are
// test-results/<game>-<width>-board.png (mid-match) and <game>-<width>-result.png; the test
// prints their paths.

import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import {
  assertFits,
  assertNoErrors,
  clickOnce,
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
  skip,
  startAgent,
  startMatch,
  startServer,
  statusText,
  stop,
  version,
} from "./support.js";

type GameName = "mercado" | "oregano" | "leilao";

const TITLES: Record<GameName, string> = { mercado: "Mercado de Lisboa", oregano: "Oregano", leilao: "Leilão das Bancas" };
const WORDS: Record<GameName, string> = { mercado: "Mercado", oregano: "Oregano", leilao: "Leilão" };
/** The score parts each game's result lists (docs/rules.md, oregano.md, leilao.md: "Final scoring"). */
const PARTS: Record<GameName, string[]> = {
  mercado: ["coins", "restaurants_in_hand"],
  oregano: ["gold", "shops_level_1", "shops_level_2", "shops_level_3", "shops_level_4", "bonus_cards"],
  leilao: ["stall_points", "set_bonus", "card_penalty", "extra_bid_fees"],
};
/** The screen mid-match is taken after this many of the page's own moves, in this phase (Oregano's guide to a declaration, Leilão's picks after a reveal). */
const MID: Record<GameName, { moves: number; phase?: string }> = { mercado: { moves: 10 }, oregano: { moves: 18, phase: "declare" }, leilao: { moves: 12, phase: "pick" } };

const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };
const DESKTOP = { viewport: { width: 1280, height: 900 } };

/** One move of the page's seat in `game`, by clicking (in Mercado, a piece and then where it goes). */
async function move(page: Page, game: GameName): Promise<string> {
  if (game === "oregano") return oreganoMove(page);
  if (game === "leilao") return leilaoMove(page);
  for (;;) {
    const { acted, clicked } = await clickOnce(page);
    if (acted) return clicked;
  }
}

describe("every game to the end by clicking, at 1280 px and at 390 px", { skip }, () => {
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

  /** The join page of a match of `game` waiting for a friend, as a phone opens the invite. */
  async function joinPageFits(game: GameName): Promise<void> {
    const host = await newPage(browser, DESKTOP);
    await host.goto(server.url);
    await startMatch(host, ["open"], { game });
    const link = await host.getByTestId("invite-link").inputValue();
    const phone = await newPage(browser, PHONE);
    await phone.goto(link);
    await phone.getByTestId("join-card").waitFor();
    assert.equal(await phone.getByTestId("title").textContent(), TITLES[game]);
    await assertFits(phone, `${game}: the join page`);
    await host.getByTestId("leave").click();
    await host.getByTestId("confirm-yes").click();
    await host.waitForURL(server.url);
    await host.context().close();
    await phone.context().close();
  }

  /** A match of `game` against the easy AI, played by clicking to its end, then its result, replay and start page. */
  async function playToTheEnd(game: GameName, phone: boolean): Promise<string[]> {
    const width = phone ? 390 : 1280;
    const where = (what: string): string => `${game} at ${width} px: ${what}`;
    const page = await newPage(browser, phone ? PHONE : DESKTOP);
    const fits = (what: string): Promise<void> => (phone ? assertFits(page, where(what)) : Promise.resolve());
    const shots = [join(RESULTS, `${game}-${width}-board.png`), join(RESULTS, `${game}-${width}-result.png`)] as const;
    const sealed = join(RESULTS, `${game}-${width}-sealed.png`);
    let sealedShot = false;
    await page.goto(server.url);
    await startMatch(page, ["easy"], { game });
    await page.waitForSelector(IN_PLAY, { timeout: 60_000 });
    const matchId = (await page.getAttribute("body", "data-match")) ?? "";
    assert.equal(await page.getByTestId("title").textContent(), TITLES[game], where("the header names the game"));
    assert.match(await page.title(), new RegExp(TITLES[game]));

    let moves = 0;
    let shot = false;
    while (await ready(page)) {
      // Leilão: the other seat's bid face down until the reveal (the AI has bid, the page has not).
      if (game === "leilao" && !sealedShot && moves >= 6 && (await page.locator('[data-testid^="sealed-"]').count())) {
        await page.screenshot({ path: sealed, fullPage: true });
        sealedShot = true;
      }
      if (!shot && moves >= MID[game].moves && [undefined, await page.getAttribute("body", "data-phase")].includes(MID[game].phase)) {
        await page.screenshot({ path: shots[0], fullPage: true });
        shot = true;
      }
      await move(page, game);
      moves += 1;
      await fits(`move ${moves}`);
      assert.ok(moves < 600, where("the match does not end"));
    }
    assert.ok(shot, where(`the match ended after ${moves} moves, before the screenshot mid-match`));
    if (game === "leilao") assert.ok(sealedShot, where("the AI's sealed bid was never seen face down"));

    // The result: each part of every seat's score, the totals, the tie-breaks; the status agrees.
    const result = page.getByTestId("result");
    await result.waitFor();
    const status = await statusText(page);
    const mine = /^The match is over: you finished (1st|2nd) with (-?\d+) points?\.$/.exec(status);
    assert.ok(mine, status);
    assert.equal((await page.getByTestId("score-0").textContent())?.replace("−", "-"), mine[2], where("your total"));
    for (const part of PARTS[game]) assert.equal(await result.getByTestId(`part-${part}`).count(), 1, where(`the part ${part}`));
    assert.match((await result.getByTestId("tie-notes").textContent()) ?? "", /^(.* )?Equal totals are ranked by /);
    assert.match((await result.locator("tr.tie-break").first().textContent()) ?? "", /\d/);
    await page.evaluate(() => window.scrollTo(0, 0)); // the result heads the page
    await page.screenshot({ path: shots[1] });
    await fits("the result");

    // The log: each event on a line of its own (in Oregano, the income of a turn is not part of the move before it).
    const lines = (await page.getByTestId("log").locator("li").allTextContents()).map((text) => text.replace(/^#\d+/, ""));
    if (game === "oregano") assert.ok(lines.some((line) => /^(You|Easy AI) earned \d+ gold from (your|their) shops$/.test(line)), lines.join(" | "));
    if (game === "leilao") assert.ok(lines.some((line) => /^The game is over$/.test(line)), lines.join(" | "));
    assert.ok(lines.every((line) => !line.includes("; ")), where(`one event a line: ${lines.join(" | ")}`));

    // The replay opens at the first move, each move named by its seat's player; the last shows the result.
    const total = await version(page);
    await page.getByTestId("replay").click();
    await page.waitForSelector('body[data-turn="replay"]', { timeout: 60_000 });
    assert.equal(await page.getByTestId("title").textContent(), TITLES[game]);
    assert.equal(await page.getByTestId("replay-step").textContent(), `Replay · move 1 of ${total}`);
    const list = await page.getByTestId("replay-list").locator("li").allTextContents();
    assert.ok(list.some((item) => /^#\d+Easy AI · /.test(item)) && !list.some((item) => /Seat \d/.test(item)), list.slice(0, 6).join(" | "));
    await fits("the replay's first move");
    await page.getByTestId("replay-last").click();
    await page.getByTestId("result").waitFor();
    await fits("the replay's last move");
    if (game === "mercado") {
      // Money is hidden while playing; once the match is over the replay shows every seat's.
      for (const seat of [0, 1]) assert.match((await page.getByTestId(`coins-${seat}`).textContent()) ?? "", /^-?\d+$/, where(`seat ${seat}'s coins`));
    }

    // The start page: the player's rating in each game, and this game's leaderboard and finished matches.
    await page.getByTestId("new-match").click();
    await page.getByTestId(`you-rating-${game}`).waitFor({ timeout: 30_000 });
    await page.getByTestId(`finished-tab-${game}`).click();
    assert.equal(await page.getByTestId("finished-card").locator("h2").textContent(), `Finished matches · ${WORDS[game]}`);
    await page.getByTestId(`finished-${matchId}`).waitFor({ timeout: 30_000 });
    assert.match((await page.getByTestId(`finished-${matchId}`).textContent()) ?? "", new RegExp(` · ${WORDS[game]} · `));
    await page.getByTestId(`leaderboard-tab-${game}`).click();
    assert.equal(await page.getByTestId("leaderboard-card").locator("h2").textContent(), `Leaderboard · ${WORDS[game]}`);
    await page.getByTestId("leaderboard").locator("li").first().waitFor();
    await fits("the start page");
    assertNoErrors(page);
    await page.context().close();
    return sealedShot ? [...shots, sealed] : [...shots];
  }

  for (const game of ["mercado", "oregano", "leilao"] as const) {
    test(`${TITLES[game]}: a match to the end at 1280 px and 390 px, its result explained, its replay`, { timeout: 900_000 }, async () => {
      await joinPageFits(game);
      const shots = await Promise.all([playToTheEnd(game, false), playToTheEnd(game, true)]);
      console.log(`screenshots of ${TITLES[game]}: ${shots.flat().join(", ")}`);
    });
  }
});
