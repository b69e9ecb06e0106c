package main

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"

	mercadov1 "github.com/mercado-game/mercado/clients/go/gen/mercado/v1"
	"github.com/mercado-game/mercado/clients/go/internal/testserver"
	"github.com/mercado-game/mercado/clients/go/mercado"
)

// For each game: a full match against the AI.
func TestRandomBotAgainstAI(t *testing.T) {
	t.Setenv("MERCADO_PLAYER_TOKEN", "") // a guest player
	srv := testserver.Start(t)
	testserver.StartAgent(t, srv, "easy")
	for i, game := range mercado.Games() {
		t.Run(mercado.GameName(game), func(t *testing.T) {
			var out bytes.Buffer
			err := run(testserver.Context(t), []string{"-server", srv.Target(), "-vs-ai", "easy", "-game", mercado.GameName(game),
				"-name", "go-bot", "-seed", fmt.Sprint(7 + i)}, &out)
			if err != nil {
				t.Fatalf("%v\n%s", err, &out)
			}
			text := out.String()
			for _, want := range []string{"signed in as the guest player", "(go-bot)", "created match", "of " + mercado.GameName(game),
				"joined match", "as seat 0", "match over", "rank 1", "<- you", "Easy AI"} {
				if !strings.Contains(text, want) {
					t.Errorf("output lacks %q:\n%s", want, text)
				}
			}
			t.Log("\n" + text)
		})
	}
}

// For each game: two bots, each a process of its own, play one match together
// (in Leilão, both bid at once).
func TestRandomBotsAgainstEachOther(t *testing.T) {
	t.Setenv("MERCADO_PLAYER_TOKEN", "")
	srv := testserver.Start(t)
	client := testserver.Dial(t, srv)
	for _, game := range mercado.Games() {
		t.Run(mercado.GameName(game), func(t *testing.T) {
			t.Parallel()
			ctx := testserver.Context(t)
			match, err := client.CreateMatch(ctx, mercado.MatchOptions{Game: game, Players: 2})
			if err != nil {
				t.Fatal(err)
			}
			outs := make([]bytes.Buffer, 2)
			errs := make([]error, 2)
			var wg sync.WaitGroup
			for seat := range 2 {
				wg.Go(func() {
					errs[seat] = run(ctx, []string{"-server", srv.Target(), "-match", match.GetMatchId(), "-seat", fmt.Sprint(seat),
						"-name", fmt.Sprintf("bot-%d", seat), "-seed", fmt.Sprint(20 + seat)}, &outs[seat])
				})
			}
			wg.Wait()
			for seat := range 2 {
				text := outs[seat].String()
				if errs[seat] != nil {
					t.Fatalf("bot %d: %v\n%s", seat, errs[seat], text)
				}
				if !strings.Contains(text, "match over") || !strings.Contains(text, fmt.Sprintf("seat %d  bot-%d  <- you", seat, seat)) {
					t.Errorf("bot %d did not play to the end:\n%s", seat, text)
				}
			}
			replay, err := client.Replay(ctx, match.GetMatchId())
			if err != nil {
				t.Fatal(err)
			}
			bySeat := map[uint32]int{}
			for _, step := range replay.GetSteps() {
				bySeat[step.GetSeat()]++
			}
			if bySeat[0] == 0 || bySeat[1] == 0 {
				t.Errorf("actions by seat %v: both bots must have acted", bySeat)
			}
			t.Logf("%d actions (%v by seat)\n%s", len(replay.GetSteps()), bySeat, &outs[0])
		})
	}
}

