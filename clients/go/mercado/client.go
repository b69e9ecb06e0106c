// Package mercado is the Go client of the mercado match service: create and join
// matches of its games (Mercado de Lisboa, Oregano, Leilão), read views, submit
// actions and follow a match's updates over gRPC. Nothing in it depends on the game:
// a seat plays by submitting one of its state's legal actions (PlayRandom).
//
//	client, err := mercado.Dial("127.0.0.1:50051")
//	defer client.Close()
//	match, err := client.CreateMatch(ctx, mercado.MatchOptions{Game: mercadov1.Game_GAME_LEILAO,
//		Seats: []*mercadov1.SeatSpec{mercado.OpenSeat(), mercado.BotSeat(mercadov1.BotLevel_BOT_LEVEL_EASY)}})
//	seat, err := client.Join(ctx, match.GetMatchId(), "ada")
//	final, err := seat.Play(ctx, func(s *mercadov1.MatchState) *mercadov1.Action {
//		return s.GetLegalActions()[0]
//	})
//	result := mercado.MatchResult(final) // scores and ranks by seat, each score in named parts
//
// Seat.Watch is the match as it goes for a loop of one's own (IsMyTurn, LegalMoves with
// what each move costs and pays, BidOptions and BidAction for a Leilão bid): it never
// goes back to a state older than the answer to the seat's own action.
//
// A stream (Follow) starts with the match as it stands, an update without an acting
// seat, then brings every accepted action after the version asked for, then live
// updates: actions, and updates without an acting seat whenever seats, clocks or the
// status change. Another seat's sealed action (a Leilão bid) names its seat but
// carries no action until the step's last one reveals them all.
//
// Errors are gRPC status errors (see google.golang.org/grpc/status); the codes are
// described in proto/mercado/v1/match.proto. Every call refused by a fair-use limit
// (codes.ResourceExhausted with a retry-after trailer, see RetryAfter) is repeated
// once the time the server asks for has passed. Calls that are safe to repeat (View,
// Replay, Submit with its request id, Follow, AgentHeartbeat) are also retried with
// backoff while the server is unavailable. Neither goes on past the client's
// reconnect timeout.
//
// Matches have clocks (MatchOptions.TimeControl): a seat whose time runs out is
// played by the AI until Seat.Reclaim takes it back; Seat.Leave gives a seat up.
//
// Players: CreatePlayer makes a guest player and returns its secret player token
// (a frontend's JWT is a player credential too). Sent with WithToken, it makes
// CreateMatch and Join act for that player: the seats it takes are bound to it, and
// the player token acts for them as well as their seat tokens (Client.Seat with the
// player token). FindMatch queues a player for a match with players of a close
// rating; Player, Leaderboard and PlayerMatches read profiles, the ladder and a
// player's matches. A server refuses CreateMatch and Join without a player
// credential (codes.Unauthenticated) unless it runs with --allow-anonymous.
//
// Connections are plaintext unless Dial is given WithTLS or WithTLSCAFile.
package mercado

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"iter"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cenkalti/backoff/v5"
	"github.com/google/uuid"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	mercadov1 "github.com/mercado-game/mercado/clients/go/gen/mercado/v1"
)

// DefaultReconnectTimeout is how long calls keep being repeated after a failure
// (an unavailable server, a fair-use refusal), counted from the first one.
const DefaultReconnectTimeout = 60 * time.Second

// Client is a connection to a mercado server. It is safe for concurrent use.
type Client struct {
	conn             *grpc.ClientConn
	rpc              mercadov1.MatchServiceClient
	reconnectTimeout time.Duration
}

type options struct {
	reconnectTimeout time.Duration
	tls              bool
	caFile           string
	dialOptions      []grpc.DialOption
}

// Option configures Dial.
type Option func(*options)

// WithReconnectTimeout sets how long calls are repeated after a failure before
// giving up (default DefaultReconnectTimeout): View, Replay, Submit, Act, Follow
// and AgentHeartbeat while the server is unavailable, and every call after a fair-use refusal.
func WithReconnectTimeout(d time.Duration) Option {
	return func(o *options) { o.reconnectTimeout = d }
}

// WithTLS connects with TLS, trusting the system's root certificates.
func WithTLS() Option {
	return func(o *options) { o.tls = true }
}

