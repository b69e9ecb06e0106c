package mercado

import (
	"context"
	"iter"
	"sync"

	"google.golang.org/protobuf/proto"

	mercadov1 "github.com/mercado-game/mercado/clients/go/gen/mercado/v1"
)

// newestState is the newest state of a match seen through one seat or one
// watch: states only move forward, by version; a state of the same version that
// arrives later (seats, clocks or status changed) replaces it. A seat's calls may
// come from several goroutines.
type newestState struct {
	mu    sync.Mutex
	state *mercadov1.MatchState
}

func (n *newestState) note(state *mercadov1.MatchState) {
	if state == nil {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.state == nil || state.GetVersion() >= n.state.GetVersion() {
		n.state = state
	}
}

func (n *newestState) get() *mercadov1.MatchState {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.state
}

// Watch is the match as it goes, for game loops: the seat's view, then every
// update until the match is over, never with a state older than one the seat has
// seen, the answers to its own actions included. A loop that acts whenever
// IsMyTurn(update.GetState()) acts once per turn, in a sealed step too:
//
//	for update, err := range seat.Watch(ctx) {
//		if err != nil {
//			return err
//		}
//		if state := update.GetState(); mercado.IsMyTurn(state) {
//			if _, err := seat.ActAt(ctx, state.GetLegalActions()[0], state.GetVersion()); err != nil {
//				return err
//			}
//		}
//	}
//
// An update older than the newest state seen (another seat's sealed bid accepted
// just before the seat's own bid, whose answer came first) is yielded with its
// own events and that newer state: its GetState().GetVersion() is then greater
// than its GetVersion(). Every stream starts with the match as it stands, so
// nothing that happens between the view and the stream, or while a dropped
// stream reconnects (as Follow does), is missed: when that first update is ahead
// of what was yielded, the actions in between are yielded in order with its
// state, then the update itself if seats, clocks or the status changed since the
// last of them. An update that changes nothing already yielded (the same version
// and summary) is skipped. Errors end the sequence, as Follow's do.
func (s *Seat) Watch(ctx context.Context) iter.Seq2[*mercadov1.MatchUpdate, error] {
	return s.client.watch(ctx, s.MatchID, s.Token, s.newest)
}

// Watch is Seat.Watch for a spectator (token "") or any seat's token; it knows
// no seat's answers, so a seat that acts watches with Seat.Watch.
func (c *Client) Watch(ctx context.Context, matchID, token string) iter.Seq2[*mercadov1.MatchUpdate, error] {
	return c.watch(ctx, matchID, token, &newestState{})
}

func (c *Client) watch(ctx context.Context, matchID, token string, newest *newestState) iter.Seq2[*mercadov1.MatchUpdate, error] {
	return func(yield func(*mercadov1.MatchUpdate, error) bool) {
		first, err := c.View(ctx, matchID, token)
		if err != nil {
			yield(nil, err)
			return
		}
		newest.note(first)
		if !yield(&mercadov1.MatchUpdate{Version: first.GetVersion(), State: first}, nil) || Finished(first) {
			return
		}
		// The version of the last update yielded, and the last state (newer than its
		// version's when the update was older than a state seen).
		shown, last := first.GetVersion(), first
		// A stream's first update ahead of the updates yielded: the actions up to it follow.
		var ahead *mercadov1.MatchUpdate
		for update, err := range c.Follow(ctx, matchID, token, first.GetVersion()) {
			if err != nil {
				yield(nil, err)
				return
			}
			state, known := update.GetState(), newest.get()
			if state == nil {
				continue
			}
			if update.GetVersion() < known.GetVersion() {
				// A newer state is known: an action's events still count.
				if IsAction(update) && update.GetVersion() > shown {
					shown, last = update.GetVersion(), known
					if !yield(withState(update, known), nil) {
						return
					}
				}
				continue
			}
			if !IsAction(update) {
				if update.GetVersion() > shown {
					newest.note(state)
					ahead = update // yielded once the actions before it are, if it changes their summary
				} else if !proto.Equal(state.GetMatch(), last.GetMatch()) {
					newest.note(state)
					last = state
					if !yield(update, nil) {
						return
					}
				}
				continue
			}
			if update.GetVersion() <= shown {
				continue // seen already
			}
			shown, last = update.GetVersion(), state
			newest.note(state)
			if !yield(update, nil) {
				return
			}
			if ahead != nil && update.GetVersion() >= ahead.GetVersion() {
				caughtUp := ahead
				ahead = nil
				// Seats, clocks or status that changed after that action: the stream's first update knew.
				if caughtUp.GetVersion() == state.GetVersion() && !proto.Equal(caughtUp.GetState().GetMatch(), state.GetMatch()) {
					newest.note(caughtUp.GetState())
					last = caughtUp.GetState()
					if !yield(caughtUp, nil) {
						return
					}
				}
			}
		}
	}
}

// withState returns update with state in place of its own.
func withState(update *mercadov1.MatchUpdate, state *mercadov1.MatchState) *mercadov1.MatchUpdate {
	return &mercadov1.MatchUpdate{
		Version: update.GetVersion(),
		Seat:    update.Seat,
		Action:  update.GetAction(),
		Events:  update.GetEvents(),
		State:   state,
	}
}
