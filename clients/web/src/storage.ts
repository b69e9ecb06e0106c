// The seats this browser holds, kept in localStorage so that any tab, also after a browser
// restart, can resume them ("Your games"). A seat's token is its secret: the player token of the
// player the seat is bound to (see player.ts), or for a seat taken without a player (an earlier
// version of the page) the seat token. It stays in this browser's storage and goes only to the
// server, as `authorization: Bearer`.

const SEATS_KEY = "mercado.seats";
const NAME_KEY = "mercado.name";
const GAME_KEY = "mercado.game";
/** Where an earlier version of the page kept the tab's one match. */
const OLD_SESSION_KEY = "mercado.session";
/** Finished matches kept for their replays; older ones are forgotten. */
const FINISHED_KEPT = 10;

export interface SavedSeat {
  matchId: string;
  seat: number;
  /** The player token of `playerId`, or the seat token of a seat without a player. */
  token: string;
  /** The player the seat is bound to; absent for a seat taken without a player. */
  playerId?: string;
  /** When this browser took the seat (ms). */
  savedMs: number;
  /** What this browser last saw of the match, so the list can say it without a call. */
  over?: boolean;
}

const MATCH_ID = /^[0-9a-f]{32}$/;

export const isMatchId = (value: string | null | undefined): value is string => !!value && MATCH_ID.test(value);

function isSavedSeat(item: unknown): item is SavedSeat {
  return (
    typeof item === "object" &&
    item !== null &&
    isMatchId((item as SavedSeat).matchId) &&
    Number.isInteger((item as SavedSeat).seat) &&
    typeof (item as SavedSeat).token === "string" &&
    typeof (item as SavedSeat).savedMs === "number"
  );
}

/** JSON as stored: undefined when it is missing or no JSON. */
function parse(text: string | null): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function write(seats: readonly SavedSeat[]): void {
  try {
    localStorage.setItem(SEATS_KEY, JSON.stringify(seats));
  } catch {
    // Storage full or off (a private window): the game still plays, it just cannot be resumed.
  }
}

/** The seats this browser holds, newest first. */
export function savedSeats(): SavedSeat[] {
  let seats: SavedSeat[] = [];
  try {
    const stored = parse(localStorage.getItem(SEATS_KEY));
    seats = Array.isArray(stored) ? stored.filter(isSavedSeat) : [];
    // A match of the page's earlier version (one per tab, in sessionStorage): keep it.
    const old = sessionStorage.getItem(OLD_SESSION_KEY);
    if (old) {
      sessionStorage.removeItem(OLD_SESSION_KEY);
      const item: unknown = { ...(parse(old) as object), savedMs: Date.now() };
      if (isSavedSeat(item) && !seats.some((seat) => seat.matchId === item.matchId)) {
        seats.push(item);
        write(seats);
      }
    }
  } catch {
    return [];
  }
  return seats.sort((a, b) => b.savedMs - a.savedMs);
}

export function savedSeat(matchId: string): SavedSeat | undefined {
  return savedSeats().find((seat) => seat.matchId === matchId);
}

export function saveSeat(seat: { matchId: string; seat: number; token: string; playerId?: string }): void {
  const others = savedSeats().filter((saved) => saved.matchId !== seat.matchId);
  const saved: SavedSeat = { matchId: seat.matchId, seat: seat.seat, token: seat.token, savedMs: Date.now() };
  if (seat.playerId) saved.playerId = seat.playerId;
  write([saved, ...others]);
}

/** Note that a saved match is over (finished or cancelled); only the latest finished ones are kept. */
export function markOver(matchId: string): void {
  const seats = savedSeats();
  const seat = seats.find((saved) => saved.matchId === matchId);
  if (!seat || seat.over) return;
  seat.over = true;
  let finished = 0;
  write(seats.filter((saved) => !saved.over || ++finished <= FINISHED_KEPT));
}

export function forgetSeat(matchId: string): void {
  write(savedSeats().filter((saved) => saved.matchId !== matchId));
}

/** The display name the player last used. */
export function savedName(): string {
  try {
    return localStorage.getItem(NAME_KEY) ?? "";
  } catch {
    return "";
  }
}

export function saveName(name: string): void {
  try {
    localStorage.setItem(NAME_KEY, name);
  } catch {
    // no storage: the name is asked again next time
  }
}

/** The game the start page last showed (its leaderboard, its finished matches); "" when none. */
export function savedGame(): string {
  try {
    return localStorage.getItem(GAME_KEY) ?? "";
  } catch {
    return "";
  }
}

export function saveGame(game: string): void {
  try {
    localStorage.setItem(GAME_KEY, game);
  } catch {
    // no storage: the start page shows Mercado de Lisboa's next time
  }
}
