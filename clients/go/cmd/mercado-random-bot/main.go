// Command mercado-random-bot plays a match of Mercado de Lisboa with random legal moves.
//
// Join a match someone created:
//
//	mercado-random-bot -server 127.0.0.1:50051 -match MATCH_ID [-seat N] [-name NAME] [-player-token TOKEN]
//
// Or create one against the AI (an agent must be running: `mercado ai`, with the
// server's agent key):
//
//	mercado-random-bot -server 127.0.0.1:50051 -vs-ai easy [-players 2]
//
// It plays as a player: the one whose credential is -player-token (or
// $MERCADO_PLAYER_TOKEN), a guest token from CreatePlayer or a frontend's JWT, or
// else a new guest player named -name that it creates and signs in as (a server
// refuses matches and seats without a player unless it runs with
// --allow-anonymous). With -player-token the seat takes the player's own name,
// unless -name is given.
//
// It plays to the end and prints the result. With -tls it connects with TLS,
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
	"syscall"

	mercadov1 "github.com/mercado-game/mercado/clients/go/gen/mercado/v1"
	"github.com/mercado-game/mercado/clients/go/mercado"
)

var levels = map[string]mercadov1.BotLevel{
	"easy":   mercadov1.BotLevel_BOT_LEVEL_EASY,
	"medium": mercadov1.BotLevel_BOT_LEVEL_MEDIUM,
	"hard":   mercadov1.BotLevel_BOT_LEVEL_HARD,
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
	vsAI := flags.String("vs-ai", "", "create a match against AI bots of this level (easy, medium, hard)")
	players := flags.Int("players", 2, "with -vs-ai: players in the match, 2..4 (the others are bots)")
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
		match, err := client.CreateMatch(ctx, mercado.MatchOptions{Players: *players, Seats: seats})
		if err != nil {
			return fmt.Errorf("creating a match: %w", err)
		}
		*matchID = match.GetMatchId()
		fmt.Fprintf(out, "created match %s against %d %s bot(s)\n", *matchID, *players-1, *vsAI)
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
	random := rand.New(rand.NewPCG(*seed, 0))
	moves := 0
	final, err := seat.Play(ctx, func(state *mercadov1.MatchState) *mercadov1.Action {
		legal := state.GetLegalActions()
		moves++
		return legal[random.IntN(len(legal))]
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

func printResult(out io.Writer, state *mercadov1.MatchState, you uint32) {
	result := state.GetView().GetMercado().GetResult()
	// The match's ranks put forfeited seats last; the game's own result does not know them.
	ranks := state.GetMatch().GetRanks()
	if len(ranks) == 0 {
		ranks = result.GetRanks()
	}
	names := map[uint32]string{}
	notes := map[uint32]string{}
	for _, info := range state.GetMatch().GetSeats() {
		names[info.GetSeat()] = info.GetDisplayName()
		switch {
		case info.GetForfeited():
			notes[info.GetSeat()] = "  (forfeited)"
		case info.GetLeft():
			notes[info.GetSeat()] = "  (left; the AI played on)"
		case info.GetPlayedByAi():
			notes[info.GetSeat()] = "  (the AI played on after a timeout)"
		}
	}
	at := func(values []uint32, i int) uint32 {
		if i < len(values) {
			return values[i]
		}
		return 0
	}
	for i, score := range result.GetScores() {
		seat := uint32(i)
		marker := notes[seat]
		if seat == you {
			marker += "  <- you"
		}
		fmt.Fprintf(out, "  rank %d  seat %d  %-20s %3d points, %d stands on the market%s\n",
			at(ranks, i), seat, names[seat], score, at(result.GetStandsOnMarket(), i), marker)
	}
}
