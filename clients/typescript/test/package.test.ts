// The package as a third party gets it: `npm pack` (its prepack builds dist/) makes the tarball,
// which a fresh project outside the repo installs (with esbuild, from the registry or the npm
// cache). There a plain Node program that imports only "@mercado/client" and
// "@mercado/client/node" plays a match to the end on a real server, esbuild bundles
// "@mercado/client" for browsers without any Node module, and the installed declarations
// type-check a Node and a browser consumer (with this package's TypeScript).

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { isAbsolute, join, relative } from "node:path";
import { after, before, describe, test } from "node:test";
import { promisify } from "node:util";

import { REPO, TestServer } from "./harness.js";

const run = promisify(execFile);
const PACKAGE = join(REPO, "clients", "typescript");
const VERSION_FILE = readFileSync(join(REPO, "VERSION"), "utf8").trim();
const ESBUILD = "esbuild@0.28.2";

/**
 * The environment without the npm_* variables an enclosing `npm test` sets (its local prefix, its
 * package); a user's own NPM_CONFIG_* settings (a registry mirror) stay.
 */
function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("npm_")));
}

/** Run a command in `cwd`; a failure says what it printed. */
async function sh(cwd: string, command: string, args: readonly string[]): Promise<string> {
  try {
    const { stdout } = await run(command, args, { cwd, env: cleanEnv(), maxBuffer: 16 * 1024 * 1024 });
    return stdout;
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(" ")} failed in ${cwd}:\n${stdout ?? ""}\n${stderr ?? ""}`, { cause: error });
  }
}

/**
 * A player's program: two guest players take both seats of a 2-player Leilão match (sealed bids)
 * and play random legal moves; the final state is kept as JSON and read back.
 */
const PLAY = `
import {
  equals,
  fromJsonString,
  Game,
  isFinished,
  isMyTurn,
  matchResult,
  MatchStateSchema,
  playRandomly,
  toJsonString,
  VERSION,
} from "@mercado/client";
import { connectNode } from "@mercado/client/node";

const client = connectNode(process.argv[2]);
try {
  const ana = await client.createPlayer("ana");
  const bea = await client.createPlayer("bea");
  const { matchId } = await client.createMatch({ game: Game.LEILAO, players: 2, seats: ["open", "open"] }, ana.playerToken);
  const first = await client.join(matchId, "", 0, ana.playerToken);
  const second = await client.join(matchId, "", 1, bea.playerToken);

  // Seat 1 with the game loop of the README, seat 2 with playRandomly.
  const loop = async () => {
    let last;
    for await (const { state } of first.watch()) {
      last = state;
      const moves = state.legalActions;
      if (isMyTurn(state)) await first.act(moves[Math.floor(Math.random() * moves.length)], state.version);
    }
    return last;
  };
  const [final] = await Promise.all([loop(), playRandomly(second)]);
  const result = matchResult(final);
  const kept = toJsonString(MatchStateSchema, final);
  console.log(JSON.stringify({
    version: VERSION,
    matchId,
    finished: isFinished(final),
    actions: String(final.version),
    ranks: result?.ranks,
    scores: result?.scores,
    keptAsJson: equals(MatchStateSchema, fromJsonString(MatchStateSchema, kept), final),
  }));
} finally {
  client.close();
}
`;

/** A page's entry: what a browser app imports (a transport would come from @connectrpc/connect-web). */
const BROWSER_ENTRY = `
import { Code, ConnectError, Game, isMyTurn, MercadoClient, playRandomly, seatLabel, VERSION } from "@mercado/client";

export { Code, ConnectError, Game, isMyTurn, MercadoClient, playRandomly, seatLabel, VERSION };
`;

/**
 * A TypeScript consumer in Node (nodenext): the declarations of every entry point. Each
 * @ts-expect-error is an error only with real types (a declaration that did not resolve is `any`).
 */
const NODE_CONSUMER = `
import { isMyTurn, type MatchState, matchResult, type MercadoClient, VERSION } from "@mercado/client";
import { connectNode, type NodeMercadoClient } from "@mercado/client/node";
import { MatchStatus } from "@mercado/client/gen/mercado/v1/match_pb";

export const client: NodeMercadoClient = connectNode("127.0.0.1:50051", { tls: false, retry: { reconnectMs: 1000 } });
export const base: MercadoClient = client;
export const version: string = VERSION;
export function scores(state: MatchState): number[] | undefined {
  return state.match?.status === MatchStatus.FINISHED && !isMyTurn(state) ? matchResult(state)?.scores : undefined;
}
// @ts-expect-error a target is a string
connectNode(50051);
// @ts-expect-error a seat is a number
void base.join("match", "ada", "first");
// @ts-expect-error no such status
void MatchStatus.DONE;
`;

/** A TypeScript consumer in a browser app (bundler resolution, DOM, no Node types). */
const BROWSER_CONSUMER = `
import { type Action, MercadoClient, type Seat, seatLabel } from "@mercado/client";

export async function play(client: MercadoClient, matchId: string, pick: (moves: Action[]) => Action): Promise<Seat> {
  const seat = await client.join(matchId, "ada", 0);
  const state = await seat.view();
  if (state.legalActions.length > 0) await seat.act(pick(state.legalActions), state.version);
  document.title = seatLabel(seat.seat);
  // @ts-expect-error a seat is a number
  seatLabel("1");
  return seat;
}
`;

// skipLibCheck: checking every dependency's declarations would take several times as long (the
// repo's tsconfig.browser.json checks the sources of the browser-safe part without Node types).
function tsconfig(compilerOptions: object, files: string[]): string {
  return JSON.stringify({ compilerOptions: { strict: true, noEmit: true, skipLibCheck: true, ...compilerOptions }, files });
}

describe("the npm package, installed from its tarball in a project outside the repo", () => {
  let server: TestServer;
  let packDir: string;
  let project: string;
  let packed: { filename: string; files: { path: string }[] };

  before(async () => {
    packDir = mkdtempSync(join(tmpdir(), "mercado-pack-"));
    project = mkdtempSync(join(tmpdir(), "mercado-consumer-"));
    const outside = relative(REPO, project);
    assert.ok(outside.startsWith("..") || isAbsolute(outside), `${project} is inside the repo`);
    // A server as deployed by default (players only), started while the package is packed and installed.
    const started = TestServer.start({ anonymous: false });
    try {
      // Only `npm pack`: its prepack script builds dist/ from scratch.
      const [info] = JSON.parse(await sh(PACKAGE, "npm", ["pack", "--json", "--pack-destination", packDir])) as [typeof packed];
      packed = info;
      writeFileSync(
        join(project, "package.json"),
        JSON.stringify({ name: "mercado-consumer", version: "1.0.0", private: true, type: "module" }, null, 2),
      );
      await sh(project, "npm", [
        "install",
        join(packDir, packed.filename),
        ESBUILD,
        "--no-audit",
        "--no-fund",
        "--prefer-offline",
        "--loglevel=error",
      ]);
    } finally {
      server = await started;
    }
  });

  after(async () => {
    const status = await server?.stop();
    for (const dir of [packDir, project]) if (dir) rmSync(dir, { recursive: true, force: true });
    assert.equal(status, 0, `the server exited with ${status}:\n${server?.server.tail()}`);
  });

  test("the tarball holds the compiled package with its declarations, README and LICENSE only", () => {
    const files = packed.files.map((file) => file.path).sort();
    for (const file of ["LICENSE", "README.md", "package.json", "dist/index.js", "dist/index.d.ts", "dist/node.js", "dist/node.d.ts"]) {
      assert.ok(files.includes(file), `${file} is in the tarball: ${files.join(", ")}`);
    }
    assert.ok(files.includes("dist/gen/mercado/v1/match_pb.d.ts"));
    const extra = files.filter((file) => !/^(LICENSE|README\.md|package\.json|dist\/(?!examples\/).+\.(js|d\.ts))$/.test(file));
    assert.deepEqual(extra, [], "no sources, tests, examples or source maps");
    const manifest = JSON.parse(readFileSync(join(project, "node_modules", "@mercado", "client", "package.json"), "utf8")) as {
      version: string;
      private?: boolean;
    };
    assert.equal(manifest.version, VERSION_FILE);
    assert.equal(manifest.private, undefined);
  });

  test("a Node program of the installed package plays a 2-player Leilão match to the end", { timeout: 120_000 }, async () => {
    writeFileSync(join(project, "play.mjs"), PLAY);
    const stdout = await sh(project, process.execPath, ["play.mjs", server.server.target]);
    const result = JSON.parse(stdout.trim().split("\n").at(-1)!) as {
      version: string;
      finished: boolean;
      actions: string;
      ranks: number[];
      scores: number[];
      keptAsJson: boolean;
    };
    assert.equal(result.version, VERSION_FILE, "VERSION is the repo's");
    assert.equal(result.finished, true, stdout);
    assert.ok(Number(result.actions) > 2, stdout);
    assert.equal(result.ranks.length, 2, stdout);
    assert.ok(result.ranks.includes(1), stdout);
    assert.equal(result.scores.length, 2, stdout);
    assert.ok(result.scores.every((score) => Number.isInteger(score)), stdout);
    assert.equal(result.keptAsJson, true, "the final state read back from its JSON is the same");
  });

  test("esbuild bundles it for browsers with no Node module in the bundle", async () => {
    writeFileSync(join(project, "browser.mjs"), BROWSER_ENTRY);
    const esbuild = join(project, "node_modules", ".bin", "esbuild");
    const args = ["browser.mjs", "--bundle", "--platform=browser", "--format=esm", "--outfile=out/bundle.mjs", "--metafile=out/meta.json"];
    await sh(project, esbuild, [...args, "--log-level=warning"]);
    const inputs = Object.keys((JSON.parse(readFileSync(join(project, "out", "meta.json"), "utf8")) as { inputs: object }).inputs);
    assert.ok(inputs.includes("node_modules/@mercado/client/dist/index.js"), inputs.join("\n"));
    assert.deepEqual(
      inputs.filter((input) => /connect-node|@mercado\/client\/dist\/node\.js|^node:/.test(input)),
      [],
      "no Node transport in a browser bundle",
    );
    const bundle = readFileSync(join(project, "out", "bundle.mjs"), "utf8");
    assert.doesNotMatch(bundle, /["']node:|http2/, "the bundle imports no Node built-in");
    // It runs where there is no Node module to load: the exports are there.
    const exported = await sh(project, process.execPath, [
      "--input-type=module",
      "-e",
      'const m = await import("./out/bundle.mjs"); console.log(typeof m.MercadoClient, m.VERSION, m.seatLabel(0), m.Code[m.Code.Aborted], new m.ConnectError("no", m.Code.Aborted).code === m.Code.Aborted);',
    ]);
    assert.equal(exported.trim(), `function ${VERSION_FILE} Seat 1 Aborted true`);
  });

  test("its declarations type-check a Node consumer and a browser consumer", async () => {
    const typeRoots = [join(PACKAGE, "node_modules", "@types")];
    writeFileSync(join(project, "node-consumer.ts"), NODE_CONSUMER);
    writeFileSync(join(project, "browser-consumer.ts"), BROWSER_CONSUMER);
    writeFileSync(
      join(project, "tsconfig.node.json"),
      tsconfig({ module: "nodenext", moduleResolution: "nodenext", target: "es2022", types: ["node"], typeRoots }, ["node-consumer.ts"]),
    );
    writeFileSync(
      join(project, "tsconfig.browser.json"),
      tsconfig({ module: "esnext", moduleResolution: "bundler", target: "es2022", lib: ["es2022", "dom"], types: [] }, [
        "browser-consumer.ts",
      ]),
    );
    const tsc = join(PACKAGE, "node_modules", "typescript", "bin", "tsc");
    await Promise.all([
      sh(project, process.execPath, [tsc, "-p", "tsconfig.node.json"]),
      sh(project, process.execPath, [tsc, "-p", "tsconfig.browser.json"]),
    ]);
  });
});
