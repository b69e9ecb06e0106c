package mercado_test

// Clocks, leaving and reclaiming seats, previews and cancelled matches against the
// project's server.

import (
	"context"
	"testing"
	"time"

	"google.golang.org/grpc/codes"

	mercadov1 "github.com/mercado-game/mercado/clients/go/gen/mercado/v1"
	"github.com/mercado-game/mercado/clients/go/internal/testserver"
	"github.com/mercado-game/mercado/clients/go/mercado"
)

func seatInfo(t *testing.T, summary *mercadov1.MatchSummary, seat uint32) *mercadov1.SeatInfo {
	t.Helper()
	for _, info := range summary.GetSeats() {
		if info.GetSeat() == seat {
			return info
		}
	}
	t.Fatalf("the match has no seat %d: %v", seat, summary.GetSeats())
	return nil
}

// The server's default clock, no clock, and what a view tells of each legal action.
func TestTimeControlsAndPreviews(t *testing.T) {
	t.Parallel()
	srv := testserver.Start(t)
	client := testserver.Dial(t, srv)
	ctx := testserver.Context(t)

	seats := playingMatch(t, ctx, client)
	mover, state, other := toMove(t, ctx, seats)
	clock := state.GetMatch().GetTimeControl()
	if clock.GetTurnSeconds() != 60 || clock.GetReserveSeconds() != 180 {
		t.Errorf("the default time control is %v, want 60 s per turn and 180 s of reserve", clock)
	}
	deadline := state.GetMatch().DeadlineUnixMs
	if now := time.Now().UnixMilli(); deadline == nil || *deadline <= now || *deadline > now+241_000 {
		t.Errorf("the turn's deadline is %v, want within 240 s from now (%d)", deadline, now)
	}
	for _, info := range state.GetMatch().GetSeats() {
		if info.GetReserveMs() != 180_000 || info.GetPlayedByAi() || info.GetLeft() || info.GetForfeited() {
			t.Errorf("seat at the start: %v", info)
		}
	}

	// One preview per legal action, for the mover only.
	if len(state.GetPreviews()) != len(state.GetLegalActions()) {
		t.Fatalf("seat %d has %d legal actions and %d previews", mover.Number, len(state.GetLegalActions()), len(state.GetPreviews()))
	}
	for i, preview := range state.GetPreviews() {
		if preview.GetMercado() == nil {
			t.Errorf("preview %d (of %v) is empty", i, state.GetLegalActions()[i])
		}
	}
	if view, err := other.View(ctx); err != nil || len(view.GetPreviews()) != 0 {
		t.Errorf("the other seat's view has %d previews (%v), want none", len(view.GetPreviews()), err)
	}

	seats = playingMatchWith(t, ctx, client, mercado.MatchOptions{TimeControl: mercado.NoClock()})
	state, err := seats[0].View(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if state.GetMatch().GetTimeControl().GetTurnSeconds() != 0 || state.GetMatch().DeadlineUnixMs != nil {
		t.Errorf("a match without a clock has time control %v and deadline %v",
			state.GetMatch().GetTimeControl(), state.GetMatch().DeadlineUnixMs)
	}
}

// A seat whose time runs out is played by the AI until its owner reclaims it; a
// seat that was left cannot be reclaimed; Play finishes the match with the AI
// standing in for the seat that left.
func TestTimeoutReclaimAndLeave(t *testing.T) {
	t.Parallel()
	srv := testserver.Start(t)
	client := testserver.Dial(t, srv)
	ctx := testserver.Context(t)

	seats := playingMatchWith(t, ctx, client, mercado.MatchOptions{
		TimeControl: mercado.Clock(time.Second, 0, mercadov1.OnTimeout_ON_TIMEOUT_AI)})
	mover, _, other := toMove(t, ctx, seats)

	// Nobody moves: the mover's time runs out, which its stream shows without an action.
	_, err := mover.Reclaim(ctx)
	wantCode(t, err, codes.FailedPrecondition, "reclaiming a seat its owner plays")
	timeout, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	timedOut := false
	for update, err := range mover.Follow(timeout, 0) {
		if err != nil {
			t.Fatalf("waiting for the timeout: %v", err)
		}
		if seatInfo(t, update.GetState().GetMatch(), mover.Number).GetPlayedByAi() {
			if update.GetAction() != nil {
				t.Errorf("the timeout came with an action at version %d", update.GetVersion())
			}
			if len(update.GetState().GetLegalActions()) != 0 {
				t.Errorf("a seat the AI plays has legal actions")
			}
			timedOut = true
			break
		}
	}
	if !timedOut {
		t.Fatal("the stream ended before the mover's time ran out")
	}

	state, err := mover.Reclaim(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info := seatInfo(t, state.GetMatch(), mover.Number); info.GetPlayedByAi() || info.GetLeft() {
		t.Errorf("after reclaiming: %v", info)
	}

	summary, err := other.Leave(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info := seatInfo(t, summary, other.Number); !info.GetLeft() || !info.GetPlayedByAi() || info.GetForfeited() {
		t.Errorf("after leaving (the AI on timeout): %v", info)
	}
	_, err = other.Reclaim(ctx)
	wantCode(t, err, codes.FailedPrecondition, "reclaiming a seat that was left")

	final, err := mover.Play(ctx, mercado.RandomChoice(newRand(t)))
	if err != nil {
		t.Fatal(err)
	}
	if final.GetMatch().GetStatus() != mercadov1.MatchStatus_MATCH_STATUS_FINISHED || len(final.GetMatch().GetRanks()) != 2 {
		t.Fatalf("Play ended with %v", final.GetMatch())
	}
	t.Logf("finished at version %d, ranks %v", final.GetVersion(), final.GetMatch().GetRanks())
}

// With ON_TIMEOUT_FORFEIT a seat that leaves forfeits: ranked last.
func TestLeaveForfeits(t *testing.T) {
	t.Parallel()
	srv := testserver.Start(t)
	client := testserver.Dial(t, srv)
	ctx := testserver.Context(t)

	seats := playingMatchWith(t, ctx, client, mercado.MatchOptions{
		TimeControl: mercado.Clock(time.Minute, 0, mercadov1.OnTimeout_ON_TIMEOUT_FORFEIT)})
	summary, err := seats[1].Leave(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info := seatInfo(t, summary, 1); !info.GetForfeited() || !info.GetPlayedByAi() {
		t.Errorf("after leaving (forfeit on timeout): %v", info)
	}
	_, err = seats[1].Leave(ctx)
	wantCode(t, err, codes.FailedPrecondition, "leaving twice")

	final, err := seats[0].Play(ctx, mercado.RandomChoice(newRand(t)))
	if err != nil {
		t.Fatal(err)
	}
	if ranks := final.GetMatch().GetRanks(); !mercado.Finished(final) || len(ranks) != 2 || ranks[0] != 1 || ranks[1] != 2 {
		t.Fatalf("the match ended %v with ranks %v, want the forfeited seat 1 last", final.GetMatch().GetStatus(), ranks)
	}
}

// Leaving a waiting match opens the seat again; a match that waits too long is
// cancelled, which ends Play.
func TestWaitingMatchLeaveAndCancellation(t *testing.T) {
	t.Parallel()
	srv := testserver.StartWith(t, "--waiting-expiry", "2")
	client := testserver.Dial(t, srv)
	ctx := testserver.Context(t)

	match, err := client.CreateMatch(ctx, mercado.MatchOptions{Players: 2})
	if err != nil {
		t.Fatal(err)
	}
	seat, err := client.JoinSeat(ctx, match.GetMatchId(), 0, testserver.SeatName(t, 0))
	if err != nil {
		t.Fatal(err)
	}
	summary, err := seat.Leave(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info := seatInfo(t, summary, 0); info.GetTaken() || summary.GetStatus() != mercadov1.MatchStatus_MATCH_STATUS_WAITING {
		t.Errorf("after leaving a waiting match: %v, seat %v", summary.GetStatus(), info)
	}
	if seat, err = client.JoinSeat(ctx, match.GetMatchId(), 0, testserver.SeatName(t, 0)); err != nil {
		t.Fatalf("joining the seat again: %v", err)
	}

	start := time.Now()
	final, err := seat.Play(ctx, func(*mercadov1.MatchState) *mercadov1.Action {
		t.Error("asked to choose in a match that never started")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if final.GetMatch().GetStatus() != mercadov1.MatchStatus_MATCH_STATUS_CANCELLED || !mercado.Finished(final) {
		t.Fatalf("Play ended with %v, want the match cancelled", final.GetMatch().GetStatus())
	}
	t.Logf("cancelled after %v of Play", time.Since(start))
}
