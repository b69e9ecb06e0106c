// Package mercado is the Go client of the mercado match service: create and join
// matches of Mercado de Lisboa, read views, submit actions and follow a match's
// updates over gRPC.
//
//	client, err := mercado.Dial("127.0.0.1:50051")
//	defer client.Close()
//	match, err := client.CreateMatch(ctx, mercado.MatchOptions{Seats: []*mercadov1.SeatSpec{
//		mercado.OpenSeat(), mercado.BotSeat(mercadov1.BotLevel_BOT_LEVEL_EASY)}})
//	seat, err := client.Join(ctx, match.GetMatchId(), "ada")
//	final, err := seat.Play(ctx, func(s *mercadov1.MatchState) *mercadov1.Action {
//		return s.GetLegalActions()[0]
//	})
//
// Errors are gRPC status errors (see google.golang.org/grpc/status); the codes are
// described in proto/mercado/v1/match.proto. Calls that are safe to repeat (View,
// Submit with its request id, Follow) are retried with backoff while the server is
// unavailable, for up to the client's reconnect timeout.
package mercado

import (
	"context"
	"errors"
	"io"
	"iter"
	"time"

	"github.com/cenkalti/backoff/v5"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	mercadov1 "github.com/mercado-game/mercado/clients/go/gen/mercado/v1"
)

// DefaultReconnectTimeout is how long calls that are safe to repeat keep retrying an
// unavailable server, counted from the last success.
const DefaultReconnectTimeout = 60 * time.Second

// Client is a connection to a mercado server. It is safe for concurrent use.
type Client struct {
	conn             *grpc.ClientConn
	rpc              mercadov1.MatchServiceClient
	reconnectTimeout time.Duration
}

type options struct {
	reconnectTimeout time.Duration
	dialOptions      []grpc.DialOption
}

// Option configures Dial.
type Option func(*options)

// WithReconnectTimeout sets how long View, Submit, Act and Follow retry an
// unavailable server before giving up (default DefaultReconnectTimeout).
func WithReconnectTimeout(d time.Duration) Option {
	return func(o *options) { o.reconnectTimeout = d }
}

// WithDialOptions adds gRPC dial options, for example transport credentials
// (the default is an insecure, plaintext connection).
func WithDialOptions(opts ...grpc.DialOption) Option {
	return func(o *options) { o.dialOptions = append(o.dialOptions, opts...) }
}

// Dial returns a client for the server at target ("host:port"). It does not
// wait for the connection: the first call connects.
func Dial(target string, opts ...Option) (*Client, error) {
	o := options{reconnectTimeout: DefaultReconnectTimeout}
	for _, opt := range opts {
		opt(&o)
	}
	dial := append([]grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}, o.dialOptions...)
	conn, err := grpc.NewClient(target, dial...)
	if err != nil {
		return nil, err
	}
	return &Client{conn: conn, rpc: mercadov1.NewMatchServiceClient(conn), reconnectTimeout: o.reconnectTimeout}, nil
}

// Close closes the connection; streams and calls in flight end.
func (c *Client) Close() error { return c.conn.Close() }

// RPC is the generated MatchService stub on this client's connection, for
// calls the wrapper does not cover. Send a seat's token with WithToken.
func (c *Client) RPC() mercadov1.MatchServiceClient { return c.rpc }

// WithToken returns ctx carrying a seat token as `authorization: Bearer <token>`
// outgoing metadata. An empty token leaves ctx unchanged (a spectator).
func WithToken(ctx context.Context, token string) context.Context {
	if token == "" {
		return ctx
	}
	return metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+token)
}

// OpenSeat is a seat anyone may join, for MatchOptions.Seats.
func OpenSeat() *mercadov1.SeatSpec {
	return &mercadov1.SeatSpec{Kind: &mercadov1.SeatSpec_Open_{Open: &mercadov1.SeatSpec_Open{}}}
}

// BotSeat is a seat reserved for an AI agent playing at level, for MatchOptions.Seats.
func BotSeat(level mercadov1.BotLevel) *mercadov1.SeatSpec {
	return &mercadov1.SeatSpec{Kind: &mercadov1.SeatSpec_Bot_{Bot: &mercadov1.SeatSpec_Bot{Level: level}}}
}