// WithTLSCAFile connects with TLS, trusting the CA certificates of the PEM file
// at path instead of the system's roots (for a server with a private CA).
func WithTLSCAFile(path string) Option {
	return func(o *options) { o.tls, o.caFile = true, path }
}

// WithDialOptions adds gRPC dial options; they come after those of the other
// options, so grpc.WithTransportCredentials here replaces the plaintext default
// or the TLS of WithTLS.
func WithDialOptions(opts ...grpc.DialOption) Option {
	return func(o *options) { o.dialOptions = append(o.dialOptions, opts...) }
}

// Dial returns a client for the server at target ("host:port"): plaintext
// unless WithTLS or WithTLSCAFile is given. It does not wait for the
// connection: the first call connects.
func Dial(target string, opts ...Option) (*Client, error) {
	o := options{reconnectTimeout: DefaultReconnectTimeout}
	for _, opt := range opts {
		opt(&o)
	}
	creds := insecure.NewCredentials()
	switch {
	case o.caFile != "":
		var err error
		if creds, err = credentials.NewClientTLSFromFile(o.caFile, ""); err != nil {
			return nil, fmt.Errorf("mercado: reading the CA file: %w", err)
		}
	case o.tls:
		creds = credentials.NewTLS(&tls.Config{MinVersion: tls.VersionTLS12})
	}
	dial := append([]grpc.DialOption{grpc.WithTransportCredentials(creds)}, o.dialOptions...)
	conn, err := grpc.NewClient(target, dial...)
	if err != nil {
		return nil, err
	}
	return &Client{conn: conn, rpc: mercadov1.NewMatchServiceClient(conn), reconnectTimeout: o.reconnectTimeout}, nil
}

// Close closes the connection; streams and calls in flight end.
func (c *Client) Close() error { return c.conn.Close() }

// RPC is the generated MatchService stub on this client's connection, for
// calls the wrapper does not cover. Send a credential with WithToken.
func (c *Client) RPC() mercadov1.MatchServiceClient { return c.rpc }

// WithToken returns ctx carrying a credential as `authorization: Bearer <token>`
// outgoing metadata: a seat token, a player credential (a player token from
// CreatePlayer, or a frontend's JWT) or the server's agent key. It replaces the
// credential ctx carries already, if any, so that a call sends one: a Seat's calls
// send the seat's Token even with a ctx made by WithToken(ctx, playerToken). An
// empty token leaves ctx unchanged: with the credential it carries, or none (a
// spectator).
//
// CreateMatch and Join take the creator's or joiner's credential from ctx this way:
//
//	asAda := mercado.WithToken(ctx, adaToken)
//	match, err := client.CreateMatch(asAda, mercado.MatchOptions{})
//	seat, err := client.Join(asAda, match.GetMatchId(), "") // bound to ada
func WithToken(ctx context.Context, token string) context.Context {
	if token == "" {
		return ctx
	}
	md, _ := metadata.FromOutgoingContext(ctx) // a copy, with the appended pairs merged in
	if md == nil {
		md = metadata.MD{}
	}
	md.Set("authorization", "Bearer "+token)
	return metadata.NewOutgoingContext(ctx, md)
}

// OpenSeat is a seat anyone may join, for MatchOptions.Seats.
func OpenSeat() *mercadov1.SeatSpec {
	return &mercadov1.SeatSpec{Kind: &mercadov1.SeatSpec_Open_{Open: &mercadov1.SeatSpec_Open{}}}
}

// BotSeat is a seat reserved for an AI agent playing at level, for MatchOptions.Seats.
func BotSeat(level mercadov1.BotLevel) *mercadov1.SeatSpec {
	return &mercadov1.SeatSpec{Kind: &mercadov1.SeatSpec_Bot_{Bot: &mercadov1.SeatSpec_Bot{Level: level}}}
}

// NoClock is a time control without a clock (correspondence play), for
// MatchOptions.TimeControl.
func NoClock() *mercadov1.TimeControl { return &mercadov1.TimeControl{} }

