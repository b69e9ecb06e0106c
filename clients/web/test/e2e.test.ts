// The page end to end: a real `mercado serve` (gRPC-Web and the built page on its web port)
// and the AI agent; Debian's Chromium, headless, driven by playwright-core, plays by clicking.
// Then the page against a server's fair-use limits. Run by scripts/test-web.sh after
// `npm run build`; needs the project venv (`make setup`).

import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { type BrowserContext, chromium, type Page } from "playwright-core";

const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";
const HERE = dirname(fileURLToPath(import.meta.url));
const PACKAGE = resolve(HERE, "..");
const REPO = resolve(PACKAGE, "../..");
const MERCADO = join(REPO, ".venv/bin/mercado");
const DIST = join(PACKAGE, "dist");
const RESULTS = join(PACKAGE, "test-results");
const ACTIONS = 5;
const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

interface Running {
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
    const timer = setTimeout(() => fail(new Error(`${args[0]} did not start:\n${running.log.join("\n")}`)), 20_000);
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

async function stop(running: Running | undefined): Promise<void> {
  if (!running || running.child.exitCode !== null || running.child.signalCode !== null) return;
  const exited = new Promise((done) => running.child.once("exit", done));
  running.child.kill("SIGTERM");
  await exited;
}

/** A fresh agent key for one server and its agent: the server's bot seats need one. */
const newAgentKey = (): string => randomBytes(32).toString("hex");

/** `mercado serve` on free ports, serving the built page (and gRPC-Web) from DIST; `args` adds options. */
async function startServer(
  scratch: string,
  agentKey: string,
  args: string[] = [],
): Promise<{ server: Running; port: number; webPort: number }> {
  const [server, listening] = await start(
    ["serve", "--port", "0", "--web-port", "0", "--web-root", DIST, "--db", join(scratch, "mercado.db"), ...args],
    agentKey,
    (record) => record.message === "listening",
  );
  const port = Number(listening.port);
  const webPort = Number(listening.web_port);
  if (!(webPort > 0)) {
    await stop(server);
    assert.fail(`no web port in ${JSON.stringify(listening)}`);
  }
  return { server, port, webPort };
}

function launchChromium(scratch: string): Promise<BrowserContext> {
  return chromium.launchPersistentContext(join(scratch, "chromium"), {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1440, height: 1000 },
  });
}

const READY = 'body[data-turn="you"][data-busy="false"], body[data-turn="over"]';
// The first highlighted legal option, most specific first: a board target after a pick,
// an offer tile when one must be taken, a tile of the hand, then any other choice (a coin).
const CHOICES = ["g.target", '[data-testid^="offer-"].choice', '[data-testid^="hand-"].choice', ".choice"];

async function clickFirstChoice(page: Page): Promise<string> {
  for (const selector of CHOICES) {
    const choice = page.locator(selector).first();
    if ((await choice.count()) > 0) {
      const name = (await choice.getAttribute("data-testid")) ?? selector;
      await choice.click();
      return name;
    }
  }
  throw new Error("it is our turn but nothing is highlighted");
}

const version = async (page: Page): Promise<number> => Number(await page.getAttribute("body", "data-version"));

const skip = existsSync(CHROMIUM)
  ? false
  : "Chromium not found: install it with `apt-get install -y chromium` to run the browser test";

