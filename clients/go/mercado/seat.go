package mercado

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"time"

	"github.com/google/uuid"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	mercadov1 "github.com/mercado-game/mercado/clients/go/gen/mercado/v1"
)

// maxStaleRetries bounds how often Act resubmits after codes.Aborted; each
// retry means another action was accepted in between, so a few are plenty.
const maxStaleRetries = 16

// startPollInterval is how often Play looks whether a waiting match has started.
const startPollInterval = 100 * time.Millisecond

// Seat is a seat taken in a match. Its secret token authorizes acting for it;
// keep it to come back to the match later (Client.Seat).
type Seat struct {
	MatchID string
	Number  uint32 // the seat, 0-based, in seat order (not turn order)
	Token   string

	client *Client
}

// Client returns the client the seat uses.
func (s *Seat) Client() *Client { return s.client }

// View returns the seat's view of its match.
func (s *Seat) View(ctx context.Context) (*mercadov1.MatchState, error) {
	return s.client.View(ctx, s.MatchID, s.Token)
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
	return retry(WithToken(ctx, s.Token), s.client, alsoUnavailable, s.client.rpc.SubmitAction, request)
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

// Finished tells whether state shows a finished match.
func Finished(state *mercadov1.MatchState) bool {
	return state.GetMatch().GetStatus() == mercadov1.MatchStatus_MATCH_STATUS_FINISHED
}

// ErrNoAction is returned by Play when the chooser returns no action.
var ErrNoAction = errors.New("mercado: the chooser returned no action")

// Play plays the seat's match to its end and returns the final state. It waits
// for the match to start, then calls choose with every state in which the seat
// has legal actions and submits the action it returns (choose usually picks
// one of state.GetLegalActions()). It acts at most once per version.
func (s *Seat) Play(ctx context.Context, choose func(*mercadov1.MatchState) *mercadov1.Action) (*mercadov1.MatchState, error) {
	state, err := s.View(ctx)
	if err != nil {
		return nil, err
	}
	// Updates that only change seats keep the version, so a stream started from
	// a waiting match's version could miss the start: wait for it here.
	for state.GetMatch().GetStatus() == mercadov1.MatchStatus_MATCH_STATUS_WAITING {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(startPollInterval):
		}
		if state, err = s.View(ctx); err != nil {
			return nil, err
		}
	}
	acted := int64(-1)
	turn := func(state *mercadov1.MatchState) error {
		if len(state.GetLegalActions()) == 0 || int64(state.GetVersion()) <= acted {
			return nil
		}
		acted = int64(state.GetVersion())
		action := choose(state)
		if action == nil {
			return ErrNoAction
		}
		_, err := s.ActAt(ctx, action, state.GetVersion())
		if status.Code(err) == codes.Aborted {
			return nil // the match moved on: its update brings the next turn
		}
		return err
	}
	if Finished(state) {
		return state, nil
	}
	if err := turn(state); err != nil {
		return nil, err
	}
	for update, err := range s.Follow(ctx, state.GetVersion()) {
		if err != nil {
			return nil, err
		}
		state = update.GetState()
		if Finished(state) {
			return state, nil
		}
		if err := turn(state); err != nil {
			return nil, fmt.Errorf("acting at version %d: %w", state.GetVersion(), err)
		}
	}
	// The stream ended with the match finished.
	return s.View(ctx)
}
