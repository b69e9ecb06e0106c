package mercado

import (
	"context"
	"errors"
	"io"
	"iter"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	mercadov1 "github.com/mercado-game/mercado/clients/go/gen/mercado/v1"
)

// CreatePlayer creates a guest player named displayName (1..40 printable
// characters) and returns it with its secret player token. Keep the token: it is
// that player from any device (it does not expire; RotatePlayerToken replaces it). Send it with
// WithToken to create matches and take seats as the player, and pass it as the
// token of FindMatch, Player and the player's seats. No credential is needed. Like
// CreateMatch, it is repeated after a fair-use refusal only: a repeat after a lost
// reply would create a second player.
func (c *Client) CreatePlayer(ctx context.Context, displayName string) (*mercadov1.Player, string, error) {
	response, err := retry(ctx, c, afterFairUse, c.rpc.CreatePlayer,
		&mercadov1.CreatePlayerRequest{DisplayName: displayName})
	if err != nil {
		return nil, "", err
	}
	return response.GetPlayer(), response.GetPlayerToken(), nil
}

// RotatePlayerToken gives the guest player whose token is token a new token,
// which replaces it: keep the returned one instead, since every earlier token of
// the player is refused from then on (codes.Unauthenticated). The player, its
// ratings and its seats stay. Repeated after a fair-use refusal only: after a lost
// reply the old token may be refused already.
func (c *Client) RotatePlayerToken(ctx context.Context, token string) (*mercadov1.Player, string, error) {
	response, err := retry(WithToken(ctx, token), c, afterFairUse, c.rpc.RotatePlayerToken,
		&mercadov1.RotatePlayerTokenRequest{})
	if err != nil {
		return nil, "", err
	}
	return response.GetPlayer(), response.GetPlayerToken(), nil
}

// ratedGame is a game as the player calls name it ("leilao"); "" (Mercado) for
// GAME_UNSPECIFIED.
func ratedGame(game mercadov1.Game) string {
	if game == mercadov1.Game_GAME_UNSPECIFIED {
		return ""
	}
	return GameName(game)
}

// Player returns a player's profile and rating in game (ratings are per game;
// GAME_UNSPECIFIED is Mercado): playerID's (a player id, or `bot:<level>` for a
// bot level), or with playerID "" the caller's own, the player whose credential
// token is (codes.Unauthenticated without one). token may be "" for another
// player's profile. Retried while the server is unavailable.
func (c *Client) Player(ctx context.Context, game mercadov1.Game, token, playerID string) (*mercadov1.Player, error) {
	return retry(WithToken(ctx, token), c, alsoUnavailable, c.rpc.GetPlayer,
		&mercadov1.GetPlayerRequest{PlayerId: playerID, Game: ratedGame(game)})
}

// Leaderboard returns one page of the players rated in game (bots included;
// GAME_UNSPECIFIED is Mercado), best display rating (mu − 3·sigma) first, one
// ladder for every player count: pageSize 1..100 of them (0 means 20). Pass the
// returned next page token to get the next page ("" on the last). Retried while
// the server is unavailable.
func (c *Client) Leaderboard(ctx context.Context, game mercadov1.Game, pageSize uint32, pageToken string) ([]*mercadov1.LeaderboardEntry, string, error) {
	response, err := retry(ctx, c, alsoUnavailable, c.rpc.GetLeaderboard,
		&mercadov1.GetLeaderboardRequest{PageSize: pageSize, PageToken: pageToken, Game: ratedGame(game)})
	if err != nil {
		return nil, "", err
	}
	return response.GetEntries(), response.GetNextPageToken(), nil
}

