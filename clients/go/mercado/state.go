package mercado

import (
	"slices"

	"google.golang.org/protobuf/proto"

	mercadov1 "github.com/mercado-game/mercado/clients/go/gen/mercado/v1"
)

// Reading a MatchState of any game: whose turn it is, the legal moves with what
// each costs and pays, a Leilão seat's bid options, the result. Nothing here
// computes what the server computes (payments, scores, ranks): it only finds it
// in the state. A game's view is state.GetView().GetMercado(), GetOregano() or
// GetLeilao().

// IsMyTurn tells whether state is the caller's turn: the match is playing, the
// caller is among the seats to move and has legal actions. In a sealed step (a
// Leilão bid) several seats are to move, each until it has made its choice: a
// state after the seat's own choice says it is not its turn. Seat.Watch never
// yields a state older than the answer to the seat's own action, so a loop that
// acts whenever IsMyTurn is true acts once per turn.
func IsMyTurn(state *mercadov1.MatchState) bool {
	return state.GetMatch().GetStatus() == mercadov1.MatchStatus_MATCH_STATUS_PLAYING &&
		len(state.GetLegalActions()) > 0 && state.YourSeat != nil &&
		slices.Contains(state.GetSeatsToMove(), state.GetYourSeat())
}

// LegalMove is a legal action with what it would cost and pay, as the server
// previews it for the caller.
type LegalMove struct {
	Action *mercadov1.Action // to submit unchanged
	// Its preview: Preview.GetMercado() (the coins it costs and pays each seat),
	// GetOregano() (the gold and cards it costs and pays, its change to the score)
	// or GetLeilao() (what a bid costs at the end, what a pick gains). Nil if the
	// server sent none.
	Preview *mercadov1.ActionPreview
}

// LegalMoves returns the state's legal actions, each with its preview
// (GetPreviews()[i] belongs to GetLegalActions()[i]). Show payments and scores
// from the previews; never compute them.
func LegalMoves(state *mercadov1.MatchState) []LegalMove {
	previews := state.GetPreviews()
	moves := make([]LegalMove, len(state.GetLegalActions()))
	for i, action := range state.GetLegalActions() {
		moves[i].Action = action
		if i < len(previews) {
			moves[i].Preview = previews[i]
		}
	}
	return moves
}

// PreviewOf returns the preview of one of the state's legal actions (found by
// equality); nil if it is not one.
func PreviewOf(state *mercadov1.MatchState, action *mercadov1.Action) *mercadov1.ActionPreview {
	for _, move := range LegalMoves(state) {
		if proto.Equal(move.Action, action) {
			return move.Preview
		}
	}
	return nil
}

// BidOptions returns a Leilão seat's sealed choices while it must bid or re-bid,
// grouped: each card it may bid (GetCards()[i].GetCard()) with the extra cards
// allowed with it (GetExtras()), and the fee an extra card costs at the end
// (GetExtraFee()); in a tie-break (GetStep() LEILAO_PHASE_TIEBREAK), the cards it
// may re-bid. Nil when the seat has no choice to make; BidAction turns a choice
// into its action.
func BidOptions(state *mercadov1.MatchState) *mercadov1.LeilaoBidOptions {
	return state.GetView().GetLeilao().GetBidOptions()
}

// BidAction returns the legal action that bids card (with the extra card extra;
// 0 for none) in Leilão's bid step, or re-bids card in a tie-break (extra 0): one
// of the state's legal actions, to submit as it is. Nil when it is not legal now.
func BidAction(state *mercadov1.MatchState, card, extra uint32) *mercadov1.Action {
	for _, action := range state.GetLegalActions() {
		choice := action.GetLeilao()
		if bid := choice.GetBid(); bid != nil && bid.GetCard() == card && bid.GetExtra() == extra {
			return action
		}
		if rebid := choice.GetRebid(); rebid != nil && rebid.GetCard() == card && extra == 0 {
			return action
		}
	}
	return nil
}

// Result is a finished match's result, from the server's scores and ranks.
type Result struct {
	Scores []int64  // by seat: its final score (the total of its score parts)
	Ranks  []uint32 // by seat: its rank, 1-based, ties shared and forfeited seats last (MatchSummary.Ranks)
	// By seat: its score explained, as named parts that add up to it
	// (Parts[seat].GetParts(): a label and points each) and the tie-breaks that
	// ranked it (MatchState.ScoreParts).
	Parts []*mercadov1.ScoreParts
}

// MatchResult returns the result of a finished match of any game; nil before it
// finishes (or once cancelled).
func MatchResult(state *mercadov1.MatchState) *Result {
	if state.GetMatch().GetStatus() != mercadov1.MatchStatus_MATCH_STATUS_FINISHED {
		return nil
	}
	parts := slices.SortedFunc(slices.Values(state.GetScoreParts()), func(a, b *mercadov1.ScoreParts) int {
		return int(a.GetSeat()) - int(b.GetSeat())
	})
	result := &Result{Ranks: state.GetMatch().GetRanks(), Parts: parts}
	for _, seat := range parts {
		result.Scores = append(result.Scores, seat.GetTotal())
	}
	return result
}
