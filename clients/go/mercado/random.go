package mercado

import (
	"context"
	"math/rand/v2"

	mercadov1 "github.com/mercado-game/mercado/clients/go/gen/mercado/v1"
)

// RandomChoice is a chooser for Seat.Play that picks one of the state's legal
// actions uniformly at random, whatever the game.
func RandomChoice(rng *rand.Rand) func(*mercadov1.MatchState) *mercadov1.Action {
	return func(state *mercadov1.MatchState) *mercadov1.Action {
		legal := state.GetLegalActions()
		return legal[rng.IntN(len(legal))]
	}
}

// PlayRandom plays seat's match of any game to its end: it follows the match and,
// whenever the seat's state has legal actions, submits one of them at random (see
// Seat.Play). It returns the final state.
func PlayRandom(ctx context.Context, seat *Seat, rng *rand.Rand) (*mercadov1.MatchState, error) {
	return seat.Play(ctx, RandomChoice(rng))
}
