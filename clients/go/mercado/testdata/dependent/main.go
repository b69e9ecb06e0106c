// Command dependent is a program of a third party that depends on the Go client module
// (github.com/mercado-game/mercado/clients/go) and uses only its public packages.
// TestModuleAsDependency (module_test.go) copies it into a module of its own outside
// the repository, whose go.mod requires the client at the version of VERSION and
// replaces it with this checkout, and runs it against a real server.
//
// It does what the README's first example does: it connects, signs in as a guest
// player, creates a match of each game against an easy AI bot, plays it with random
// legal moves and prints its result, the player's score in parts.
//
//	go run . [HOST:PORT]
package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"time"

	mercadov1 "github.com/mercado-game/mercado/clients/go/gen/mercado/v1"
	"github.com/mercado-game/mercado/clients/go/mercado"
)

func main() {
	server := "127.0.0.1:50051"
	if len(os.Args) > 1 {
		server = os.Args[1]
	}
	if err := run(server); err != nil {
		fmt.Fprintln(os.Stderr, "dependent:", err)
		os.Exit(1)
	}
}

func run(server string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	fmt.Println("client version:", mercado.Version)

	client, err := mercado.Dial(server)
	if err != nil {
		return err
	}
	defer client.Close()
	_, token, err := client.CreatePlayer(ctx, "ada") // a guest player; keep the token
	if err != nil {
		return err
	}
	ctx = mercado.WithToken(ctx, token)
	rng := rand.New(rand.NewPCG(1, 2))
	for _, game := range mercado.Games() { // Mercado de Lisboa, Oregano, Leilão
		match, err := client.CreateMatch(ctx, mercado.MatchOptions{Game: game, Seats: []*mercadov1.SeatSpec{
			mercado.OpenSeat(), mercado.BotSeat(mercadov1.BotLevel_BOT_LEVEL_EASY)}})
		if err != nil {
			return err
		}
		seat, err := client.Join(ctx, match.GetMatchId(), "")
		if err != nil {
			return err
		}
		final, err := mercado.PlayRandom(ctx, seat, rng)
		if err != nil {
			return err
		}
		result := mercado.MatchResult(final) // nil unless it finished
		if result == nil {
			return fmt.Errorf("the %s match ended %v", mercado.GameName(game), final.GetMatch().GetStatus())
		}
		fmt.Println(mercado.GameName(game), "scores:", result.Scores, "ranks:", result.Ranks)
		for _, part := range result.Parts[seat.Number].GetParts() { // ada's score, explained
			fmt.Printf("  %s: %d\n", part.GetLabel(), part.GetPoints())
		}
	}
	return nil
}
