package mercado

import (
	"context"
	"errors"
	"fmt"
	"iter"

	"github.com/google/uuid"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	mercadov1 "github.com/mercado-game/mercado/clients/go/gen/mercado/v1"
)

// maxStaleRetries bounds how often Act resubmits after codes.Aborted; each
// retry means another action was accepted in between, so a few are plenty.
const maxStaleRetries = 16

// Seat is a seat taken in a match. Its secret token authorizes acting for it;
// keep it to come back to the match later (Client.Seat). For a seat bound to a
// player (taken with a player credential, or found by FindMatch) the player's
// credential is such a token too, and every method works with it.
type Seat struct {
	MatchID string
	Number  uint32 // the seat, 0-based, in seat order (not turn order)
	Token   string // the seat token, or the credential of the seat's player

	client *Client
	newest *newestState // what its calls have seen
}

// Client returns the client the seat uses.
func (s *Seat) Client() *Client { return s.client }

// Latest returns the newest state the seat's calls have brought (its views, the
// answers to its actions, its Watch's updates); nil before the first.
func (s *Seat) Latest() *mercadov1.MatchState { return s.newest.get() }

// View returns the seat's view of its match.
func (s *Seat) View(ctx context.Context) (*mercadov1.MatchState, error) {
	state, err := s.client.View(ctx, s.MatchID, s.Token)
	s.newest.note(state)
	return state, err
}

// Follow streams the match's updates after afterVersion as the seat sees them;
// see Client.Follow.
func (s *Seat) Follow(ctx context.Context, afterVersion uint64) iter.Seq2[*mercadov1.MatchUpdate, error] {
	return s.client.Follow(ctx, s.MatchID, s.Token, afterVersion)
}

// Submit sends one action once: expectedVersion is the version the seat last saw,
// requestID a client-chosen id unique in the match. It is retried with the same
// request id while the server is unavailable, which the server applies at most
// once, and after a fair-use refusal. It does not handle codes.Aborted; Act does.
func (s *Seat) Submit(ctx context.Context, action *mercadov1.Action, expectedVersion uint64, requestID string) (*mercadov1.SubmitActionResponse, error) {
	request := &mercadov1.SubmitActionRequest{
		MatchId:         s.MatchID,
		ExpectedVersion: expectedVersion,
		RequestId:       requestID,
		Action:          action,
	}
	response, err := retry(WithToken(ctx, s.Token), s.client, alsoUnavailable, s.client.rpc.SubmitAction, request)
	s.newest.note(response.GetState())
	return response, err
}

// Act submits action at the match's current version (fetched first).
func (s *Seat) Act(ctx context.Context, action *mercadov1.Action) (*mercadov1.SubmitActionResponse, error) {
	state, err := s.View(ctx)
	if err != nil {
		return nil, err
	}
	return s.ActAt(ctx, action, state.GetVersion())
}

// ActAt submits action as seen at version under a new request id. When the
// version is stale (codes.Aborted) it fetches the view and, while the action is
// still legal, resubmits it at the new version with the same request id, so it
// is applied at most once. Other refusals are returned as they are, for example
// codes.FailedPrecondition for an action that is not legal now.
func (s *Seat) ActAt(ctx context.Context, action *mercadov1.Action, version uint64) (*mercadov1.SubmitActionResponse, error) {
	requestID := uuid.NewString()
	for attempt := 0; ; attempt++ {
		response, err := s.Submit(ctx, action, version, requestID)
		if status.Code(err) != codes.Aborted || attempt == maxStaleRetries {
			return response, err
		}
		state, viewErr := s.View(ctx)
		if viewErr != nil {
			return nil, viewErr
		}
		if !IsLegal(state, action) {
			return nil, err
		}
		version = state.GetVersion()
	}
}

// IsLegal tells whether action is among the legal actions of state.
func IsLegal(state *mercadov1.MatchState, action *mercadov1.Action) bool {
	for _, legal := range state.GetLegalActions() {
		if proto.Equal(legal, action) {
			return true
		}
	}
	return false
}

// IsAction tells whether update is an accepted action (it names the acting seat),
// rather than the match as it stands or a change of seats, clocks or status.
// Another seat's sealed choice is an action without GetAction(): only its seat
// and events saying that it acted.
func IsAction(update *mercadov1.MatchUpdate) bool { return update.Seat != nil }