// Clock is a time control for MatchOptions.TimeControl: each human seat has turn
// per turn (whole seconds) and reserve, which a slower turn draws on; a seat that
// runs out is played by the AI until its owner reclaims it (ON_TIMEOUT_AI), or
// forfeits (ON_TIMEOUT_FORFEIT). Set FallbackLevel on the result for an AI other
// than easy.
func Clock(turn, reserve time.Duration, onTimeout mercadov1.OnTimeout) *mercadov1.TimeControl {
	return &mercadov1.TimeControl{
		TurnSeconds:    uint32(turn / time.Second),
		ReserveSeconds: uint32(reserve / time.Second),
		OnTimeout:      onTimeout,
	}
}

// Games returns every game of the API's Game enum, in its order.
func Games() []mercadov1.Game {
	var games []mercadov1.Game
	for value := range mercadov1.Game_name {
		if game := mercadov1.Game(value); game != mercadov1.Game_GAME_UNSPECIFIED {
			games = append(games, game)
		}
	}
	slices.Sort(games)
	return games
}

// GameName is a game's name in the API's enum without its prefix, in lower case:
// "leilao" for GAME_LEILAO, as the player calls (Player.GetGame()) name games.
func GameName(game mercadov1.Game) string {
	return strings.ToLower(strings.TrimPrefix(game.String(), "GAME_"))
}

// MatchOptions describe a new match. The zero value is a 2-player match of Mercado
// de Lisboa with open seats, the rules' default options, a random seed and the
// server's default clock.
type MatchOptions struct {
	// Game is the game to play; GAME_UNSPECIFIED means Mercado de Lisboa.
	Game    mercadov1.Game
	Players int                   // 2..4; 0 means len(Seats), or 2 without seats
	Seats   []*mercadov1.SeatSpec // per seat in seat order; missing seats are open
	// Seed is the set-up seed; the server draws one when nil. A server refuses a
	// chosen seed (codes.PermissionDenied) unless it runs with --allow-chosen-seeds.
	Seed *uint64
	// Options are the game's rule options, its options message (such as a
	// *mercadov1.LeilaoOptions); nil means the rules' defaults.
	Options proto.Message
	// TimeControl is the clock of the human seats (see Clock and NoClock); nil means
	// the server's default: 60 s per turn and 180 s of reserve, the AI (easy) taking
	// over a seat that runs out. TurnSeconds 0 means no clock.
	TimeControl *mercadov1.TimeControl
	// HotSeat lets one player hold several seats (several people at one device); the
	// player token then acts for whichever of its seats is to move. Such a match is
	// unrated.
	HotSeat bool
	// Unrated makes a friendly match: it never counts for the ratings, whoever plays.
	Unrated bool
}

// CreateMatch creates a match and returns its summary (its id is GetMatchId()).
// The creator does not get a seat: Join one to play. The creator's credential is
// the one ctx carries (WithToken(ctx, playerToken)); a server refuses to create a
// match without a player credential (codes.Unauthenticated) unless it runs with
// --allow-anonymous. Bot seats need a server with
// an agent key (`mercado serve --agent-key`) and an AI agent with room for them
// that has sent a heartbeat (AgentHeartbeat), else the match is refused
// codes.FailedPrecondition. It is
// not retried while the server is unavailable, since a repeat could create a
// second match (only after a fair-use refusal, which changed nothing).
func (c *Client) CreateMatch(ctx context.Context, opts MatchOptions) (*mercadov1.MatchSummary, error) {
	players := opts.Players
	if players == 0 {
		players = max(len(opts.Seats), 2)
	}
	game := opts.Game
	if game == mercadov1.Game_GAME_UNSPECIFIED {
		game = mercadov1.Game_GAME_MERCADO
	}
	request := &mercadov1.CreateMatchRequest{
		Game:        game,
		Players:     uint32(players),
		Seats:       opts.Seats,
		Seed:        opts.Seed,
		TimeControl: opts.TimeControl,
		HotSeat:     opts.HotSeat,
		Unrated:     opts.Unrated,
	}
	if opts.Options != nil {
		if err := setOptions(request, opts.Options); err != nil {
			return nil, err
		}
	}
	response, err := retry(ctx, c, afterFairUse, c.rpc.CreateMatch, request)
	if err != nil {
		return nil, err
	}
	return response.GetMatch(), nil
}

