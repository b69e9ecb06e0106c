package mercado_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc/codes"

	mercadov1 "github.com/mercado-game/mercado/clients/go/gen/mercado/v1"
	"github.com/mercado-game/mercado/clients/go/internal/testserver"
	"github.com/mercado-game/mercado/clients/go/mercado"
)

func newRand(t *testing.T) *rand.Rand {
	seed := uint64(time.Now().UnixNano())
	t.Logf("random moves seeded with %d", seed)
	return rand.New(rand.NewPCG(seed, 1))
}

// A full match through the wrapper against the project's AI agent at level easy.
func TestPlayAgainstAI(t *testing.T) {
	t.Parallel()
	srv := testserver.Start(t)
	testserver.StartAgent(t, srv, "easy")
	client := testserver.Dial(t, srv)
	ctx := testserver.Context(t)

	match, err := client.CreateMatch(ctx, mercado.MatchOptions{
		Players: 2,
		Seats:   []*mercadov1.SeatSpec{mercado.OpenSeat(), mercado.BotSeat(mercadov1.BotLevel_BOT_LEVEL_EASY)},
	})
	if err != nil {
		t.Fatal(err)
	}
	seat, err := client.JoinSeat(ctx, match.GetMatchId(), 0, "go-random")
	if err != nil {
		t.Fatal(err)
	}
	if seat.Number != 0 || seat.Token == "" || seat.MatchID != match.GetMatchId() {
		t.Fatalf("unexpected seat %+v", seat)
	}

	ours := 0
	choose := mercado.RandomChoice(newRand(t))
	final, err := seat.Play(ctx, func(state *mercadov1.MatchState) *mercadov1.Action {
		if state.GetYourSeat() != 0 || state.ToMove == nil || state.GetToMove() != 0 {
			t.Errorf("asked to move at version %d, but seat %d is to move", state.GetVersion(), state.GetToMove())
		}
		ours++
		return choose(state)
	})
	if err != nil {
		t.Fatal(err)
	}

	if !mercado.Finished(final) {
		t.Fatalf("Play returned an unfinished match: %v", final.GetMatch())
	}
	result := final.GetView().GetMercado().GetResult()
	if len(result.GetScores()) != 2 || len(result.GetRanks()) != 2 || !slices.Contains(result.GetRanks(), 1) {
		t.Fatalf("no proper result: %v", result)
	}
	if final.ToMove != nil || len(final.GetLegalActions()) != 0 {
		t.Errorf("a finished match still has a player to move or legal actions")
	}
	bot := final.GetMatch().GetSeats()[1]
	if !bot.GetBot() || !bot.GetTaken() || bot.GetPlayedByAi() || bot.GetDisplayName() != "Easy AI" {
		t.Errorf("seat 1 was not played by the test's agent, under its level's name: %v", bot)
	}

	replay, err := client.Replay(ctx, match.GetMatchId())
	if err != nil {
		t.Fatal(err)
	}
	bySeat := map[uint32]int{}
	for _, step := range replay.GetSteps() {
		bySeat[step.GetSeat()]++
	}
	if uint64(len(replay.GetSteps())) != final.GetVersion() || bySeat[0] != ours || bySeat[1] == 0 {
		t.Errorf("replay has %d steps (%v by seat) for version %d, %d of them ours",
			len(replay.GetSteps()), bySeat, final.GetVersion(), ours)
	}
	t.Logf("finished at version %d: scores %v, ranks %v (seat 0 is the random player)",
		final.GetVersion(), result.GetScores(), result.GetRanks())
}

// For each game: two seats, each on a connection of its own, play a match with
// PlayRandom at the same time, while a spectator follows it. In Leilão both seats are
// to move at once in every bid.
func TestPlayRandomEveryGame(t *testing.T) {
	t.Parallel()
	srv := testserver.Start(t)
	for _, game := range mercado.Games() {
		t.Run(mercado.GameName(game), func(t *testing.T) {
			t.Parallel()
			ctx := testserver.Context(t)
			client := testserver.Dial(t, srv)
			seats := playingMatchWith(t, ctx, client, mercado.MatchOptions{Game: game})
			followed := make(chan []*mercadov1.MatchUpdate, 1)
			go func() {
				var updates []*mercadov1.MatchUpdate
				for update, err := range testserver.Dial(t, srv).Follow(ctx, seats[0].MatchID, "", 0) {
					if err != nil {
						t.Error(err)
						break
					}
					updates = append(updates, update)
				}
				followed <- updates
			}()

			finals := make([]*mercadov1.MatchState, 2)
			errs := make([]error, 2)
			var wg sync.WaitGroup
			for i, seat := range seats {
				own := testserver.Dial(t, srv).Seat(seat.MatchID, seat.Number, seat.Token)
				rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), uint64(i)))
				wg.Go(func() { finals[i], errs[i] = mercado.PlayRandom(ctx, own, rng) })
			}
			wg.Wait()
			for i := range seats {
				if errs[i] != nil || !mercado.Finished(finals[i]) || finals[i].GetVersion() != finals[0].GetVersion() {
					t.Fatalf("seat %d: %v, at version %d, status %v", i, errs[i], finals[i].GetVersion(), finals[i].GetMatch().GetStatus())
				}
			}

			var versions []uint64
			mostToMove := 0
			for _, update := range <-followed {
				mostToMove = max(mostToMove, len(update.GetState().GetSeatsToMove()))
				if mercado.IsAction(update) {
					versions = append(versions, update.GetVersion())
				}
			}
			var want []uint64
			for v := range finals[0].GetVersion() {
				want = append(want, v+1)
			}
			if !slices.Equal(versions, want) {
				t.Errorf("the spectator saw the actions %v, want 1..%d once each", versions, len(want))
			}
			if game == mercadov1.Game_GAME_LEILAO && mostToMove != 2 {
				t.Errorf("at most %d seats were to move at once, want both", mostToMove)
			}
			t.Logf("%d actions, ranks %v", finals[0].GetVersion(), finals[0].GetMatch().GetRanks())
		})
	}
}

