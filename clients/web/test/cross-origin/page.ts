// A frontend's page on an origin of its own (not the server's): it calls a mercado server's web port
// (`?server=http://host:port`) with the TypeScript client over gRPC-Web, signs in as a guest and plays
// Leilão against the easy AI with random legal actions. What happened goes into the body's data
// attributes: `data-outcome` "finished" with `data-ranks`, or "failed" with `data-error`.

import { createGrpcWebTransport } from "@connectrpc/connect-web";
import { Game, MatchStatus, MercadoClient, playRandomly } from "@mercado/client";

async function play(server: string): Promise<string> {
  const client = new MercadoClient(createGrpcWebTransport({ baseUrl: server }));
  const { playerToken } = await client.createPlayer("cross-origin");
  const { matchId } = await client.createMatch({ game: Game.LEILAO, seats: ["open", "easy"] }, playerToken);
  document.body.dataset.matchId = matchId;
  const final = await playRandomly(await client.join(matchId, "", 0, playerToken));
  if (final.match?.status !== MatchStatus.FINISHED) throw new Error(`the match ended ${MatchStatus[final.match?.status ?? 0]}`);
  return final.match.ranks.join(",");
}

const server = new URLSearchParams(location.search).get("server") ?? "";
play(server).then(
  (ranks) => Object.assign(document.body.dataset, { outcome: "finished", ranks }),
  (error: unknown) => Object.assign(document.body.dataset, { outcome: "failed", error: String(error) }),
);
