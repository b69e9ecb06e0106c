// A full 2-player match against the easy AI agent, played with random legal moves through the wrapper.

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

import { isFinished, MatchStatus, matchResult } from "../src/index.js";
import { playRandomly } from "../src/examples/random-player.js";
import { AiProcess, seededRandom, TestServer } from "./harness.js";

let server: TestServer;
let ai: AiProcess | undefined;

before(async () => {
  server = await TestServer.start();
  ai = await AiProcess.start(server.server, ["easy"]);
});

after(async () => {
  const aiStatus = await ai?.stop();
  const status = await server?.stop();
  assert.equal(aiStatus, 0, `the AI agent exited with ${aiStatus}:\n${ai?.tail()}`);
  assert.equal(status, 0, `the server exited with ${status}:\n${server.server.tail()}`);
});

test("a full 2-player match against the easy AI, random legal moves", { timeout: 120_000 }, async () => {
  const client = server.connect();
  const { matchId, match } = await client.createMatch({ players: 2, seats: ["open", "easy"] });
  assert.equal(match?.status, MatchStatus.WAITING);
  const seat = await client.join(matchId, "ts-random-bot", 0);

  const seed = Date.now() % 1_000_000;
  const versions: bigint[] = [];
  const acting = new Set<number>();
  const final = await playRandomly(seat, {
    random: seededRandom(seed),
    onUpdate: (update) => {
      if (update.action && update.seat !== undefined) {
        versions.push(update.version);
        acting.add(update.seat);
      }
    },
  });

  assert.ok(isFinished(final), `not finished (random seed ${seed})`);
  // Every version arrived once, in order.
  assert.deepEqual(
    versions,
    Array.from({ length: Number(final.version) }, (_, i) => BigInt(i + 1)),
  );
  assert.deepEqual([...acting].sort(), [0, 1], "both the bot and the AI acted");
  assert.equal(final.match?.seats[1]?.bot, true);
  assert.equal(final.match?.seats[1]?.taken, true);

  const result = matchResult(final);
  assert.ok(result, "the final view holds the result");
  assert.equal(result.scores.length, 2);
  assert.deepEqual([...result.ranks].sort(), result.ranks[0] === result.ranks[1] ? [1, 1] : [1, 2]);

  // The replay has every accepted action.
  const replay = await client.replay(matchId);
  assert.equal(BigInt(replay.steps.length), final.version);
  assert.deepEqual(
    replay.steps.map((step) => step.version),
    versions,
  );
});

test("the random-bot example plays a match against the AI from the command line", { timeout: 120_000 }, async () => {
  const script = fileURLToPath(new URL("../src/examples/random-bot.ts", import.meta.url));
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ["--import", "tsx", script, "--server", server.server.target, "--vs-ai", "easy", "--quiet"],
    { cwd: fileURLToPath(new URL("..", import.meta.url)), timeout: 110_000 },
  );
  assert.match(stdout, /^created match [0-9a-f]+ against the easy AI$/m);
  assert.match(stdout, /^match [0-9a-f]+ finished at version \d+$/m);
  assert.match(stdout, /^playing Seat 1 of match [0-9a-f]+$/m);
  assert.match(stdout, /Seat 1 \(this bot\) random-bot: rank [12]/);
});