// setOptions sets the member of request's options oneof of options' message type,
// whatever the game.
func setOptions(request *mercadov1.CreateMatchRequest, options proto.Message) error {
	message := request.ProtoReflect()
	name := options.ProtoReflect().Descriptor().FullName()
	members := message.Descriptor().Oneofs().ByName("options").Fields()
	for i := range members.Len() {
		if member := members.Get(i); member.Message() != nil && member.Message().FullName() == name {
			message.Set(member, protoreflect.ValueOfMessage(options.ProtoReflect()))
			return nil
		}
	}
	return status.Errorf(codes.InvalidArgument, "mercado: %s are no game's options", name)
}

// Join takes the first open seat of a match. It is retried with one request id
// while the server is unavailable, and after a fair-use refusal: a retry gets the
// seat (and the token) the first attempt took, never a second seat.
//
// With a player credential in ctx (WithToken(ctx, playerToken)) the seat is bound
// to that player: its SeatInfo.PlayerId is the player's, displayName may be "" (the
// player's own name is used), and the player token acts for the seat as well as
// the returned Seat's token: Client.Seat(matchID, number, playerToken) works from
// any device. A player holds at most one seat per match (codes.AlreadyExists)
// unless the match is hot-seat (MatchOptions.HotSeat). Without a player credential
// the seat token is the seat's only key, which a server allows only with
// --allow-anonymous (codes.Unauthenticated otherwise).
func (c *Client) Join(ctx context.Context, matchID, displayName string) (*Seat, error) {
	return c.join(ctx, &mercadov1.JoinMatchRequest{MatchId: matchID, DisplayName: displayName})
}

// JoinSeat takes the given open seat of a match; see Join.
func (c *Client) JoinSeat(ctx context.Context, matchID string, seat uint32, displayName string) (*Seat, error) {
	return c.join(ctx, &mercadov1.JoinMatchRequest{MatchId: matchID, Seat: &seat, DisplayName: displayName})
}

func (c *Client) join(ctx context.Context, request *mercadov1.JoinMatchRequest) (*Seat, error) {
	request.RequestId = uuid.NewString()
	response, err := retry(ctx, c, alsoUnavailable, c.rpc.JoinMatch, request)
	if err != nil {
		return nil, err
	}
	return c.Seat(request.GetMatchId(), response.GetSeat(), response.GetSeatToken()), nil
}

// ClaimBotSeat takes the oldest waiting seat reserved for a bot of one of levels
// (any level when none is given), for AI agents: agentKey is the server's agent
// key (`mercado serve --agent-key`), agentName the seat's display name. It returns
// the seat and its level. codes.ResourceExhausted (without retry-after) means no
// bot seat is waiting; codes.PermissionDenied a missing or wrong agent key. Like
// CreateMatch, it is repeated after a fair-use refusal only.
func (c *Client) ClaimBotSeat(ctx context.Context, agentKey, agentName string, levels ...mercadov1.BotLevel) (*Seat, mercadov1.BotLevel, error) {
	response, err := retry(WithToken(ctx, agentKey), c, afterFairUse, c.rpc.ClaimBotSeat,
		&mercadov1.ClaimBotSeatRequest{Levels: levels, AgentName: agentName})
	if err != nil {
		return nil, 0, err
	}
	return c.Seat(response.GetMatchId(), response.GetSeat(), response.GetSeatToken()), response.GetLevel(), nil
}

// AgentHeartbeat tells the server, for an AI agent, which levels it plays (every
// level when none is given) and how many more seats it can take (freeSlots);
// agentKey is the server's agent key, agentID a name of the agent's own, the same
// for its whole run. It returns the time within which the next heartbeat is due.
// The server refuses bot seats (codes.FailedPrecondition) unless an agent with
// room has sent one lately. Retried while the server is unavailable.
func (c *Client) AgentHeartbeat(ctx context.Context, agentKey, agentID string, freeSlots uint32, levels ...mercadov1.BotLevel) (time.Duration, error) {
	response, err := retry(WithToken(ctx, agentKey), c, alsoUnavailable, c.rpc.AgentHeartbeat,
		&mercadov1.AgentHeartbeatRequest{AgentId: agentID, Levels: levels, FreeSlots: freeSlots})
	if err != nil {
		return 0, err
	}
	return time.Duration(response.GetIntervalSeconds()) * time.Second, nil
}