// MatchOptions describe a new match. The zero value is a 2-player match with
// open seats, hidden money and a random seed.
type MatchOptions struct {
	Players int                   // 2..4; 0 means len(Seats), or 2 without seats
	Seats   []*mercadov1.SeatSpec // per seat in seat order; missing seats are open
	Seed    *uint64               // the set-up seed; random when nil
	// Mercado holds the rule options; nil means the server's defaults.
	Mercado *mercadov1.MercadoOptions
}

// CreateMatch creates a match and returns its summary (its id is GetMatchId()).
// The creator does not get a seat: Join one to play. It is not retried, since a
// repeat would create a second match.
func (c *Client) CreateMatch(ctx context.Context, opts MatchOptions) (*mercadov1.MatchSummary, error) {
	players := opts.Players
	if players == 0 {
		players = max(len(opts.Seats), 2)
	}
	request := &mercadov1.CreateMatchRequest{
		Game:    mercadov1.Game_GAME_MERCADO,
		Players: uint32(players),
		Seats:   opts.Seats,
		Seed:    opts.Seed,
	}
	if opts.Mercado != nil {
		request.Options = &mercadov1.CreateMatchRequest_Mercado{Mercado: opts.Mercado}
	}
	response, err := c.rpc.CreateMatch(ctx, request)
	if err != nil {
		return nil, err
	}
	return response.GetMatch(), nil
}

// Join takes the first open seat of a match.
func (c *Client) Join(ctx context.Context, matchID, displayName string) (*Seat, error) {
	return c.join(ctx, &mercadov1.JoinMatchRequest{MatchId: matchID, DisplayName: displayName})
}

// JoinSeat takes the given open seat of a match.
func (c *Client) JoinSeat(ctx context.Context, matchID string, seat uint32, displayName string) (*Seat, error) {
	return c.join(ctx, &mercadov1.JoinMatchRequest{MatchId: matchID, Seat: &seat, DisplayName: displayName})
}

func (c *Client) join(ctx context.Context, request *mercadov1.JoinMatchRequest) (*Seat, error) {
	response, err := c.rpc.JoinMatch(ctx, request)
	if err != nil {
		return nil, err
	}
	return c.Seat(request.GetMatchId(), response.GetSeat(), response.GetSeatToken()), nil
}

// ClaimBotSeat takes the oldest waiting seat reserved for a bot of one of levels
// (any level when none is given), for AI agents. It returns the seat and its level;
// codes.ResourceExhausted means no bot seat is waiting.
func (c *Client) ClaimBotSeat(ctx context.Context, agentName string, levels ...mercadov1.BotLevel) (*Seat, mercadov1.BotLevel, error) {
	response, err := c.rpc.ClaimBotSeat(ctx, &mercadov1.ClaimBotSeatRequest{Levels: levels, AgentName: agentName})
	if err != nil {
		return nil, 0, err
	}
	return c.Seat(response.GetMatchId(), response.GetSeat(), response.GetSeatToken()), response.GetLevel(), nil
}

// Seat returns a handle for a seat already taken, for example by another
// process, from its match id, number and token.
func (c *Client) Seat(matchID string, number uint32, token string) *Seat {
	return &Seat{MatchID: matchID, Number: number, Token: token, client: c}
}

// ListMatches returns one page of matches, newest first; status
// MATCH_STATUS_UNSPECIFIED lists all. Pass the returned next page token to get
// the next page ("" on the last).
func (c *Client) ListMatches(ctx context.Context, status mercadov1.MatchStatus, pageToken string) ([]*mercadov1.MatchSummary, string, error) {
	response, err := c.rpc.ListMatches(ctx, &mercadov1.ListMatchesRequest{Status: status, PageToken: pageToken})
	if err != nil {
		return nil, "", err
	}
	return response.GetMatches(), response.GetNextPageToken(), nil
}