// PlayerMatches returns one page of the matches where the player playerID holds a
// seat, newest first, unfinished ones included ("my games": the caller's own id is
// Player(ctx, game, token, "").GetPlayerId()); a bot level's id (`bot:easy`) lists
// that level's matches. game, status and pageToken are as for ListMatches. The
// player's seat in each is the SeatInfo whose GetPlayerId() is playerID;
// Client.Seat with the player's token acts for it. Like ListMatches, it is
// repeated after a fair-use refusal only.
func (c *Client) PlayerMatches(ctx context.Context, playerID string, game mercadov1.Game, status mercadov1.MatchStatus, pageToken string) ([]*mercadov1.MatchSummary, string, error) {
	return c.listMatches(ctx, &mercadov1.ListMatchesRequest{Game: game, Status: status, PageToken: pageToken, PlayerId: playerID})
}

// FindMatch is matchmaking for the player whose credential token is (a player
// credential is required: codes.Unauthenticated otherwise). It queues the player
// for a match of game (GAME_UNSPECIFIED is Mercado) and players (2..4; 0 means 2),
// grouped by its rating in that game, and yields what the server sends:
// about once a second an update with GetQueued() (the time waited, the players
// queued for the same count, the current rating window), then one with GetFound():
// the match, created with every player of the group seated, and the caller's seat
// and seat token in it. The sequence ends after the MatchFound. With allowAI, once
// the player has waited as long as the server says (`mercado serve
// --matchmaking-ai-wait`, 15 s by default), bots of a close rating fill the seats
// no queued player takes.
//
//	for update, err := range client.FindMatch(ctx, playerToken, mercadov1.Game_GAME_LEILAO, 2, false) {
//		if err != nil {
//			return err
//		}
//		if found := update.GetFound(); found != nil {
//			seat = client.Seat(found.GetMatchId(), found.GetSeat(), found.GetSeatToken())
//		}
//	}
//
// The player token acts for the found seat too: client.Seat(found.GetMatchId(),
// found.GetSeat(), playerToken).
//
// Breaking out of the loop, or ending ctx, closes the stream and so leaves the
// queue. A player queues once at a time: a second FindMatch while one is open
// yields codes.AlreadyExists. Errors end the sequence: an error is yielded once,
// with a nil update (ctx's error when ctx ends).
//
// Opening the stream is repeated after a fair-use refusal, which changed nothing.
// Nothing else is repeated: after a dropped connection, or a stream that ended
// without a match (yielded as codes.Unavailable), the match may have been made
// without its MatchFound arriving, and queueing again could seat the player in a
// second one. PlayerMatches lists the player's matches.
func (c *Client) FindMatch(ctx context.Context, token string, game mercadov1.Game, players uint32, allowAI bool) iter.Seq2[*mercadov1.FindMatchUpdate, error] {
	return func(yield func(*mercadov1.FindMatchUpdate, error) bool) {
		request := &mercadov1.FindMatchRequest{Game: game, Players: players, AllowAi: allowAI}
		wait := newBackOff()
		start := time.Now()
		for {
			var trailer metadata.MD
			received, stopped := false, false
			err := func() error {
				streamCtx, cancel := context.WithCancel(ctx)
				defer cancel() // closes the stream: the server takes the player out of the queue
				stream, err := c.rpc.FindMatch(WithToken(streamCtx, token), request, grpc.Trailer(&trailer))
				if err != nil {
					return err
				}
				for {
					update, err := stream.Recv()
					if err != nil {
						return err
					}
					received = true
					if !yield(update, nil) || update.GetFound() != nil {
						stopped = true
						return nil
					}
				}
			}()
			switch {
			case stopped:
				return
			case ctx.Err() != nil:
				yield(nil, ctx.Err())
				return
			case errors.Is(err, io.EOF):
				yield(nil, status.Error(codes.Unavailable, "the matchmaking stream ended before a match was found"))
				return
			case received:
				// Refused or dropped while queued: the player may have been grouped meanwhile.
				yield(nil, err)
				return
			}
			if err := c.pauseBeforeRepeat(ctx, err, trailer, afterFairUse, wait, start); err != nil {
				yield(nil, err)
				return
			}
		}
	}
}
