// Full 2-player matches of every game, played with random legal moves through the wrapper: against
// the easy AI agent, and two random players against each other (in Leilão both bid at once).

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

import {
  Game,
  GAMES,
  gameName,
  isAction,
  isFinished,
  matchResult,
  MatchStatus,
  type MatchUpdate,
  playRandomly,
  type Seat,
  seatLabel,
} from "../src/index.js";
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

/** Play `seat` randomly to the end, noting the versions of the actions it saw and who made them. */
async function playNoting(seat: Seat, seed: number) {
  const versions: bigint[] = [];
  const acting = new Set<number>();
  let mostToMove = 0;
  const final = await playRandomly(seat, {
    random: seededRandom(seed),
    onUpdate: (update: MatchUpdate) => {
      mostToMove = Math.max(mostToMove, update.state?.seatsToMove.length ?? 0);
      if (isAction(update)) {
        versions.push(update.version);
        acting.add(update.seat!);
      }
    },
  });
  return { final, versions, acting, mostToMove };
}

/** Every version from 1 to the final one, once and in order; the replay has every action. */
async function assertEveryAction(seat: Seat, versions: bigint[], final: bigint, seed: number): Promise<void> {
  const all = Array.from({ length: Number(final) }, (_, i) => BigInt(i + 1));
  assert.deepEqual(versions, all, `every action once, in order (random seed ${seed})`);
  const replay = await seat.client.replay(seat.matchId);
  assert.deepEqual(
    replay.steps.map((step) => step.version),
    all,
  );
}

for (const game of GAMES) {
  describe(gameName(game), () => {
    test("a full 2-player match against the easy AI, random legal moves", { timeout: 120_000 }, async () => {
      const client = server.connect();
      const { matchId, match } = await client.createMatch({ game, players: 2, seats: ["open", "easy"] });
      assert.equal(match?.status, MatchStatus.WAITING);
      assert.equal(match?.game, game);
      const seat = await client.join(matchId, "ts-random-bot", 0);

      const seed = Date.now() % 1_000_000;
      const { final, versions, acting } = await playNoting(seat, seed);

      assert.ok(isFinished(final), `not finished (random seed ${seed})`);
      await assertEveryAction(seat, versions, final.version, seed);
      assert.deepEqual([...acting].sort(), [0, 1], "both the bot and the AI acted");
      assert.equal(final.match?.seats[1]?.bot, true);
      assert.equal(final.match?.seats[1]?.taken, true);
      assert.equal(final.match?.ranks.length, 2, "each seat has its rank");
      assert.ok(final.match?.ranks.includes(1));
      const result = matchResult(final);
      assert.deepEqual(result?.ranks, final.match?.ranks);
      for (const parts of result?.parts ?? []) {
        const named = parts.parts.map((part) => `${part.label} ${part.points}`).join(", ");
        console.log(`${gameName(game)} against the AI, ${seatLabel(parts.seat)}: ${named} = ${result?.scores[parts.seat]}`);
      }
      assert.equal(result?.scores.length, 2, "each seat's score, in parts");
    });

    test("two random players play a match to the end", { timeout: 120_000 }, async () => {
      const client = server.connect();
      const { matchId } = await client.createMatch({ game, players: 2, seats: ["open", "open"] });
      const seats = [await client.join(matchId, "ana", 0), await server.connect().join(matchId, "bea", 1)];
      const seed = Date.now() % 1_000_000;
      const played = await Promise.all(seats.map((seat, i) => playNoting(seat, seed + i)));
      for (const [i, { final, versions, acting }] of played.entries()) {
        assert.ok(isFinished(final), `seat ${i}: not finished (random seed ${seed})`);
        assert.deepEqual([...acting].sort(), [0, 1], "both seats acted");
        await assertEveryAction(seats[i]!, versions, final.version, seed);
      }
      assert.equal(played[0]!.final.version, played[1]!.final.version);
      assert.deepEqual(played[0]!.final.match?.ranks, played[1]!.final.match?.ranks);
      if (game === Game.LEILAO) {
        assert.equal(played[0]!.mostToMove, 2, "both seats were to move at once (sealed bids)");
      }
    });

    test("the random-bot example plays a match against the AI from the command line", { timeout: 120_000 }, async () => {
      const script = fileURLToPath(new URL("../src/examples/random-bot.ts", import.meta.url));
      const { stdout } = await promisify(execFile)(
        process.execPath,
        ["--import", "tsx", script, "--server", server.server.target, "--vs-ai", "easy", "--game", gameName(game), "--quiet"],
        { cwd: fileURLToPath(new URL("..", import.meta.url)), timeout: 110_000 },
      );
      assert.match(stdout, new RegExp(`^created match [0-9a-f]+ of ${gameName(game)} against the easy AI$`, "m"));
      assert.match(stdout, /^match [0-9a-f]+ finished at version \d+$/m);
      assert.match(stdout, /^playing Seat 1 of match [0-9a-f]+$/m);
      assert.match(stdout, /Seat 1 \(this bot\) random-bot: rank [12]/);
    });
  });
}
