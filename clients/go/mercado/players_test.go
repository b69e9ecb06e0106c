package mercado_test

// Players, ratings and matchmaking against the project's own server.

import (
	"context"
	"errors"
	"math/rand/v2"
	"regexp"
	"slices"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	mercadov1 "github.com/mercado-game/mercado/clients/go/gen/mercado/v1"
	"github.com/mercado-game/mercado/clients/go/internal/testserver"
	"github.com/mercado-game/mercado/clients/go/mercado"
)

var playerID = regexp.MustCompile(`^[0-9a-f]{32}$`)

// guest creates a guest player and returns it with its token.
func guest(t *testing.T, ctx context.Context, client *mercado.Client, name string) (*mercadov1.Player, string) {
	t.Helper()
	player, token, err := client.CreatePlayer(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	if !playerID.MatchString(player.GetPlayerId()) || player.GetDisplayName() != name ||
		player.GetKind() != mercadov1.PlayerKind_PLAYER_KIND_GUEST || token == "" {
		t.Fatalf("CreatePlayer(%q) = %v, %q", name, player, token)
	}
	return player, token
}

// seatOf is the number of the seat of summary bound to player; the test fails without one.
func seatOf(t *testing.T, summary *mercadov1.MatchSummary, player string) uint32 {
	t.Helper()
	for _, info := range summary.GetSeats() {
		if info.GetPlayerId() == player {
			return info.GetSeat()
		}
	}
	t.Fatalf("no seat of match %s is bound to %s: %v", summary.GetMatchId(), player, summary.GetSeats())
	return 0
}

// wantFindError runs FindMatch and expects it to yield nothing but an error with code want.
func wantFindError(t *testing.T, ctx context.Context, client *mercado.Client, token string, want codes.Code, what string) {
	t.Helper()
	var got error
	for update, err := range client.FindMatch(ctx, token, mercadov1.Game_GAME_MERCADO, 2, false) {
		if update != nil {
			t.Fatalf("%s: yielded %v", what, update)
		}
		got = err
	}
	wantCode(t, got, want, what)
}

// A guest player creates a match and takes a seat with its player token; the player token then
// acts for the seat (view, follow, submit, leave) like the seat token, and the match is among
// the player's.
func TestGuestPlayerCreatesJoinsAndPlaysWithItsToken(t *testing.T) {
	t.Parallel()
	srv := testserver.Start(t)
	client := testserver.Dial(t, srv)
	ctx := testserver.Context(t)
	ada, adaToken := guest(t, ctx, client, "ada")
	bea, beaToken := guest(t, ctx, client, "bea")

	me, err := client.Player(ctx, mercadov1.Game_GAME_MERCADO, adaToken, "")
	if err != nil || me.GetPlayerId() != ada.GetPlayerId() || me.GetRating() == nil || me.GetRatedMatches() != 0 {
		t.Fatalf("Player(ada's token, \"\") = %v, %v; want ada, unrated", me, err)
	}
	other, err := client.Player(ctx, mercadov1.Game_GAME_MERCADO, "", bea.GetPlayerId())
	if err != nil || other.GetDisplayName() != "bea" {
		t.Fatalf("Player(\"\", bea's id) = %v, %v", other, err)
	}
	_, err = client.Player(ctx, mercadov1.Game_GAME_MERCADO, "", "")
	wantCode(t, err, codes.Unauthenticated, "the caller's own profile without a credential")

	asAda := mercado.WithToken(ctx, adaToken)
	match, err := client.CreateMatch(asAda, mercado.MatchOptions{Players: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !match.GetRated() || match.GetHotSeat() {
		t.Errorf("a new match between players: rated %v, hot seat %v; want rated, not hot seat", match.GetRated(), match.GetHotSeat())
	}
	joined, err := client.JoinSeat(asAda, match.GetMatchId(), 0, "") // ada's own name
	if err != nil {
		t.Fatal(err)
	}
	_, err = client.Join(asAda, match.GetMatchId(), "ada again")
	wantCode(t, err, codes.AlreadyExists, "a second seat for ada")
	if _, err := client.JoinSeat(mercado.WithToken(ctx, beaToken), match.GetMatchId(), 1, ""); err != nil {
		t.Fatal(err)
	}

	// The seats as their players, by player token alone.
	seats := []*mercado.Seat{client.Seat(match.GetMatchId(), 0, adaToken), client.Seat(match.GetMatchId(), 1, beaToken)}
	state, err := seats[0].View(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if state.YourSeat == nil || state.GetYourSeat() != 0 || state.GetMatch().GetStatus() != mercadov1.MatchStatus_MATCH_STATUS_PLAYING {
		t.Fatalf("ada's view by player token: your_seat %v, status %v", state.YourSeat, state.GetMatch().GetStatus())
	}
	for i, player := range []*mercadov1.Player{ada, bea} {
		info := state.GetMatch().GetSeats()[i]
		if info.GetPlayerId() != player.GetPlayerId() || info.GetDisplayName() != player.GetDisplayName() {
			t.Errorf("seat %d is %q (%s), want %s's", i, info.GetDisplayName(), info.GetPlayerId(), player.GetDisplayName())
		}
	}
	// The seat token still works, and names the same seat; so does a Seat made with a ctx
	// that carries the player token.
	bySeatToken, err := joined.View(asAda)
	if err != nil || bySeatToken.GetYourSeat() != 0 {
		t.Fatalf("ada's view by seat token: %v, %v", bySeatToken.YourSeat, err)
	}

	playRandom(t, ctx, seats, 4, newRand(t)) // SubmitAction with the player tokens
	for update, err := range seats[1].Follow(ctx, 0) {
		if err != nil {
			t.Fatal(err)
		}
		if update.GetAction() != nil || update.GetState().GetYourSeat() != 1 || update.GetVersion() != 4 {
			t.Fatalf("bea's first update by player token: version %d, your_seat %v", update.GetVersion(), update.GetState().YourSeat)
		}
		break
	}

	mine, _, err := client.PlayerMatches(ctx, ada.GetPlayerId(), mercadov1.Game_GAME_UNSPECIFIED, mercadov1.MatchStatus_MATCH_STATUS_UNSPECIFIED, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(mine) != 1 || mine[0].GetMatchId() != match.GetMatchId() || seatOf(t, mine[0], ada.GetPlayerId()) != 0 {
		t.Fatalf("ada's matches: %v; want the one match, ada in seat 0", mine)
	}
	finished, _, err := client.PlayerMatches(ctx, ada.GetPlayerId(), mercadov1.Game_GAME_UNSPECIFIED, mercadov1.MatchStatus_MATCH_STATUS_FINISHED, "")
	if err != nil || len(finished) != 0 {
		t.Fatalf("ada's finished matches: %v, %v; want none", finished, err)
	}

	summary, err := seats[1].Leave(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info := summary.GetSeats()[1]; !info.GetLeft() {
		t.Errorf("after bea left by player token, seat 1 is %v", info)
	}
}

// Hot seat: one player holds both seats, and such a match is unrated; so is an unrated one.
func TestHotSeatAndUnratedMatches(t *testing.T) {
	t.Parallel()
	srv := testserver.Start(t)
	client := testserver.Dial(t, srv)
	ctx := testserver.Context(t)
	_, token := guest(t, ctx, client, "cid")
	asCid := mercado.WithToken(ctx, token)

	hot, err := client.CreateMatch(asCid, mercado.MatchOptions{Players: 2, HotSeat: true})
	if err != nil {
		t.Fatal(err)
	}
	if !hot.GetHotSeat() || hot.GetRated() {
		t.Errorf("hot-seat match: hot seat %v, rated %v", hot.GetHotSeat(), hot.GetRated())
	}
	for range 2 {
		if _, err := client.Join(asCid, hot.GetMatchId(), ""); err != nil {
			t.Fatal(err)
		}
	}
	state, err := client.View(asCid, hot.GetMatchId(), "") // the credential of ctx
	if err != nil {
		t.Fatal(err)
	}
	if state.GetMatch().GetStatus() != mercadov1.MatchStatus_MATCH_STATUS_PLAYING || state.YourSeat == nil {
		t.Fatalf("hot-seat match with both seats cid's: status %v, your_seat %v", state.GetMatch().GetStatus(), state.YourSeat)
	}

	friendly, err := client.CreateMatch(asCid, mercado.MatchOptions{Players: 2, Unrated: true})
	if err != nil {
		t.Fatal(err)
	}
	if friendly.GetRated() || friendly.GetHotSeat() {
		t.Errorf("unrated match: rated %v, hot seat %v", friendly.GetRated(), friendly.GetHotSeat())
	}
}

// finder runs FindMatch in a goroutine and hands over what it yields.
type finder struct {
	updates chan *mercadov1.FindMatchUpdate
	done    chan error // the error that ended it, nil after the MatchFound
	stop    context.CancelFunc
}

func findMatch(ctx context.Context, client *mercado.Client, token string) *finder {
	ctx, stop := context.WithCancel(ctx)
	f := &finder{updates: make(chan *mercadov1.FindMatchUpdate, 100), done: make(chan error, 1), stop: stop}
	go func() {
		defer close(f.updates)
		for update, err := range client.FindMatch(ctx, token, mercadov1.Game_GAME_MERCADO, 2, false) {
			if err != nil {
				f.done <- err
				return
			}
			f.updates <- update
		}
		f.done <- nil
	}()
	return f
}

// next is f's next update; nil when it ended.
func (f *finder) next(t *testing.T, ctx context.Context) *mercadov1.FindMatchUpdate {
	t.Helper()
	select {
	case update := <-f.updates:
		return update
	case <-ctx.Done():
		t.Fatalf("no update from FindMatch: %v", ctx.Err())
	}
	return nil
}

// found waits for f's MatchFound, skipping Queued updates.
func (f *finder) found(t *testing.T, ctx context.Context) *mercadov1.MatchFound {
	t.Helper()
	for {
		update := f.next(t, ctx)
		if update == nil {
			t.Fatalf("FindMatch ended without a match: %v", <-f.done)
		}
		if found := update.GetFound(); found != nil {
			if err := <-f.done; err != nil {
				t.Fatalf("FindMatch failed after its MatchFound: %v", err)
			}
			return found
		}
	}
}

// Two players queue and are put in one match; the first hears Queued while it waits; a second
// FindMatch of the same player is ALREADY_EXISTS; leaving the loop leaves the queue. The found
// match is played to its end with the player tokens, rated, and on the leaderboard.
func TestFindMatchAndLeaderboard(t *testing.T) {
	t.Parallel()
	srv := testserver.StartWith(t, "--matchmaking-ai-wait", "1")
	client := testserver.Dial(t, srv)
	ctx := testserver.Context(t)
	ada, adaToken := guest(t, ctx, client, "ada")
	bea, beaToken := guest(t, ctx, client, "bea")

	entries, next, err := client.Leaderboard(ctx, mercadov1.Game_GAME_MERCADO, 0, "")
	if err != nil || len(entries) != 0 || next != "" {
		t.Fatalf("the leaderboard of a new server: %v, %q, %v; want empty", entries, next, err)
	}

	adaFinds := findMatch(ctx, client, adaToken)
	queued := adaFinds.next(t, ctx).GetQueued()
	if queued == nil || queued.GetQueuedPlayers() != 1 || queued.GetRatingWindow() <= 0 {
		t.Fatalf("ada alone in the queue: first update %v", queued)
	}
	wantFindError(t, ctx, client, adaToken, codes.AlreadyExists, "a second FindMatch of ada while she is queued")
	wantFindError(t, ctx, client, "", codes.Unauthenticated, "FindMatch without a player credential")
	// A player who breaks out of the loop leaves the queue, and may queue again.
	_, cidToken := guest(t, ctx, client, "cid")
	for update, err := range client.FindMatch(ctx, cidToken, mercadov1.Game_GAME_MERCADO, 3, false) {
		if err != nil || update.GetQueued() == nil {
			t.Fatalf("cid queueing: %v, %v", update, err)
		}
		break
	}
	requeued := false
	for attempt := 0; !requeued && attempt < 50; attempt++ {
		for update, err := range client.FindMatch(ctx, cidToken, mercadov1.Game_GAME_MERCADO, 3, false) {
			switch {
			case status.Code(err) == codes.AlreadyExists:
				time.Sleep(100 * time.Millisecond) // the server has yet to see the stream closed
			case err != nil:
				t.Fatal(err)
			default:
				requeued = update.GetQueued() != nil
			}
			break
		}
	}
	if !requeued {
		t.Fatal("cid could not queue again after leaving the loop")
	}

	beaFinds := findMatch(ctx, client, beaToken)
	found := []*mercadov1.MatchFound{adaFinds.found(t, ctx), beaFinds.found(t, ctx)}
	if found[0].GetMatchId() != found[1].GetMatchId() || found[0].GetSeat() == found[1].GetSeat() ||
		found[0].GetSeatToken() == "" || found[1].GetSeatToken() == "" {
		t.Fatalf("ada and bea found %v and %v; want two seats of one match", found[0], found[1])
	}
	match := found[0].GetMatch()
	if match.GetPlayers() != 2 || !match.GetRated() || seatOf(t, match, ada.GetPlayerId()) != found[0].GetSeat() ||
		seatOf(t, match, bea.GetPlayerId()) != found[1].GetSeat() {
		t.Fatalf("the found match %v; want 2 rated seats, ada's and bea's", match)
	}

	// Play it to its end: ada by player token, bea by seat token.
	seats := []*mercado.Seat{
		client.Seat(found[0].GetMatchId(), found[0].GetSeat(), adaToken),
		client.Seat(found[1].GetMatchId(), found[1].GetSeat(), found[1].GetSeatToken()),
	}
	rng := newRand(t)
	var mu sync.Mutex
	choose := mercado.RandomChoice(rng)
	finals := make([]*mercadov1.MatchState, 2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i, seat := range seats {
		wg.Go(func() {
			finals[i], errs[i] = seat.Play(ctx, func(state *mercadov1.MatchState) *mercadov1.Action {
				mu.Lock()
				defer mu.Unlock()
				return choose(state)
			})
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	if finals[0].GetMatch().GetStatus() != mercadov1.MatchStatus_MATCH_STATUS_FINISHED {
		t.Fatalf("the found match ended %v", finals[0].GetMatch().GetStatus())
	}
	ranks := finals[0].GetMatch().GetRanks()
	t.Logf("finished at version %d: ranks %v (ada seat %d, bea seat %d)", finals[0].GetVersion(), ranks, found[0].GetSeat(), found[1].GetSeat())

	// The match is rated a moment after its last action.
	deadline := time.Now().Add(20 * time.Second)
	for {
		entries, next, err = client.Leaderboard(ctx, mercadov1.Game_GAME_MERCADO, 0, "")
		if err != nil {
			t.Fatal(err)
		}
		if len(entries) == 2 || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if len(entries) != 2 || next != "" || entries[0].GetRank() != 1 || entries[1].GetRank() != 2 ||
		entries[0].GetPlayer().GetRating().GetDisplay() < entries[1].GetPlayer().GetRating().GetDisplay() {
		t.Fatalf("leaderboard after one rated match: %v, next page %q; want ada and bea, best first", entries, next)
	}
	ids := []string{entries[0].GetPlayer().GetPlayerId(), entries[1].GetPlayer().GetPlayerId()}
	if !slices.Contains(ids, ada.GetPlayerId()) || !slices.Contains(ids, bea.GetPlayerId()) {
		t.Fatalf("leaderboard players %v; want ada and bea", ids)
	}
	first, next, err := client.Leaderboard(ctx, mercadov1.Game_GAME_MERCADO, 1, "")
	if err != nil || len(first) != 1 || next == "" || first[0].GetPlayer().GetPlayerId() != ids[0] {
		t.Fatalf("first page of 1: %v, %q, %v", first, next, err)
	}
	second, last, err := client.Leaderboard(ctx, mercadov1.Game_GAME_MERCADO, 1, next)
	if err != nil || len(second) != 1 || second[0].GetRank() != 2 || second[0].GetPlayer().GetPlayerId() != ids[1] {
		t.Fatalf("second page of 1: %v, %q, %v", second, last, err)
	}

	for i, token := range []string{adaToken, beaToken} {
		me, err := client.Player(ctx, mercadov1.Game_GAME_MERCADO, token, "")
		if err != nil {
			t.Fatal(err)
		}
		wins := uint32(0)
		if ranks[found[i].GetSeat()] == 1 {
			wins = 1
		}
		if me.GetRatedMatches() != 1 || me.GetWins() != wins || me.GetRating().GetSigma() >= 25.0/3 {
			t.Errorf("%s after the match: %d rated, %d wins, rating %v; want 1 rated, %d wins, a smaller sigma",
				me.GetDisplayName(), me.GetRatedMatches(), me.GetWins(), me.GetRating(), wins)
		}
	}
	mine, _, err := client.PlayerMatches(ctx, bea.GetPlayerId(), mercadov1.Game_GAME_UNSPECIFIED, mercadov1.MatchStatus_MATCH_STATUS_FINISHED, "")
	if err != nil || len(mine) != 1 || mine[0].GetMatchId() != found[1].GetMatchId() || !mine[0].GetRated() {
		t.Fatalf("bea's finished matches: %v, %v; want the found match, rated", mine, err)
	}
}

// A lone player who allows AI is matched with a bot after --matchmaking-ai-wait.
func TestFindMatchWithAI(t *testing.T) {
	t.Parallel()
	srv := testserver.StartWith(t, "--matchmaking-ai-wait", "1")
	testserver.StartAgent(t, srv, "easy")
	client := testserver.Dial(t, srv)
	ctx := testserver.Context(t)
	ada, token := guest(t, ctx, client, "ada")

	start := time.Now()
	var found *mercadov1.MatchFound
	for update, err := range client.FindMatch(ctx, token, mercadov1.Game_GAME_MERCADO, 2, true) {
		if err != nil {
			t.Fatal(err)
		}
		found = update.GetFound()
	}
	if found == nil {
		t.Fatal("FindMatch ended without a match")
	}
	t.Logf("matched with AI after %v", time.Since(start))
	bot := found.GetMatch().GetSeats()[1-found.GetSeat()]
	if seatOf(t, found.GetMatch(), ada.GetPlayerId()) != found.GetSeat() || !bot.GetBot() {
		t.Fatalf("found %v; want ada and a bot seat", found)
	}
	seat := client.Seat(found.GetMatchId(), found.GetSeat(), token)
	// The agent takes the bot seat moments later: the match is playing from then.
	for update, err := range seat.Follow(ctx, 0) {
		if err != nil {
			t.Fatal(err)
		}
		if update.GetState().GetMatch().GetStatus() == mercadov1.MatchStatus_MATCH_STATUS_PLAYING {
			break
		}
	}
	if _, err := seat.Leave(ctx); err != nil {
		t.Fatal(err)
	}
}

// Ratings are per game: a rated Leilão match moves its players' Leilão ratings alone, which
// Player, Leaderboard and PlayerMatches read with the game.
func TestRatingsPerGame(t *testing.T) {
	t.Parallel()
	srv := testserver.Start(t)
	client := testserver.Dial(t, srv)
	ctx := testserver.Context(t)
	ada, adaToken := guest(t, ctx, client, "ada")
	bea, beaToken := guest(t, ctx, client, "bea")
	leilao := mercadov1.Game_GAME_LEILAO
	match, err := client.CreateMatch(mercado.WithToken(ctx, adaToken), mercado.MatchOptions{Game: leilao, Players: 2, TimeControl: mercado.NoClock()})
	if err != nil {
		t.Fatal(err)
	}
	finals := make([]*mercadov1.MatchState, 2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i, token := range []string{adaToken, beaToken} {
		seat, err := client.JoinSeat(mercado.WithToken(ctx, token), match.GetMatchId(), uint32(i), "")
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(uint64(i), 7))
		wg.Go(func() { finals[i], errs[i] = mercado.PlayRandom(ctx, seat, rng) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}

	deadline := time.Now().Add(20 * time.Second)
	var rated *mercadov1.Player
	for rated.GetRatedMatches() == 0 && time.Now().Before(deadline) {
		if rated, err = client.Player(ctx, leilao, adaToken, ""); err != nil {
			t.Fatal(err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if rated.GetGame() != "leilao" || rated.GetRatedMatches() != 1 {
		t.Fatalf("ada in Leilão: %v; want 1 rated match", rated)
	}
	if mercadoRating, err := client.Player(ctx, mercadov1.Game_GAME_MERCADO, "", ada.GetPlayerId()); err != nil ||
		mercadoRating.GetGame() != "mercado" || mercadoRating.GetRatedMatches() != 0 {
		t.Fatalf("ada in Mercado: %v, %v; want no rated match", mercadoRating, err)
	}
	entries, _, err := client.Leaderboard(ctx, leilao, 100, "")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, entry := range entries {
		ids = append(ids, entry.GetPlayer().GetPlayerId())
	}
	if !slices.Contains(ids, ada.GetPlayerId()) || !slices.Contains(ids, bea.GetPlayerId()) {
		t.Fatalf("Leilão's leaderboard %v; want ada and bea", ids)
	}
	if others, _, err := client.Leaderboard(ctx, mercadov1.Game_GAME_OREGANO, 100, ""); err != nil || len(others) != 0 {
		t.Fatalf("Oregano's leaderboard: %v, %v; want nobody", others, err)
	}
	for game, want := range map[mercadov1.Game]int{leilao: 1, mercadov1.Game_GAME_OREGANO: 0, mercadov1.Game_GAME_UNSPECIFIED: 1} {
		mine, _, err := client.PlayerMatches(ctx, ada.GetPlayerId(), game, mercadov1.MatchStatus_MATCH_STATUS_UNSPECIFIED, "")
		if err != nil || len(mine) != want {
			t.Errorf("ada's matches of %v: %v, %v; want %d", game, mine, err, want)
		}
	}
	if listed, _, err := client.ListMatches(ctx, mercadov1.Game_GAME_OREGANO, mercadov1.MatchStatus_MATCH_STATUS_FINISHED, ""); err != nil || len(listed) != 0 {
		t.Errorf("finished Oregano matches: %v, %v; want none", listed, err)
	}
}

// RotatePlayerToken gives a guest a new token and refuses every earlier one.
func TestRotatePlayerToken(t *testing.T) {
	t.Parallel()
	srv := testserver.Start(t)
	client := testserver.Dial(t, srv)
	ctx := testserver.Context(t)
	ada, token := guest(t, ctx, client, "ada")
	player, rotated, err := client.RotatePlayerToken(ctx, token)
	if err != nil || player.GetPlayerId() != ada.GetPlayerId() || rotated == "" || rotated == token {
		t.Fatalf("RotatePlayerToken = %v, %q, %v; want ada and a new token", player, rotated, err)
	}
	if me, err := client.Player(ctx, mercadov1.Game_GAME_MERCADO, rotated, ""); err != nil || me.GetPlayerId() != ada.GetPlayerId() {
		t.Fatalf("ada with the new token: %v, %v", me, err)
	}
	_, err = client.Player(ctx, mercadov1.Game_GAME_MERCADO, token, "")
	wantCode(t, err, codes.Unauthenticated, "the replaced token")
	_, _, err = client.RotatePlayerToken(ctx, token)
	wantCode(t, err, codes.Unauthenticated, "rotating the replaced token")
}
