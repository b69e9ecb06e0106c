// A bot that plays Mercado de Lisboa with random legal moves.
//
//   npx tsx src/examples/random-bot.ts --server 127.0.0.1:50051 --vs-ai easy
//   npx tsx src/examples/random-bot.ts --server 127.0.0.1:50051 --match <id> [--seat 2]
//   npx tsx src/examples/random-bot.ts --server mercado.example:50051 --tls [--ca-file ca.pem] --vs-ai easy
//   node dist/examples/random-bot.js ...   (after npm run build)
//
// --vs-ai creates a 2-player match whose other seat is reserved for the AI agent (run
// `mercado serve --agent-key KEY` and `mercado ai --server HOST:PORT --agent-key KEY`).
// --tls connects with TLS, trusting Node's default roots or the CA of --ca-file.
// It plays as a player: the one of --player-token (or MERCADO_PLAYER_TOKEN), or else a new guest
// player named --name that it signs in as (servers refuse seats without a player unless they run
// with --allow-anonymous).

import { parseArgs } from "node:util";

import { BOT_LEVELS, type BotLevelName, matchResult, mercadoView, seatLabel } from "../client.js";
import { connectNode } from "../node.js";
import { playRandomly } from "./random-player.js";

const USAGE = `usage: random-bot [--server HOST:PORT] [--tls] [--ca-file PEM] (--vs-ai easy|medium|hard | --match ID [--seat N]) [--name NAME | --player-token TOKEN] [--quiet]`;

function isLevel(value: string): value is BotLevelName {
  return Object.hasOwn(BOT_LEVELS, value);
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      server: { type: "string", default: process.env["MERCADO_SERVER"] ?? "127.0.0.1:50051" },
      tls: { type: "boolean", default: /^(1|true|yes|on)$/i.test(process.env["MERCADO_TLS"] ?? "") },
      "ca-file": { type: "string", ...(process.env["MERCADO_CA_FILE"] ? { default: process.env["MERCADO_CA_FILE"] } : {}) },
      "vs-ai": { type: "string" },
      match: { type: "string" },
      seat: { type: "string" },
      name: { type: "string", default: "random-bot" },
      "player-token": {
        type: "string",
        ...(process.env["MERCADO_PLAYER_TOKEN"] ? { default: process.env["MERCADO_PLAYER_TOKEN"] } : {}),
      },
      quiet: { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  const level = values["vs-ai"];
  if (values.help || (level === undefined) === (values.match === undefined) || (level && !isLevel(level))) {
    console.error(USAGE);
    return values.help ? 0 : 2;
  }

  const caFile = values["ca-file"];
  const client = connectNode(values.server, { tls: values.tls, ...(caFile ? { caFile } : {}) });
  try {
    let token = values["player-token"];
    if (!token) {
      const { player, playerToken } = await client.createPlayer(values.name);
      token = playerToken;
      if (!values.quiet) console.log(`signed in as the guest player ${player?.playerId} (${player?.displayName})`);
    }
    let matchId = values.match;
    if (level && isLevel(level)) {
      ({ matchId } = await client.createMatch({ players: 2, seats: ["open", level] }, token));
      console.log(`created match ${matchId} against the ${level} AI`);
    }
    if (!matchId) return 2;
    // People count seats from 1 (`--seat 1` is the API's seat 0).
    const seatNumber = values.seat === undefined ? undefined : Number(values.seat);
    if (seatNumber !== undefined && !(Number.isInteger(seatNumber) && seatNumber >= 1)) {
      console.error(`--seat takes a seat number from 1, not ${values.seat}`);
      return 2;
    }
    const seat = await client.join(matchId, "", seatNumber === undefined ? undefined : seatNumber - 1, token);
    console.log(`playing ${seatLabel(seat.seat)} of match ${matchId}`);

    const final = await playRandomly(seat, {
      onUpdate: (update) => {
        const game = update.action?.game;
        if (!values.quiet && game?.case === "mercado") {
          console.log(`version ${update.version}: ${seatLabel(update.seat ?? 0)} ${game.value.action.case ?? "?"}`);
        }
      },
    });
    const result = matchResult(final);
    if (!result) {
      console.log("the match ended without a result");
      return 1;
    }
    const players = mercadoView(final)?.players ?? [];
    console.log(`match ${matchId} finished at version ${final.version}`);
    result.scores.forEach((score, index) => {
      const who = index === seat.seat ? " (this bot)" : "";
      const name = final.match?.seats[index]?.displayName ?? "";
      console.log(
        `  ${seatLabel(index)}${who} ${name}: rank ${final.match?.ranks[index] ?? result.ranks[index]}, ${score} points, ${result.standsOnMarket[index]} stands on the market, ${players[index]?.coins ?? "?"} coins`,
      );
    });
    return 0;
  } finally {
    client.close();
  }
}

main().then(
  (status) => {
    process.exitCode = status;
  },
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  },
);
