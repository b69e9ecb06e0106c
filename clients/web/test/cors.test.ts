// A frontend on an origin of its own: a small page (test/cross-origin/, built with this package's
// Vite config) served from another port than the server's web port, which it calls with the
// TypeScript client over gRPC-Web. Served from an origin the server allows (`--web-cors-origin`),
// it signs in as a guest and plays a Leilão match against the easy AI to the end; served from an
// origin the server does not allow, the browser refuses its first call (the preflight gets 403).

import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { createServer, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, extname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { build } from "vite";
import {
  assertNoErrors,
  launchBrowser,
  newPage,
  type Running,
  type Server,
  scratchDir,
  skip,
  startAgent,
  startServer,
  stop,
} from "./support.js";

const PACKAGE = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const TYPES: Record<string, string> = { ".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8" };

/** The page of test/cross-origin/, built into `outDir` as the package builds its own page. */
async function buildPage(outDir: string): Promise<void> {
  await build({
    configFile: join(PACKAGE, "vite.config.ts"),
    root: join(PACKAGE, "test/cross-origin"),
    logLevel: "warn",
    build: { outDir, emptyOutDir: true },
  });
}

/** A static file server for `root` on a free loopback port: an origin of its own. */
async function serveFiles(root: string): Promise<{ origin: string; close(): void }> {
  const server: HttpServer = createServer((request, response) => {
    const path = new URL(request.url ?? "/", "http://x").pathname;
    const file = join(root, path === "/" ? "index.html" : path);
    readFile(file).then(
      (body) => response.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream" }).end(body),
      () => response.writeHead(404).end(),
    );
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}

/** Open the page on `origin` against `server`'s web port, and wait until it says how it went. */
async function outcome(page: Page, origin: string, server: Server, timeout: number): Promise<string> {
  await page.goto(`${origin}/?server=${encodeURIComponent(server.url.replace(/\/$/, ""))}`);
  await page.waitForSelector("body[data-outcome]", { timeout });
  return (await page.getAttribute("body", "data-outcome"))!;
}

describe("a page on another origin", { skip }, () => {
  const scratch = scratchDir();
  let allowed: { origin: string; close(): void };
  let other: { origin: string; close(): void };
  let server: Server;
  let agent: Running | undefined;
  let browser: Browser;

  before(async () => {
    const built = join(scratch.path, "page");
    await buildPage(built);
    allowed = await serveFiles(built);
    other = await serveFiles(built);
    // A server of players only, as `mercado serve` is by default: the page signs in as a guest.
    server = await startServer(scratch.path, ["--web-cors-origin", allowed.origin], { anonymous: false });
    agent = await startAgent(scratch.path, server);
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await stop(agent);
    await stop(server?.server);
    allowed?.close();
    other?.close();
    scratch.remove();
  });

  test("plays a Leilão match against the AI from an allowed origin", { timeout: 300_000 }, async () => {
    const page = await newPage(browser);
    const result = await outcome(page, allowed.origin, server, 280_000);
    assert.equal(result, "finished", (await page.getAttribute("body", "data-error")) ?? "");
    assert.match((await page.getAttribute("body", "data-match-id")) ?? "", /^[0-9a-f]{32}$/);
    const ranks = ((await page.getAttribute("body", "data-ranks")) ?? "").split(",").map(Number);
    assert.equal(ranks.length, 2);
    assert.ok(ranks.includes(1) && ranks.every((rank) => rank === 1 || rank === 2), `ranks ${ranks.join(",")}`);
    assertNoErrors(page);
  });

  test("is refused from an origin the server does not allow", { timeout: 60_000 }, async () => {
    const page = await newPage(browser);
    const console: string[] = [];
    page.on("console", (message) => console.push(message.text()));
    assert.equal(await outcome(page, other.origin, server, 30_000), "failed");
    assert.match((await page.getAttribute("body", "data-error")) ?? "", /Failed to fetch/);
    assert.ok(
      console.some((line) => line.includes("blocked by CORS policy") && line.includes(other.origin)),
      console.join("\n"),
    );
    assert.equal(await page.getAttribute("body", "data-match-id"), null, "no match was created");
  });
});
