// A bot that plays any of the service's games with random legal moves: it knows no game, and
// submits one of the legal actions the server lists (playRandomly).
//
//   npx tsx src/examples/random-bot.ts --server 127.0.0.1:50051 --vs-ai easy [--game leilao]
//   npx tsx src/examples/random-bot.ts --server 127.0.0.1:50051 --match <id> [--seat 2]
//   npx tsx src/examples/random-bot.ts --server mercado.example:50051 --tls [--ca-file ca.pem] --vs-ai easy
//   node dist/examples/random-bot.js ...   (after npm run build)
//
// --vs-ai creates a 2-player match of --game (mercado, oregano or leilao; default mercado) whose
// other seat is reserved for the AI agent (run `mercado serve --agent-key KEY` and
// `mercado ai --server HOST:PORT --agent-key KEY`); a joined match is of whatever game it is.
// --tls connects with TLS, trusting Node's default roots or the CA of --ca-file.
// It plays as a player: the one of --player-token (or MERCADO_PLAYER_TOKEN), or else a new guest
// player named --name that it signs in as (servers refuse seats without a player unless they run
// with --allow-anonymous).

import { parseArgs } from "node:util";

import { BOT_LEVELS, type BotLevelName, gameNamed, seatLabel } from "../client.js";
import { connectNode } from "../node.js";
import { playRandomly } from "../random-player.js";
import { isFinished } from "../state.js";

const USAGE = `usage: random-bot [--server HOST:PORT] [--tls] [--ca-file PEM] (--vs-ai easy|medium|hard|expert [--game mercado|oregano|leilao] | --match ID [--seat N]) [--name NAME | --player-token TOKEN] [--quiet]`;

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
      game: { type: "string", default: "mercado" },
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
  const game = gameNamed(values.game);
  if (values.help || (level === undefined) === (values.match === undefined) || (level && !isLevel(level)) || !game) {
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
      ({ matchId } = await client.createMatch({ game, players: 2, seats: ["open", level] }, token));
      console.log(`created match ${matchId} of ${values.game} against the ${level} AI`);
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
        if (values.quiet || update.seat === undefined) return;
        // Another seat's sealed choice comes without its action.
        const done = update.action?.game.value?.action.case ?? "acted (sealed)";
        console.log(`version ${update.version}: ${seatLabel(update.seat)} ${done}`);
      },
    });
    if (!isFinished(final)) {
      console.log("the match ended without a result");
      return 1;
    }
    console.log(`match ${matchId} finished at version ${final.version}`);
    // The match's ranks (forfeited seats last): every game has them.
    for (const info of final.match?.seats ?? []) {
      const who = info.seat === seat.seat ? " (this bot)" : "";
      console.log(`  ${seatLabel(info.seat)}${who} ${info.displayName}: rank ${final.match?.ranks[info.seat] ?? "?"}`);
    }
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