// Finished tells whether state shows a match that is over: finished, or cancelled
// (it expired before every seat was taken). Nothing more happens in either.
func Finished(state *mercadov1.MatchState) bool {
	switch state.GetMatch().GetStatus() {
	case mercadov1.MatchStatus_MATCH_STATUS_FINISHED, mercadov1.MatchStatus_MATCH_STATUS_CANCELLED:
		return true
	}
	return false
}

// Leave gives the seat up for good. In a waiting match the seat is open again (and
// the token no longer counts); in a match in play the AI plays it from now on, or
// it forfeits, as the match's time control says (SeatInfo.Left, Forfeited). It
// returns the match's summary after. Like Client.Join, it is repeated after a
// fair-use refusal only: a repeat after the leave went through would be refused.
func (s *Seat) Leave(ctx context.Context) (*mercadov1.MatchSummary, error) {
	response, err := retry(WithToken(ctx, s.Token), s.client, afterFairUse, s.client.rpc.LeaveMatch,
		&mercadov1.LeaveMatchRequest{MatchId: s.MatchID})
	if err != nil {
		return nil, err
	}
	return response.GetMatch(), nil
}

// Reclaim takes the seat back from the AI that plays it since its time ran out
// (SeatInfo.PlayedByAi; a seat that was left cannot be taken back) and returns the
// seat's view after. codes.FailedPrecondition means the AI does not play it after
// a timeout. Repeated after a fair-use refusal only.
func (s *Seat) Reclaim(ctx context.Context) (*mercadov1.MatchState, error) {
	state, err := retry(WithToken(ctx, s.Token), s.client, afterFairUse, s.client.rpc.ReclaimSeat,
		&mercadov1.ReclaimSeatRequest{MatchId: s.MatchID})
	s.newest.note(state)
	return state, err
}

// ErrNoAction is returned by Play when the chooser returns no action.
var ErrNoAction = errors.New("mercado: the chooser returned no action")

// Play plays the seat's match to its end and returns the final state: finished,
// or cancelled if it expired before every seat was taken (see Finished). It
// watches the match (Seat.Watch), waiting for it to start, and whenever it is the
// seat's turn (IsMyTurn) calls choose with the state, then submits the action it
// returns (choose usually picks one of state.GetLegalActions(); LegalMoves tells
// what each costs and pays). Since Watch never goes back to a state before the
// seat's own action, it acts once per turn; it knows no game: in a step where
// several seats act at once (a Leilão sealed bid) each seat acts once.
//
// While the AI plays the seat, because its time ran out, the seat has no legal
// actions and choose is not called; Reclaim (from another goroutine) takes the
// seat back and Play carries on. An action refused because the seat's time ran
// out meanwhile is no error either: once the seat is reclaimed, Play chooses again.
func (s *Seat) Play(ctx context.Context, choose func(*mercadov1.MatchState) *mercadov1.Action) (*mercadov1.MatchState, error) {
	for update, err := range s.Watch(ctx) {
		if err != nil {
			return nil, err
		}
		state := update.GetState()
		if Finished(state) {
			return state, nil
		}
		if !IsMyTurn(state) {
			continue
		}
		if err := s.turn(ctx, state, choose); err != nil {
			return nil, fmt.Errorf("acting at version %d: %w", state.GetVersion(), err)
		}
	}
	// The stream ended with the match over.
	return s.View(ctx)
}

// turn submits the action choose picks in state. A refusal because the match
// moved on, or because the seat's time ran out or the match ended meanwhile, is
// no error: the next update brings what comes next.
func (s *Seat) turn(ctx context.Context, state *mercadov1.MatchState, choose func(*mercadov1.MatchState) *mercadov1.Action) error {
	action := choose(state)
	if action == nil {
		return ErrNoAction
	}
	_, err := s.ActAt(ctx, action, state.GetVersion())
	switch status.Code(err) {
	case codes.OK, codes.Aborted:
		return nil
	case codes.FailedPrecondition:
		// Not legal now: fine if the seat's time ran out (the AI plays it) or the
		// match is over meanwhile, else the chooser's mistake.
		now, viewErr := s.View(ctx)
		if viewErr == nil && (Finished(now) || s.playedByAI(now)) {
			return nil
		}
	}
	return err
}

// playedByAI tells whether state shows the seat played by the AI (its time ran
// out, or it was left).
func (s *Seat) playedByAI(state *mercadov1.MatchState) bool {
	for _, info := range state.GetMatch().GetSeats() {
		if info.GetSeat() == s.Number {
			return info.GetPlayedByAi() || info.GetLeft() || info.GetForfeited()
		}
	}
	return false
}