// Follow and Play ride out a server restart: the stream resumes after the last version.
func TestFollowSurvivesServerRestart(t *testing.T) {
	t.Parallel()
	srv := testserver.Start(t)
	client := testserver.Dial(t, srv, mercado.WithReconnectTimeout(30*time.Second))
	ctx := testserver.Context(t)
	seats := playingMatch(t, ctx, client)
	rng := newRand(t)
	playRandom(t, ctx, seats, 3, rng)

	updates := make(chan *mercadov1.MatchUpdate)
	followErr := make(chan error, 1)
	followCtx, stopFollowing := context.WithCancel(ctx)
	defer stopFollowing()
	go func() {
		defer close(updates)
		for update, err := range seats[0].Follow(followCtx, 0) {
			if err != nil {
				followErr <- err
				return
			}
			select {
			case updates <- update:
			case <-followCtx.Done():
				return
			}
		}
	}()
	// Each stream starts with the match as it stands, then brings the actions.
	want := uint64(1)
	snapshots := 0
	expect := func(last uint64) {
		t.Helper()
		for want <= last {
			select {
			case update, ok := <-updates:
				if !ok {
					t.Fatalf("the stream ended before version %d: %v", want, <-followErr)
				}
				if update.GetAction() == nil {
					snapshots++
					continue
				}
				if update.GetVersion() != want {
					t.Fatalf("got version %d, want %d", update.GetVersion(), want)
				}
				want++
			case <-ctx.Done():
				t.Fatalf("no version %d: %v", want, ctx.Err())
			}
		}
	}
	expect(3)
	if snapshots != 1 {
		t.Errorf("%d updates without an action before the actions, want 1 (the match as it stands)", snapshots)
	}
	srv.Restart()
	playRandom(t, ctx, seats, 3, rng)
	expect(6)
	if snapshots < 2 {
		t.Errorf("the stream after the restart did not start with the match as it stands")
	}
	for {
		select {
		case update := <-updates:
			if update.GetAction() != nil {
				t.Fatalf("unexpected action at version %d", update.GetVersion())
			}
			continue // the reconnected stream's first message, if it came after the actions
		case err := <-followErr:
			t.Fatalf("follow failed: %v", err)
		case <-time.After(200 * time.Millisecond):
		}
		break
	}
}

// Bot seats are claimed with the server's agent key, and a chosen seed needs
// --allow-chosen-seeds.
func TestAgentKeyAndChosenSeeds(t *testing.T) {
	t.Parallel()
	srv := testserver.Start(t)
	client := testserver.Dial(t, srv)
	ctx := testserver.Context(t)

	seed := uint64(7)
	_, err := client.CreateMatch(ctx, mercado.MatchOptions{Players: 2, Seed: &seed})
	wantCode(t, err, codes.PermissionDenied, "a chosen seed")

	// Bot seats need an agent with room that sent a heartbeat, with the agent key.
	vsBot := mercado.MatchOptions{
		Seats: []*mercadov1.SeatSpec{mercado.OpenSeat(), mercado.BotSeat(mercadov1.BotLevel_BOT_LEVEL_HARD)},
	}
	_, err = client.CreateMatch(ctx, vsBot)
	wantCode(t, err, codes.FailedPrecondition, "a bot seat before any agent's heartbeat")
	_, err = client.AgentHeartbeat(ctx, "not-the-agent-key", "intruder", 100)
	wantCode(t, err, codes.PermissionDenied, "a heartbeat with a wrong agent key")
	interval, err := client.AgentHeartbeat(ctx, srv.AgentKey, "go-agent", 1, mercadov1.BotLevel_BOT_LEVEL_HARD)
	if err != nil || interval <= 0 {
		t.Fatalf("AgentHeartbeat = %v, %v", interval, err)
	}
	match, err := client.CreateMatch(ctx, vsBot)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"", "not-the-agent-key"} {
		_, _, err := client.ClaimBotSeat(ctx, key, "intruder")
		wantCode(t, err, codes.PermissionDenied, fmt.Sprintf("claiming with agent key %q", key))
	}
	seat, level, err := client.ClaimBotSeat(ctx, srv.AgentKey, "go-agent", mercadov1.BotLevel_BOT_LEVEL_HARD)
	if err != nil {
		t.Fatal(err)
	}
	if seat.MatchID != match.GetMatchId() || seat.Number != 1 || seat.Token == "" || level != mercadov1.BotLevel_BOT_LEVEL_HARD {
		t.Fatalf("claimed %+v at level %v, want seat 1 of %s at level hard", seat, level, match.GetMatchId())
	}
	_, _, err = client.ClaimBotSeat(ctx, srv.AgentKey, "go-agent")
	wantCode(t, err, codes.ResourceExhausted, "claiming when no bot seat is waiting")
}
