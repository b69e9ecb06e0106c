"""The players of a server: guest accounts, frontends' users, bot levels, and the rating ladders
(one per game).

Ratings change only here, one finished match at a time (a lock), each match
once: the store refuses to decide a match's rating twice. A match that finished
while the server was stopping is rated at the next start.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import uuid
from collections.abc import Mapping

from server.match import BOT_LEVELS, FINISHED, Match, MatchService
from server.match.clocks import now_ms
from server.match.errors import NotAllowedNow, NotFound
from server.match.inputs import check_name
from server.store import Conflict, Store
from server.store.records import BOT, GUEST, RATED, UNRATED, PlayerRecord, bot_name, bot_player_id

from .guest_tokens import GuestTokens
from .identity import Authenticator, Identity
from .ratings import played, rated_players, unrated_because

GUEST_SECRET = "guest-token-secret"  # the store's name for the key of guest tokens
KNOWN_KEPT = 10_000  # frontend users whose stored name is known to be current
RATING_ATTEMPTS = 5  # tries to rate a match while other servers rate its players' other matches
log = logging.getLogger("mercado.players")


class Players:
    """Player records, credentials and ratings, beside one MatchService."""

    def __init__(self, store: Store, authenticator: Authenticator, service: MatchService) -> None:
        self.store = store
        self.auth = authenticator
        self.guest_tokens = GuestTokens(store, authenticator)
        self.service = service
        self.rating_lock = asyncio.Lock()
        self.known: dict[str, str] = {}  # frontend user -> the display name stored for it
        self.tasks: set[asyncio.Task[None]] = set()
        service.on_finished = self._finished

    async def start(self, bot_ratings: Mapping[str, Mapping[str, tuple[float, float]]] | None = None) -> None:
        """Put the bot levels on the ladders, on each game's at that game's ``bot_ratings`` (by game,
        then by player: mu and sigma, the levels' strength measured in that game) until they have
        played there, and rate the matches that finished while the server was stopping."""
        bots = []
        for level in BOT_LEVELS:
            # On Mercado's ladder at a newcomer's rating, then on each game's where it was measured.
            bot = PlayerRecord(bot_player_id(level), BOT, bot_name(level), now_ms())
            measured = {
                game: ratings[bot.player_id]
                for game, ratings in (bot_ratings or {}).items()
                if bot.player_id in ratings
            }
            if bot.game not in measured:
                bots.append(bot)
            bots += [
                dataclasses.replace(bot, game=game, mu=mu, sigma=sigma)
                for game, (mu, sigma) in measured.items()
            ]
        await self.store.calibrate(bots)
        for match_id in await self.store.finished_unrated():
            with contextlib.suppress(NotFound):
                await self.rate(await self.service.get(match_id))

    async def close(self) -> None:
        """Let the ratings being written finish."""
        await asyncio.gather(*self.tasks, return_exceptions=True)

    # --- who -----------------------------------------------------------------

    async def create_guest(self, display_name: str) -> tuple[PlayerRecord, str]:
        """A new guest player and its secret token."""
        player = PlayerRecord(uuid.uuid4().hex, GUEST, check_name(display_name), now_ms())
        await self.store.save_player(player)
        return player, self.auth.guest_token(player.player_id)

    async def identify(self, credential: str) -> Identity:
        """The player ``credential`` names; Unauthenticated with the reason when it fails a check (a
        guest token replaced by a newer one among them)."""
        identity = self.auth.identify(credential)
        if identity.kind == GUEST:
            await self.guest_tokens.check(identity)
        return identity

    async def rotate_token(self, identity: Identity) -> tuple[PlayerRecord, str]:
        """The guest player of ``identity`` and its new token; its earlier tokens are revoked."""
        if identity.kind != GUEST:
            raise NotAllowedNow(
                "only a guest token is rotated here: a frontend's users get theirs from the frontend"
            )
        token = await self.guest_tokens.rotate(identity)
        log.info("player token rotated", extra={"player_id": identity.player_id})
        return await self.get(identity.player_id), token

    async def player_of(self, identity: Identity, game: str = "mercado") -> PlayerRecord:
        """The caller's record, with its rating in ``game``: a frontend's user is stored (or renamed)
        as its token says."""
        if identity.kind == GUEST:
            return await self.get(identity.player_id, game)
        if self.known.get(identity.player_id) != identity.display_name:
            stored = PlayerRecord(identity.player_id, identity.kind, identity.display_name, now_ms())
            await self.store.save_player(stored)
            if len(self.known) >= KNOWN_KEPT:
                self.known.clear()
            self.known[identity.player_id] = identity.display_name
        return await self.get(identity.player_id, game)

    async def get(self, player_id: str, game: str = "mercado") -> PlayerRecord:
        """A player, with its rating in ``game``."""
        found = (await self.store.players([player_id], game)).get(player_id)
        if found is None:
            raise NotFound(f"no player {player_id}")
        return found

    async def bot_ratings(self, game: str = "mercado") -> dict[str, float]:
        """Each bot level's rating mean in ``game``, by level: what matchmaking picks bots by."""
        stored = await self.store.players([bot_player_id(level) for level in BOT_LEVELS], game)
        return {
            level: stored[bot_player_id(level)].mu for level in BOT_LEVELS if bot_player_id(level) in stored
        }

    async def leaderboard(
        self, limit: int, after: tuple[float, str] | None, game: str = "mercado"
    ) -> list[PlayerRecord]:
        return await self.store.leaderboard(limit, after, game)

    # --- ratings -------------------------------------------------------------

    def _finished(self, match: Match) -> None:
        task = asyncio.get_running_loop().create_task(self._rate_logged(match))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _rate_logged(self, match: Match) -> None:
        try:
            await self.rate(match)
        except Exception:
            log.exception("rating a match failed", extra={"match_id": match.match_id})

    async def rate(self, match: Match) -> None:
        """Decide whether ``match`` (finished) counts, and if so update its players' ratings in its game."""
        record = match.record
        if match.status != FINISHED or record.rating is not None:
            return
        async with self.rating_lock:
            play = played(match)
            for _ in range(RATING_ATTEMPTS):
                why_not = unrated_because(record, play)
                players: list[PlayerRecord] = []
                if why_not is None:
                    ids = [seat.player_id or "" for seat in record.seats]
                    stored = await self.store.players(ids, record.game)
                    if len(stored) != len(set(ids)):
                        why_not = "a player is not stored"
                    else:
                        players = rated_players(record, [stored[i] for i in ids], match.ranks(), play)
                outcome = UNRATED if why_not else RATED
                try:
                    await self.store.record_rating(record.match_id, outcome, players)
                    break
                except Conflict:
                    # Decided already (another server, or before a restart), or another server
                    # rated one of its players meanwhile: then rate it again from the new rating.
                    stored_match = await self.store.load_match(record.match_id, after=len(match.actions))
                    if stored_match is None or stored_match[0].rating is not None:
                        return
            else:
                log.warning("rating a match lost every race; it is rated at the next start")
                return
            record.rating = outcome
        log.info(
            "match rated" if why_not is None else "match unrated",
            extra={"match_id": record.match_id, "reason": why_not},
        )