// Seat returns a handle for a seat already taken, for example by another
// process, from its match id, number and token: the seat token, or the player
// credential of the player the seat is bound to (see Join and FindMatch).
func (c *Client) Seat(matchID string, number uint32, token string) *Seat {
	return &Seat{MatchID: matchID, Number: number, Token: token, client: c, newest: &newestState{}}
}

// ListMatches returns one page of matches of game and status, newest first;
// GAME_UNSPECIFIED lists every game's, MATCH_STATUS_UNSPECIFIED every status.
// Pass the returned next page token to get the next page ("" on the last). It is
// repeated after a fair-use refusal only. PlayerMatches lists one player's.
func (c *Client) ListMatches(ctx context.Context, game mercadov1.Game, status mercadov1.MatchStatus, pageToken string) ([]*mercadov1.MatchSummary, string, error) {
	return c.listMatches(ctx, &mercadov1.ListMatchesRequest{Game: game, Status: status, PageToken: pageToken})
}

func (c *Client) listMatches(ctx context.Context, request *mercadov1.ListMatchesRequest) ([]*mercadov1.MatchSummary, string, error) {
	response, err := retry(ctx, c, afterFairUse, c.rpc.ListMatches, request)
	if err != nil {
		return nil, "", err
	}
	return response.GetMatches(), response.GetNextPageToken(), nil
}

// View returns the view of the seat whose token is given (a seat token, or the
// player credential of the player a seat of the match is bound to), or a
// spectator's view when token is "" (and ctx carries no credential). Retried
// while the server is unavailable.
func (c *Client) View(ctx context.Context, matchID, token string) (*mercadov1.MatchState, error) {
	return retry(WithToken(ctx, token), c, alsoUnavailable, c.rpc.GetView, &mercadov1.GetViewRequest{MatchId: matchID})
}

// Replay returns the seed, options and every action of a finished match.
// Retried while the server is unavailable.
func (c *Client) Replay(ctx context.Context, matchID string) (*mercadov1.Replay, error) {
	return retry(ctx, c, alsoUnavailable, c.rpc.GetReplay, &mercadov1.GetReplayRequest{MatchId: matchID})
}

// Follow streams a match's updates; token is a seat token or the player
// credential of the seat's player (see View), "" follows as a spectator. The first
// update is the match as it stands (no acting seat; the current version), then come
// every accepted action with a version greater than afterVersion, in order and
// each once, then live updates until the match is over (finished or cancelled):
// actions, and updates without an acting seat when seats, clocks or the status
// change (such an update keeps the version of the action before it). An update of
// an action names the acting seat (IsAction); it carries the action itself
// (GetAction()) unless it is another seat's sealed choice.
//
// When the connection drops or the server restarts, Follow reconnects and resumes
// after the last action it delivered: the new stream again starts with the match
// as it stands, then brings the actions that were missed. It gives up after the
// reconnect timeout without getting through; a fair-use refusal is repeated after
// the time the server asks for, within the same timeout. Errors end the sequence:
// an error is yielded once, with a nil update. Breaking out of the loop closes the
// stream.
func (c *Client) Follow(ctx context.Context, matchID, token string, afterVersion uint64) iter.Seq2[*mercadov1.MatchUpdate, error] {
	return func(yield func(*mercadov1.MatchUpdate, error) bool) {
		// last is the version of the last action delivered: the resume point. Other
		// updates do not move it, since the first one of a stream is the match as it
		// stands, ahead of the actions that follow it.
		last := afterVersion
		over, stopped := false, false
		wait := newBackOff()
		var failingSince time.Time
		for {
			var trailer metadata.MD
			err := func() error {
				streamCtx, cancel := context.WithCancel(ctx)
				defer cancel()
				stream, err := c.rpc.StreamEvents(WithToken(streamCtx, token),
					&mercadov1.StreamEventsRequest{MatchId: matchID, AfterVersion: last}, grpc.Trailer(&trailer))
				if err != nil {
					return err
				}
				for {
					update, err := stream.Recv()
					if err != nil {
						return err
					}
					if IsAction(update) {
						last = max(last, update.GetVersion())
					}
					over = Finished(update.GetState())
					failingSince = time.Time{}
					wait.Reset()
					if !yield(update, nil) {
						stopped = true
						return nil
					}
				}
			}()
			if stopped || (errors.Is(err, io.EOF) && over) {
				return
			}
			if errors.Is(err, io.EOF) {
				// The stream ended with the match not over as far as it showed (a server
				// that ends streams when it stops): reconnect, and the new stream's first
				// update shows where the match stands.
				err = status.Error(codes.Unavailable, "the update stream ended before the match was over")
			}
			if ctx.Err() != nil {
				yield(nil, ctx.Err())
				return
			}
			if failingSince.IsZero() {
				failingSince = time.Now()
			}
			if err := c.pauseBeforeRepeat(ctx, err, trailer, alsoUnavailable, wait, failingSince); err != nil {
				yield(nil, err)
				return
			}
		}
	}
}