test("a person starts a match against the AI and plays it by clicking", { skip, timeout: 300_000 }, async () => {
  assert.ok(existsSync(join(DIST, "index.html")), "the page is not built: run `npm run build` first");
  assert.ok(existsSync(MERCADO), `${MERCADO} is missing: run \`make setup\` first`);
  const scratch = mkdtempSync(join(tmpdir(), "mercado-web-"));
  let server: Running | undefined;
  let agent: Running | undefined;
  const context = await launchChromium(scratch);
  try {
    const agentKey = newAgentKey();
    const started = await startServer(scratch, agentKey);
    server = started.server;
    const { port, webPort } = started;
    [agent] = await start(
      ["ai", "--server", `127.0.0.1:${port}`, "--level", "easy", "--log-level", "info"],
      agentKey,
    );

    const page = context.pages()[0] ?? (await context.newPage());
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(String(error)));
    await page.goto(`http://127.0.0.1:${webPort}/`);

    // The start panel: two players, the other an easy AI.
    await page.getByTestId("players").selectOption("2");
    await page.getByTestId("level-1").selectOption("easy");
    await page.getByTestId("start").click();
    // The agent takes its seat; then it is either side's turn.
    await page.waitForSelector('body[data-turn="you"], body[data-turn="other"]', { timeout: 60_000 });
    const first = await version(page);

    const played: string[] = [];
    while (played.length < ACTIONS) {
      await page.waitForSelector(READY, { timeout: 120_000 });
      if ((await page.getAttribute("body", "data-turn")) === "over") break;
      const before = await version(page);
      const clicked = await clickFirstChoice(page);
      // Either the click submitted an action (the version moves on), or it picked a tile
      // (targets appear), or it was refused (a line says why).
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
      if ((await version(page)) > before) played.push(clicked);
    }

    assert.ok(played.length >= ACTIONS, `played only ${played.length} actions: ${played.join(", ")}`);
    assert.ok((await version(page)) >= first + ACTIONS, "the match version did not advance");
    const logEntries = await page.getByTestId("log").locator("li").count();
    assert.ok(logEntries >= ACTIONS, `the log shows ${logEntries} entries`);
    // Wait for the AI's reply, so the picture shows a board with both players' moves.
    await page
      .waitForSelector('body[data-turn="you"], body[data-turn="over"]', { timeout: 60_000 })
      .catch(() => undefined);
    assert.deepEqual(errors, [], "the page threw");

    mkdirSync(RESULTS, { recursive: true });
    await page.screenshot({ path: join(RESULTS, "e2e.png"), fullPage: true });
  } finally {
    await context.close();
    await stop(agent);
    await stop(server);
    rmSync(scratch, { recursive: true, force: true });
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
    assert.ok(existsSync(join(DIST, "index.html")), "the page is not built: run `npm run build` first");
    const scratch = mkdtempSync(join(tmpdir(), "mercado-web-"));
    let server: Running | undefined;
    const context = await launchChromium(scratch);
    try {
      // One match every 4 s (so the page's second one, a click later, is refused with retry-after
      // of up to 4 s), and at most 2 matches waiting per client (then retry-after 60, longer than
      // the client waits). No AI agent: the matches wait for it.
      const started = await startServer(scratch, newAgentKey(), [
        "--rate-limit",
        "CreateMatch=0.25/1",
        "--max-waiting-per-client",
        "2",
      ]);
      server = started.server;

      const page = context.pages()[0] ?? (await context.newPage());
      const errors: string[] = [];
      page.on("pageerror", (error) => errors.push(String(error)));
      // Every CreateMatch the page sends, passed on as is, with the status of its trailer frame.
      const creates: Outcome[] = [];
      await page.route("**/mercado.v1.MatchService/CreateMatch", async (route) => {
        const response = await route.fetch();
        const trailer = (await response.body()).toString("latin1");
        const status = /grpc-status:\s*(\d+)/i.exec(trailer)?.[1];
        const retryAfter = /retry-after:\s*(\d+)/i.exec(trailer)?.[1];
        creates.push({ status: Number(status ?? -1), retryAfter: retryAfter === undefined ? undefined : Number(retryAfter) });
        await route.fulfill({ response });
      });
      await page.goto(`http://127.0.0.1:${started.webPort}/`);

      const startMatch = async (): Promise<void> => {
        await page.getByTestId("players").selectOption("2");
        await page.getByTestId("level-1").selectOption("easy");
        await page.getByTestId("start").click();
      };
      // The first match: created at once; it waits for the AI.
      await startMatch();
      await page.waitForSelector('body[data-turn="waiting"]', { timeout: 30_000 });
      // The second, right after: refused by the rate limit, repeated after its retry-after.
      await page.getByTestId("new-match").click();
      await startMatch();
      await page.waitForSelector('body[data-turn="waiting"]', { timeout: 30_000 });
      // The third: two matches of ours wait already; the client does not wait 60 s for that.
      await page.getByTestId("new-match").click();
      await startMatch();
      const alert = page.locator('.start [role="alert"]');
      await alert.waitFor({ timeout: 30_000 });
      assert.equal(
        await alert.textContent(),
        "Could not start a match: you have 2 matches waiting for players already",
      );

      const outcomes = creates;
      const RESOURCE_EXHAUSTED = 8;
      assert.deepEqual(outcomes.slice(0, 3).map((outcome) => outcome.status), [0, RESOURCE_EXHAUSTED, 0]);
      const waited = outcomes[1]?.retryAfter;
      assert.ok(waited !== undefined && waited >= 1 && waited <= 4, `retry-after ${waited}`);
      // The third match: maybe rate-limited first (and repeated), then refused for the waiting matches, once.
      const last = outcomes.at(-1);
      assert.deepEqual(last, { status: RESOURCE_EXHAUSTED, retryAfter: 60 });
      for (const between of outcomes.slice(3, -1)) {
        assert.equal(between.status, RESOURCE_EXHAUSTED);
        assert.ok(between.retryAfter !== undefined && between.retryAfter <= 4, `retry-after ${between.retryAfter}`);
      }
      assert.deepEqual(errors, [], "the page threw");
    } finally {
      await context.close();
      await stop(server);
      rmSync(scratch, { recursive: true, force: true });
    }
  },
);
