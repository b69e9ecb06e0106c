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
	result := mercado.MatchResult(final)
	fmt.Println(result.Scores, result.Ranks)
}

// Quick match: a guest player queues for a 2-player match, accepting bots after a wait, and
// plays the match it is put in with its player token (compiled, not run: it needs a server).
func ExampleClient_FindMatch() {
	ctx := context.Background()
	client, err := mercado.Dial("127.0.0.1:50051")
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()
	_, token, err := client.CreatePlayer(ctx, "ada") // keep the token: it is ada for good
	if err != nil {
		log.Fatal(err)
	}
	var seat *mercado.Seat
	for update, err := range client.FindMatch(ctx, token, mercadov1.Game_GAME_MERCADO, 2, true) {
		if err != nil {
			log.Fatal(err)
		}
		if queued := update.GetQueued(); queued != nil {
			fmt.Printf("waiting (%d ms, %d queued)\n", queued.GetWaitedMs(), queued.GetQueuedPlayers())
		}
		if found := update.GetFound(); found != nil {
			seat = client.Seat(found.GetMatchId(), found.GetSeat(), token)
		}
	}
	final, err := seat.Play(ctx, func(s *mercadov1.MatchState) *mercadov1.Action {
		return s.GetLegalActions()[rand.IntN(len(s.GetLegalActions()))]
	})
	if err != nil {
		log.Fatal(err)
	}
	me, err := client.Player(ctx, mercadov1.Game_GAME_MERCADO, token, "")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(final.GetMatch().GetRanks(), me.GetRating().GetDisplay())
}