// RetryAfter tells how long a fair-use refusal asks to wait before the call is
// repeated: err is codes.ResourceExhausted and trailer, the call's trailing
// metadata (grpc.Trailer), carries `retry-after: N` (whole seconds). Such a
// call changed nothing, so repeating it is safe. It returns false for any other
// error, such as codes.ResourceExhausted without retry-after (no seat left).
func RetryAfter(err error, trailer metadata.MD) (time.Duration, bool) {
	values := trailer.Get("retry-after")
	if status.Code(err) != codes.ResourceExhausted || len(values) == 0 {
		return 0, false
	}
	seconds, parseErr := strconv.ParseUint(values[0], 10, 32)
	if parseErr != nil {
		return 0, false
	}
	return time.Duration(seconds) * time.Second, true
}

// repeat says which failures a call is repeated after.
type repeat bool

const (
	// afterFairUse: only fair-use refusals, for calls whose repeat after another
	// failure could take effect twice (a second match or seat).
	afterFairUse repeat = false
	// alsoUnavailable: also while the server is unavailable, for calls that are
	// safe to repeat.
	alsoUnavailable repeat = true
)

// pauseBeforeRepeat waits before a failed call is repeated: the retry-after of
// a fair-use refusal (read from err and trailer; the backoff starts over), or
// the next backoff when the server is unavailable and r allows repeating then.
// It returns nil once it has waited; err itself when the call must not be
// repeated, or when the next attempt would start past ctx's deadline or more
// than the client's reconnect timeout after since; ctx's error when ctx ends
// meanwhile.
func (c *Client) pauseBeforeRepeat(ctx context.Context, err error, trailer metadata.MD, r repeat,
	wait *backoff.ExponentialBackOff, since time.Time) error {
	pause, ok := RetryAfter(err, trailer)
	switch {
	case ok:
		wait.Reset()
	case r == alsoUnavailable && status.Code(err) == codes.Unavailable:
		pause = wait.NextBackOff()
	default:
		return err
	}
	next := time.Now().Add(pause)
	if deadline, ok := ctx.Deadline(); ok && next.After(deadline) {
		return err
	}
	if next.Sub(since) > c.reconnectTimeout {
		return err
	}
	return sleep(ctx, pause)
}

// sleep waits d, or until ctx ends (returning its error).
func sleep(ctx context.Context, d time.Duration) error {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
	}
}

func newBackOff() *backoff.ExponentialBackOff {
	b := backoff.NewExponentialBackOff()
	b.InitialInterval = 50 * time.Millisecond
	b.MaxInterval = 2 * time.Second
	return b
}

// retry makes a unary call, repeating it as r allows (see pauseBeforeRepeat)
// until it succeeds, fails for good, ctx ends or the next attempt would start
// after the client's reconnect timeout. It returns the last failure as it is,
// or ctx's error when ctx ends while it waits.
func retry[Req, Resp any](ctx context.Context, c *Client, r repeat,
	call func(context.Context, Req, ...grpc.CallOption) (Resp, error), request Req) (Resp, error) {
	wait := newBackOff()
	start := time.Now()
	for {
		var trailer metadata.MD
		response, err := call(ctx, request, grpc.Trailer(&trailer))
		if err == nil {
			return response, nil
		}
		if err := c.pauseBeforeRepeat(ctx, err, trailer, r, wait, start); err != nil {
			return response, err
		}
	}
}