// On a server that plays with players only (`--no-allow-anonymous` wins over the
// harness's --allow-anonymous): as a guest player, and as an existing player whose
// token is $MERCADO_PLAYER_TOKEN, joining a match that player created.
func TestRandomBotWithoutAnonymous(t *testing.T) {
	t.Setenv("MERCADO_PLAYER_TOKEN", "")
	srv := testserver.StartWith(t, "--no-allow-anonymous")
	testserver.StartAgent(t, srv, "easy")
	ctx := testserver.Context(t)
	client := testserver.Dial(t, srv)

	// The server does refuse anonymous seats.
	if _, err := client.CreateMatch(ctx, mercado.MatchOptions{}); err == nil {
		t.Fatal("the server created a match without a player: it allows anonymous play")
	}

	var out bytes.Buffer
	if err := run(ctx, []string{"-server", srv.Target(), "-vs-ai", "easy", "-name", "guest-bot", "-seed", "9"}, &out); err != nil {
		t.Fatalf("as a guest: %v\n%s", err, &out)
	}
	if text := out.String(); !strings.Contains(text, "signed in as the guest player") || !strings.Contains(text, "match over") ||
		!strings.Contains(text, "guest-bot") {
		t.Errorf("the guest did not play to the end:\n%s", text)
	}

	ada, token, err := client.CreatePlayer(ctx, "ada")
	if err != nil {
		t.Fatal(err)
	}
	match, err := client.CreateMatch(mercado.WithToken(ctx, token), mercado.MatchOptions{
		Seats: []*mercadov1.SeatSpec{mercado.OpenSeat(), mercado.BotSeat(mercadov1.BotLevel_BOT_LEVEL_EASY)}})
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("MERCADO_PLAYER_TOKEN", token)
	out.Reset()
	if err := run(ctx, []string{"-server", srv.Target(), "-match", match.GetMatchId(), "-seat", "0", "-seed", "10"}, &out); err != nil {
		t.Fatalf("as ada: %v\n%s", err, &out)
	}
	text := out.String()
	if strings.Contains(text, "signed in as the guest player") || !strings.Contains(text, "match over") {
		t.Errorf("ada did not play to the end as herself:\n%s", text)
	}
	mine, _, err := client.PlayerMatches(ctx, ada.GetPlayerId(), mercadov1.Game_GAME_UNSPECIFIED, mercadov1.MatchStatus_MATCH_STATUS_FINISHED, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(mine) != 1 || mine[0].GetMatchId() != match.GetMatchId() {
		t.Fatalf("ada's finished matches are %v, want just %s", mine, match.GetMatchId())
	}
	if info := mine[0].GetSeats()[0]; info.GetPlayerId() != ada.GetPlayerId() || info.GetDisplayName() != "ada" {
		t.Errorf("seat 0 is %q (%s), want ada's (%s)", info.GetDisplayName(), info.GetPlayerId(), ada.GetPlayerId())
	}
	t.Log("\n" + text)
}

// Over TLS, trusting the test's CA.
func TestRandomBotOverTLS(t *testing.T) {
	t.Setenv("MERCADO_PLAYER_TOKEN", "")
	srv := testserver.StartTLS(t)
	testserver.StartAgent(t, srv, "easy")
	var out bytes.Buffer
	err := run(testserver.Context(t), []string{"-server", srv.Target(), "-ca-file", srv.CAFile, "-vs-ai", "easy", "-seed", "8"}, &out)
	if err != nil {
		t.Fatalf("%v\n%s", err, &out)
	}
	if text := out.String(); !strings.Contains(text, "match over") || !strings.Contains(text, "Easy AI") {
		t.Errorf("the match did not finish against the test's agent:\n%s", text)
	}
}

func TestFlags(t *testing.T) {
	t.Setenv("MERCADO_PLAYER_TOKEN", "")
	for _, args := range [][]string{{}, {"-match", "m", "-vs-ai", "easy"}, {"-vs-ai", "impossible"}, {"-match", "m", "-ca-file", "/nonexistent.pem"},
		{"-vs-ai", "easy", "-game", "chess"}} {
		if err := run(t.Context(), append(args, "-server", "127.0.0.1:1"), &bytes.Buffer{}); err == nil {
			t.Errorf("run(%q) succeeded", args)
		}
	}
}
