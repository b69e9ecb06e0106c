package mercado_test

// Two conformance scenarios (clients/conformance/scenarios.json) that play through the
// package's helpers as its README shows: a seat's Watch after its own sealed bid, and a
// match of every game to its end.

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	mercadov1 "github.com/mercado-game/mercado/clients/go/gen/mercado/v1"
	"github.com/mercado-game/mercado/clients/go/mercado"
)

func sealedChoiceInWatch(t *testing.T, c conformance) {
	ctx := c.ctx
	match, err := c.client.CreateMatch(ctx, mercado.MatchOptions{Game: mercadov1.Game_GAME_LEILAO, Players: 3})
	if err != nil {
		t.Fatal(err)
	}
	ana, err := c.client.JoinSeat(ctx, match.GetMatchId(), 0, "ana")
	if err != nil {
		t.Fatal(err)
	}
	next, stop := iter.Pull2(ana.Watch(ctx))
	defer stop()
	pull := func() *mercadov1.MatchUpdate {
		t.Helper()
		update, err, ok := next()
		if err != nil || !ok {
			t.Fatalf("the watch ended: %v", err)
		}
		return update
	}
	if status := pull().GetState().GetMatch().GetStatus(); status != mercadov1.MatchStatus_MATCH_STATUS_WAITING {
		t.Fatalf("the first update shows the match %v; want waiting", status)
	}
	bea, err := c.client.JoinSeat(ctx, match.GetMatchId(), 1, "bea")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.client.JoinSeat(ctx, match.GetMatchId(), 2, "cid"); err != nil {
		t.Fatal(err)
	}
	update := pull()
	for update.GetState().GetMatch().GetStatus() != mercadov1.MatchStatus_MATCH_STATUS_PLAYING {
		update = pull()
	}
	if !mercado.IsMyTurn(update.GetState()) || update.GetVersion() != 0 {
		t.Fatalf("at the start (version %d) ana is not to move", update.GetVersion())
	}

	beas, err := bea.View(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bea.ActAt(ctx, beas.GetLegalActions()[0], beas.GetVersion()); err != nil {
		t.Fatal(err)
	}
	// At version 0: any version since the step began is current.
	answer, err := ana.ActAt(ctx, update.GetState().GetLegalActions()[0], update.GetVersion())
	if err != nil {
		t.Fatal(err)
	}
	acted := answer.GetState().GetView().GetLeilao().GetActed()
	if answer.GetVersion() != 2 || !slices.Equal(acted, []uint32{0, 1}) || len(answer.GetState().GetLegalActions()) != 0 ||
		ana.Latest().GetVersion() != 2 {
		t.Fatalf("ana's answer: version %d, acted %v, %d legal actions, latest version %d; want 2, [0 1], none, 2",
			answer.GetVersion(), acted, len(answer.GetState().GetLegalActions()), ana.Latest().GetVersion())
	}

	beasBid := pull()
	if beasBid.GetVersion() != 1 || beasBid.GetSeat() != 1 || beasBid.GetAction() != nil || len(beasBid.GetEvents()) == 0 {
		t.Fatalf("the next update: version %d, seat %d, action %v, %d events; want bea's sealed bid at 1",
			beasBid.GetVersion(), beasBid.GetSeat(), beasBid.GetAction(), len(beasBid.GetEvents()))
	}
	if beasBid.GetState().GetVersion() != 2 || mercado.IsMyTurn(beasBid.GetState()) {
		t.Fatalf("bea's bid came with the state of version %d (ana's turn: %v); want the newest, 2, not ana's turn",
			beasBid.GetState().GetVersion(), mercado.IsMyTurn(beasBid.GetState()))
	}
	if anasBid := pull(); anasBid.GetVersion() != 2 || anasBid.GetSeat() != 0 || anasBid.GetState().GetVersion() != 2 {
		t.Fatalf("then: version %d, seat %d, state %d; want ana's bid at 2", anasBid.GetVersion(), anasBid.GetSeat(),
			anasBid.GetState().GetVersion())
	}
}

// playWithTheHelpers plays seat to the end as the README shows: whenever its watch says it
// is its turn, a random legal move (in Leilão's bid steps a card of the bid options,
// sometimes with an extra card), each with its preview. It returns the final state.
func playWithTheHelpers(ctx context.Context, seat *mercado.Seat, rng *rand.Rand) (*mercadov1.MatchState, error) {
	var final *mercadov1.MatchState
	for update, err := range seat.Watch(ctx) {
		if err != nil {
			return nil, err
		}
		state := update.GetState()
		final = state
		if !mercado.IsMyTurn(state) {
			continue
		}
		var action *mercadov1.Action
		if options := mercado.BidOptions(state); options != nil {
			choice := options.GetCards()[rng.IntN(len(options.GetCards()))]
			extra := uint32(0)
			if extras := choice.GetExtras(); len(extras) > 0 && rng.Float64() < 0.3 {
				extra = extras[rng.IntN(len(extras))]
			}
			if action = mercado.BidAction(state, choice.GetCard(), extra); action == nil {
				return nil, fmt.Errorf("the bid %d (extra %d) of the bid options is no legal action", choice.GetCard(), extra)
			}
		} else {
			moves := mercado.LegalMoves(state)
			action = moves[rng.IntN(len(moves))].Action
		}
		if mercado.PreviewOf(state, action) == nil {
			return nil, fmt.Errorf("no preview of %v", action)
		}
		if _, err := seat.ActAt(ctx, action, state.GetVersion()); err != nil {
			return nil, fmt.Errorf("seat %d at version %d: %w", seat.Number, state.GetVersion(), err)
		}
	}
	return final, nil
}

func everyGameWithTheHelpers(t *testing.T, c conformance) {
	for _, game := range mercado.Games() {
		seats := playingMatchWith(t, c.ctx, c.client, mercado.MatchOptions{Game: game})
		finals := make([]*mercadov1.MatchState, len(seats))
		errs := make([]error, len(seats))
		var wg sync.WaitGroup
		for i, seat := range seats {
			rng := rand.New(rand.NewPCG(c.rng.Uint64(), uint64(i)))
			wg.Go(func() { finals[i], errs[i] = playWithTheHelpers(c.ctx, seat, rng) })
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			t.Fatalf("%s: %v", mercado.GameName(game), err)
		}
		result := mercado.MatchResult(finals[0])
		if result == nil {
			t.Fatalf("%s: the match ended %v", mercado.GameName(game), finals[0].GetMatch().GetStatus())
		}
		if !slices.Equal(result.Ranks, finals[0].GetMatch().GetRanks()) || len(result.Parts) != 2 ||
			!slices.Equal(result.Scores, mercado.MatchResult(finals[1]).Scores) {
			t.Fatalf("%s: the result %+v; want the summary's ranks %v, two seats', as both see it",
				mercado.GameName(game), result, finals[0].GetMatch().GetRanks())
		}
		for seat, parts := range result.Parts {
			sum, named := int64(0), []string{}
			for _, part := range parts.GetParts() {
				sum += part.GetPoints()
				named = append(named, fmt.Sprintf("%s %d", part.GetLabel(), part.GetPoints()))
			}
			if int(parts.GetSeat()) != seat || sum != parts.GetTotal() || result.Scores[seat] != sum {
				t.Errorf("%s: seat %d's parts %v add up to %d; its score is %d", mercado.GameName(game), seat,
					named, sum, result.Scores[seat])
			}
			t.Logf("%s, seat %d: %s = %d (rank %d)", mercado.GameName(game), seat+1, strings.Join(named, ", "),
				parts.GetTotal(), result.Ranks[seat])
		}
	}
}
