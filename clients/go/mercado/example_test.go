package mercado_test

import (
	"context"
	"fmt"
	"log"
	"math/rand/v2"

	mercadov1 "github.com/mercado-game/mercado/clients/go/gen/mercado/v1"
	"github.com/mercado-game/mercado/clients/go/mercado"
)

// Play a match against the AI with random legal moves (compiled, not run: it needs a server).
func Example() {
	ctx := context.Background()
	client, err := mercado.Dial("127.0.0.1:50051")
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()
	match, err := client.CreateMatch(ctx, mercado.MatchOptions{Seats: []*mercadov1.SeatSpec{
		mercado.OpenSeat(), mercado.BotSeat(mercadov1.BotLevel_BOT_LEVEL_EASY)}})
	if err != nil {
		log.Fatal(err)
	}
	seat, err := client.Join(ctx, match.GetMatchId(), "ada")
	if err != nil {
		log.Fatal(err)
	}
	final, err := seat.Play(ctx, func(s *mercadov1.MatchState) *mercadov1.Action {
		return s.GetLegalActions()[rand.IntN(len(s.GetLegalActions()))]
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(final.GetView().GetMercado().GetResult().GetRanks())
}
