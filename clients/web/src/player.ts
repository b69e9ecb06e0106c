// The player this browser plays as: a guest player the server made (CreatePlayer), whose secret
// player token is kept in localStorage, one per server origin. The page sends it as
// `authorization: Bearer` to create, join, find and play matches, so every seat it takes is bound
// to the player (its rating, "Your games" from ListMatches(player_id)).

import { Code } from "@connectrpc/connect";
import { codeOf, gameNamed, type GameName, type Player } from "@mercado/client";
import { savedName, saveName } from "./storage.js";
import { client, GAMES } from "./ui.js";

/** Per server origin: a page served by another server (or `npm run dev` against one) has its own player. */
const PLAYER_KEY = `mercado.player@${window.location.origin}`;

export interface SignedIn {
  playerId: string;
  /** The player's display name, as the server has it. */
  name: string;
  /** The player token: a secret, sent only to this server. */
  token: string;
}

function isSignedIn(item: unknown): item is SignedIn {
  const value = item as SignedIn | null;
  return (
    typeof value === "object" &&
    value !== null &&
    typeof value.playerId === "string" &&
    typeof value.name === "string" &&
    typeof value.token === "string" &&
    value.token.length > 0
  );
}

/** The player this browser plays as on this server, if it has signed in. */
export function signedIn(): SignedIn | undefined {
  try {
    const stored = JSON.parse(localStorage.getItem(PLAYER_KEY) ?? "null") as unknown;
    return isSignedIn(stored) ? stored : undefined;
  } catch {
    return undefined;
  }
}

/** For a browser without storage (a private window): the player of this page's life. */
let inMemory: SignedIn | undefined;

function keep(player: SignedIn): void {
  inMemory = player;
  try {
    localStorage.setItem(PLAYER_KEY, JSON.stringify(player));
  } catch {
    // no storage: this page plays as the player until it is closed
  }
}

export function forgetPlayer(): void {
  inMemory = undefined;
  try {
    localStorage.removeItem(PLAYER_KEY);
  } catch {
    // nothing stored
  }
}

/** The current player, stored or of this page's life. */
export function currentPlayer(): SignedIn | undefined {
  return signedIn() ?? inMemory;
}

/** A name for a guest who gave none: "Guest 4821". */
function guestName(): string {
  const [n = 0] = crypto.getRandomValues(new Uint16Array(1));
  return `Guest ${1000 + (n % 9000)}`;
}

let signingIn: Promise<SignedIn> | undefined;

/** Sign in as a new guest player named `name` (a "Guest NNNN" name when empty); it becomes the current player. */
export function signIn(name: string): Promise<SignedIn> {
  signingIn ??= (async () => {
    try {
      const wanted = name.trim() || guestName();
      const { player, playerToken } = await client.createPlayer(wanted);
      const signed: SignedIn = { playerId: player?.playerId ?? "", name: player?.displayName ?? wanted, token: playerToken };
      keep(signed);
      saveName(signed.name);
      return signed;
    } finally {
      signingIn = undefined;
    }
  })();
  return signingIn;
}

/**
 * The current player; without one, sign in as a guest named `name` (or the name this browser
 * used before, or a "Guest NNNN" name).
 */
export async function ensurePlayer(name = ""): Promise<SignedIn> {
  return currentPlayer() ?? signingIn ?? signIn(name.trim() || savedName());
}

/** The player's profile with its rating and record in each game. */
export interface Profile {
  me: SignedIn;
  ratings: Record<GameName, Player>;
}

async function profileOf(me: SignedIn, signal?: AbortSignal): Promise<Profile> {
  const games = Object.keys(GAMES) as GameName[];
  const players = await Promise.all(games.map((game) => client.getPlayer(me.token, { game: gameNamed(game), signal })));
  return { me, ratings: Object.fromEntries(games.map((game, i) => [game, players[i]!])) as Record<GameName, Player> };
}

/**
 * The current player's profile and ratings from the server. A token the server no longer knows
 * (its database was replaced) signs in again as a new guest of the same name.
 */
export async function loadPlayer(signal?: AbortSignal): Promise<Profile> {
  const me = await ensurePlayer();
  try {
    return await profileOf(me, signal);
  } catch (failure) {
    if (codeOf(failure) !== Code.Unauthenticated || signal?.aborted || currentPlayer()?.token !== me.token) throw failure;
    forgetPlayer();
    return profileOf(await signIn(me.name), signal);
  }
}