// View returns the view of the seat whose token is given, or a spectator's view
// when token is "". Retried while the server is unavailable.
func (c *Client) View(ctx context.Context, matchID, token string) (*mercadov1.MatchState, error) {
	return retry(ctx, c, func() (*mercadov1.MatchState, error) {
		return c.rpc.GetView(WithToken(ctx, token), &mercadov1.GetViewRequest{MatchId: matchID})
	})
}

// Replay returns the seed, options and every action of a finished match.
func (c *Client) Replay(ctx context.Context, matchID string) (*mercadov1.Replay, error) {
	return retry(ctx, c, func() (*mercadov1.Replay, error) {
		return c.rpc.GetReplay(ctx, &mercadov1.GetReplayRequest{MatchId: matchID})
	})
}

// Follow streams every update of a match after afterVersion, in order and each
// once, then live updates until the match finishes; token "" follows as a
// spectator. When the connection drops or the server restarts it reconnects and
// resumes after the last version it delivered, giving up after the reconnect
// timeout without getting through. Errors end the sequence: an error is yielded
// once, with a nil update. Breaking out of the loop closes the stream.
//
// An update that changes seats (before the match starts) keeps the version of the
// action before it; after a reconnect only updates with a greater version arrive.
func (c *Client) Follow(ctx context.Context, matchID, token string, afterVersion uint64) iter.Seq2[*mercadov1.MatchUpdate, error] {
	return func(yield func(*mercadov1.MatchUpdate, error) bool) {
		last := afterVersion
		finished, stopped := false, false
		wait := newBackOff()
		var failingSince time.Time
		for {
			err := func() error {
				streamCtx, cancel := context.WithCancel(ctx)
				defer cancel()
				stream, err := c.rpc.StreamEvents(WithToken(streamCtx, token),
					&mercadov1.StreamEventsRequest{MatchId: matchID, AfterVersion: last})
				if err != nil {
					return err
				}
				for {
					update, err := stream.Recv()
					if err != nil {
						return err
					}
					last = max(last, update.GetVersion())
					finished = Finished(update.GetState())
					failingSince = time.Time{}
					wait.Reset()
					if !yield(update, nil) {
						stopped = true
						return nil
					}
				}
			}()
			if stopped || (errors.Is(err, io.EOF) && finished) {
				return
			}
			if errors.Is(err, io.EOF) {
				// The server also ends every stream when it shuts down; only the match
				// itself tells whether it is over.
				state, viewErr := c.View(ctx, matchID, token)
				if viewErr != nil {
					yield(nil, viewErr)
					return
				}
				if Finished(state) && state.GetVersion() <= last {
					return
				}
				err = status.Error(codes.Unavailable, "the update stream ended before the match finished")
			}
			if ctx.Err() != nil {
				yield(nil, ctx.Err())
				return
			}
			if !transient(err) {
				yield(nil, err)
				return
			}
			if failingSince.IsZero() {
				failingSince = time.Now()
			}
			pause := wait.NextBackOff()
			if time.Since(failingSince)+pause > c.reconnectTimeout {
				yield(nil, err)
				return
			}
			select {
			case <-ctx.Done():
				yield(nil, ctx.Err())
				return
			case <-time.After(pause):
			}
		}
	}
}

// transient tells whether a call failed only because the server could not be
// reached, so that repeating it may succeed.
func transient(err error) bool {
	return status.Code(err) == codes.Unavailable
}

func newBackOff() *backoff.ExponentialBackOff {
	b := backoff.NewExponentialBackOff()
	b.InitialInterval = 50 * time.Millisecond
	b.MaxInterval = 2 * time.Second
	return b
}

// retry runs call until it succeeds, fails with a non-transient error, ctx ends
// or the client's reconnect timeout passes.
func retry[T any](ctx context.Context, c *Client, call func() (T, error)) (T, error) {
	return backoff.Retry(ctx, func() (T, error) {
		result, err := call()
		if err != nil && !transient(err) {
			return result, backoff.Permanent(err)
		}
		return result, err
	}, backoff.WithBackOff(newBackOff()), backoff.WithMaxElapsedTime(c.reconnectTimeout))
}
