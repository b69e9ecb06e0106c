// Command mercado-random-bot plays a match of any of the service's games with random
// legal moves: it knows no game, and submits one of the legal actions the server lists.
//
// Join a match someone created:
//
//	mercado-random-bot -server 127.0.0.1:50051 -match MATCH_ID [-seat N] [-name NAME] [-player-token TOKEN]
//
// Or create one against the AI (an agent must be running: `mercado ai`, with the
// server's agent key):
//
//	mercado-random-bot -server 127.0.0.1:50051 -vs-ai easy [-players 2] [-game leilao]
//
// -game (mercado, oregano or leilao; default mercado) is the game of the match it
// creates; a joined match is of whatever game it is.
//
// It plays as a player: the one whose credential is -player-token (or
// $MERCADO_PLAYER_TOKEN), a guest token from CreatePlayer or a frontend's JWT, or
// else a new guest player named -name that it creates and signs in as (a server
// refuses matches and seats without a player unless it runs with
// --allow-anonymous). With -player-token the seat takes the player's own name,
// unless -name is given.
//
// It plays to the end and prints the ranks. With -tls it connects with TLS,
// trusting the system's roots, or with -ca-file FILE the CA certificates of FILE.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/signal"
	"strings"
	"syscall"

	mercadov1 "github.com/mercado-game/mercado/clients/go/gen/mercado/v1"
	"github.com/mercado-game/mercado/clients/go/mercado"
)

var levels = map[string]mercadov1.BotLevel{
	"easy":   mercadov1.BotLevel_BOT_LEVEL_EASY,
	"medium": mercadov1.BotLevel_BOT_LEVEL_MEDIUM,
	"hard":   mercadov1.BotLevel_BOT_LEVEL_HARD,
	"expert": mercadov1.BotLevel_BOT_LEVEL_EXPERT,
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "mercado-random-bot:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, out io.Writer) error {
	flags := flag.NewFlagSet("mercado-random-bot", flag.ContinueOnError)
	server := flags.String("server", "127.0.0.1:50051", "the server's host:port")
	useTLS := flags.Bool("tls", false, "connect with TLS, trusting the system's root certificates")
	caFile := flags.String("ca-file", "", "connect with TLS, trusting the CA certificates of this PEM file")
	matchID := flags.String("match", "", "join this match")
	seatNumber := flags.Int("seat", -1, "with -match: the seat to take (default: the first open one)")
	name := flags.String("name", "random-bot", "display name (of the guest player it creates without -player-token)")
	playerToken := flags.String("player-token", os.Getenv("MERCADO_PLAYER_TOKEN"),
		"play as the player of this credential (default $MERCADO_PLAYER_TOKEN; without one, as a new guest player named -name)")
	vsAI := flags.String("vs-ai", "", "create a match against AI bots of this level (easy, medium, hard, expert)")
	players := flags.Int("players", 2, "with -vs-ai: players in the match, 2..4 (the others are bots)")
	gameName := flags.String("game", "mercado", "with -vs-ai: the game, by its name in the API's Game enum (mercado, oregano, leilao)")
	seed := flags.Uint64("seed", 0, "seed of the random moves (default: random)")
	if err := flags.Parse(args); err != nil {
		return err
	}
	if (*matchID == "") == (*vsAI == "") {
		return errors.New("give either -match MATCH_ID or -vs-ai LEVEL")
	}
	nameGiven := false
	flags.Visit(func(f *flag.Flag) { nameGiven = nameGiven || f.Name == "name" })

	var opts []mercado.Option
	switch {
	case *caFile != "":
		opts = append(opts, mercado.WithTLSCAFile(*caFile))
	case *useTLS:
		opts = append(opts, mercado.WithTLS())
	}
	client, err := mercado.Dial(*server, opts...)
	if err != nil {
		return err
	}
	defer client.Close()

	game, ok := mercadov1.Game_value["GAME_"+strings.ToUpper(*gameName)]
	if !ok || game == int32(mercadov1.Game_GAME_UNSPECIFIED) {
		return fmt.Errorf("unknown game %q", *gameName)
	}
	var level mercadov1.BotLevel
	if *vsAI != "" {
		var ok bool
		if level, ok = levels[*vsAI]; !ok {
			return fmt.Errorf("unknown level %q (easy, medium, hard)", *vsAI)
		}
	}

	// Sign in: the seat is bound to the player, whose token acts for it too.
	seatName := *name
	if *playerToken == "" {
		player, token, err := client.CreatePlayer(ctx, *name)
		if err != nil {
			return fmt.Errorf("creating a guest player: %w", err)
		}
		*playerToken = token
		fmt.Fprintf(out, "signed in as the guest player %s (%s)\n", player.GetPlayerId(), player.GetDisplayName())
	} else if !nameGiven {
		seatName = "" // the player's own name
	}
	ctx = mercado.WithToken(ctx, *playerToken)

	if *vsAI != "" {
		seats := []*mercadov1.SeatSpec{mercado.OpenSeat()}
		for range *players - 1 {
			seats = append(seats, mercado.BotSeat(level))
		}
		match, err := client.CreateMatch(ctx, mercado.MatchOptions{Game: mercadov1.Game(game), Players: *players, Seats: seats})
		if err != nil {
			return fmt.Errorf("creating a match: %w", err)
		}
		*matchID = match.GetMatchId()
		fmt.Fprintf(out, "created match %s of %s against %d %s bot(s)\n", *matchID, *gameName, *players-1, *vsAI)
	}

	var seat *mercado.Seat
	if *seatNumber >= 0 {
		seat, err = client.JoinSeat(ctx, *matchID, uint32(*seatNumber), seatName)
	} else {
		seat, err = client.Join(ctx, *matchID, seatName)
	}
	if err != nil {
		return fmt.Errorf("joining match %s: %w", *matchID, err)
	}
	fmt.Fprintf(out, "joined match %s as seat %d; waiting for the other players\n", seat.MatchID, seat.Number)

	if *seed == 0 {
		*seed = rand.Uint64()
	}
	choose := mercado.RandomChoice(rand.New(rand.NewPCG(*seed, 0)))
	moves := 0
	final, err := seat.Play(ctx, func(state *mercadov1.MatchState) *mercadov1.Action {
		moves++
		return choose(state)
	})
	if err != nil {
		return err
	}
	if final.GetMatch().GetStatus() == mercadov1.MatchStatus_MATCH_STATUS_CANCELLED {
		return fmt.Errorf("match %s was cancelled: it expired before every seat was taken", seat.MatchID)
	}
	fmt.Fprintf(out, "match over after %d actions, %d of them ours\n", final.GetVersion(), moves)
	printResult(out, final, seat.Number)
	return nil
}

// printResult prints each seat's rank from the match's summary, which every game has.
func printResult(out io.Writer, state *mercadov1.MatchState, you uint32) {
	ranks := state.GetMatch().GetRanks()
	for _, info := range state.GetMatch().GetSeats() {
		seat := info.GetSeat()
		var marker string
		switch {
		case info.GetForfeited():
			marker = "  (forfeited)"
		case info.GetLeft():
			marker = "  (left; the AI played on)"
		case info.GetPlayedByAi():
			marker = "  (the AI played on after a timeout)"
		}
		if seat == you {
			marker += "  <- you"
		}
		rank := "?"
		if int(seat) < len(ranks) {
			rank = fmt.Sprint(ranks[seat])
		}
		fmt.Fprintf(out, "  rank %s  seat %d  %s%s\n", rank, seat, info.GetDisplayName(), marker)
	}
}
