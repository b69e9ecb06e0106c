package mercado_test

// The scenarios of clients/conformance/scenarios.json, which every reference
// client runs against a real server.

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	mercadov1 "github.com/mercado-game/mercado/clients/go/gen/mercado/v1"
	"github.com/mercado-game/mercado/clients/go/internal/testserver"
	"github.com/mercado-game/mercado/clients/go/mercado"
)

// conformance holds what each scenario gets: a client of a server shared by the
// scenarios (those that need a server started otherwise start their own), and the
// game its matches are of.
type conformance struct {
	client *mercado.Client
	target string // the shared server's address, for a second client
	ctx    context.Context
	rng    *rand.Rand
	game   mercadov1.Game
}

// scenario is a scenario's implementation; one that is about matches, not the
// connection, runs for every game, unless it chooses its games.
type scenario struct {
	run     func(*testing.T, conformance)
	perGame bool
}

// followed is one update as Follow yielded it: its version, and whether it carries an action.
type followed struct {
	version uint64
	action  bool
}

var scenarios = map[string]scenario{
	"create_and_join":              {createAndJoin, true},
	"bad_token":                    {badToken, true},
	"illegal_action":               {illegalAction, true},
	"stale_version":                {staleVersion, true},
	"retry_same_request_id":        {retrySameRequestID, true},
	"resume_stream":                {resumeStream, true},
	"stream_starts_with_the_match": {streamStartsWithTheMatch, true},
	"sealed_choice_in_watch":       {sealedChoiceInWatch, false},
	"every_game_with_the_helpers":  {everyGameWithTheHelpers, false},
	"retry_after":                  {retryAfter, false},
	"tls":                          {tlsConnection, false},
}

func TestConformance(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join(testserver.RepoRoot(t), "clients", "conformance", "scenarios.json"))
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Scenarios []struct {
			Name string `json:"name"`
			Does string `json:"does"`
		} `json:"scenarios"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		t.Fatalf("scenarios.json: %v", err)
	}
	if len(file.Scenarios) == 0 {
		t.Fatal("scenarios.json names no scenario")
	}
	srv := testserver.Start(t)
	client := testserver.Dial(t, srv)
	for _, named := range file.Scenarios {
		t.Run(named.Name, func(t *testing.T) {
			scenario, ok := scenarios[named.Name]
			if !ok {
				t.Fatalf("scenario %q (%s) has no Go implementation", named.Name, named.Does)
			}
			with := func(t *testing.T, game mercadov1.Game) conformance {
				return conformance{client: client, target: srv.Target(), ctx: testserver.Context(t), rng: newRand(t), game: game}
			}
			if !scenario.perGame {
				scenario.run(t, with(t, mercadov1.Game_GAME_MERCADO))
				return
			}
			for _, game := range mercado.Games() {
				t.Run(mercado.GameName(game), func(t *testing.T) {
					t.Parallel()
					scenario.run(t, with(t, game))
				})
			}
		})
	}
}

// --- helpers ------------------------------------------------------------------

// playingMatch creates a 2-player match with open seats and joins both; seats[i] is seat i.
func playingMatch(t *testing.T, ctx context.Context, client *mercado.Client) []*mercado.Seat {
	t.Helper()
	return playingMatchWith(t, ctx, client, mercado.MatchOptions{})
}

// playingMatch is playingMatch for a match of the scenario's game.
func (c conformance) playingMatch(t *testing.T) []*mercado.Seat {
	t.Helper()
	return playingMatchWith(t, c.ctx, c.client, mercado.MatchOptions{Game: c.game})
}

// playingMatchWith is playingMatch for a match with opts (of 2 players).
func playingMatchWith(t *testing.T, ctx context.Context, client *mercado.Client, opts mercado.MatchOptions) []*mercado.Seat {
	t.Helper()
	opts.Players = 2
	match, err := client.CreateMatch(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	var seats []*mercado.Seat
	for i := range 2 {
		seat, err := client.JoinSeat(ctx, match.GetMatchId(), uint32(i), testserver.SeatName(t, i))
		if err != nil {
			t.Fatal(err)
		}
		seats = append(seats, seat)
	}
	return seats
}

// toMove returns a seat that must act now (the first of seats_to_move: in a sealed
// step several must), its view, and the other seat.
func toMove(t *testing.T, ctx context.Context, seats []*mercado.Seat) (*mercado.Seat, *mercadov1.MatchState, *mercado.Seat) {
	t.Helper()
	mover, state, other, err := findMover(ctx, seats)
	if err != nil {
		t.Fatal(err)
	}
	return mover, state, other
}

// findMover is toMove for goroutines other than the test's.
func findMover(ctx context.Context, seats []*mercado.Seat) (*mercado.Seat, *mercadov1.MatchState, *mercado.Seat, error) {
	state, err := seats[0].View(ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	if len(state.GetSeatsToMove()) == 0 {
		return nil, nil, nil, fmt.Errorf("no seat is to move at version %d (status %v)", state.GetVersion(), state.GetMatch().GetStatus())
	}
	first := state.GetSeatsToMove()[0]
	mover, other := seats[first], seats[1-first]
	if mover != seats[0] {
		if state, err = mover.View(ctx); err != nil {
			return nil, nil, nil, err
		}
	}
	if len(state.GetLegalActions()) == 0 {
		return nil, nil, nil, fmt.Errorf("seat %d is to move at version %d but has no legal action", mover.Number, state.GetVersion())
	}
	return mover, state, other, nil
}

// playRandom plays n random legal actions, of a seat to move, through Seat.ActAt.
func playRandom(t *testing.T, ctx context.Context, seats []*mercado.Seat, n int, rng *rand.Rand) {
	t.Helper()
	if err := tryPlayRandom(ctx, seats, n, rng); err != nil {
		t.Fatal(err)
	}
}

// tryPlayRandom is playRandom for goroutines other than the test's.
func tryPlayRandom(ctx context.Context, seats []*mercado.Seat, n int, rng *rand.Rand) error {
	for range n {
		mover, state, _, err := findMover(ctx, seats)
		if err != nil {
			return err
		}
		legal := state.GetLegalActions()
		response, err := mover.ActAt(ctx, legal[rng.IntN(len(legal))], state.GetVersion())
		if err != nil {
			return fmt.Errorf("seat %d acting at version %d: %w", mover.Number, state.GetVersion(), err)
		}
		if response.GetVersion() != state.GetVersion()+1 {
			return fmt.Errorf("acting at version %d gave version %d", state.GetVersion(), response.GetVersion())
		}
	}
	return nil
}

func wantCode(t *testing.T, err error, want codes.Code, what string) {
	t.Helper()
	if got := status.Code(err); got != want {
		t.Fatalf("%s: got %v (%v), want %v", what, got, err, want)
	}
	if status.Convert(err).Message() == "" {
		t.Errorf("%s: %v carries no reason", what, want)
	}
}

func wantVersion(t *testing.T, ctx context.Context, seat *mercado.Seat, want uint64) *mercadov1.MatchState {
	t.Helper()
	state, err := seat.View(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if state.GetVersion() != want || state.GetMatch().GetVersion() != want {
		t.Fatalf("the match is at version %d (summary %d), want %d",
			state.GetVersion(), state.GetMatch().GetVersion(), want)
	}
	return state
}

func submitRaw(ctx context.Context, client *mercado.Client, token string, request *mercadov1.SubmitActionRequest) error {
	_, err := client.RPC().SubmitAction(mercado.WithToken(ctx, token), request)
	return err
}

// --- scenarios ------------------------------------------------------------------

// create_and_join: create a 2-player match with open seats; join seat 0 and the first
// open seat; both get tokens; the match is playing at version 0.
func createAndJoin(t *testing.T, c conformance) {
	match, err := c.client.CreateMatch(c.ctx, mercado.MatchOptions{
		Game: c.game, Players: 2, Seats: []*mercadov1.SeatSpec{mercado.OpenSeat(), mercado.OpenSeat()},
	})
	if err != nil {
		t.Fatal(err)
	}
	if match.GetMatchId() == "" || match.GetGame() != c.game || match.GetStatus() != mercadov1.MatchStatus_MATCH_STATUS_WAITING ||
		match.GetPlayers() != 2 || len(match.GetSeats()) != 2 || match.GetVersion() != 0 {
		t.Fatalf("unexpected new match %v", match)
	}
	first, err := c.client.JoinSeat(c.ctx, match.GetMatchId(), 0, "ada")
	if err != nil {
		t.Fatal(err)
	}
	second, err := c.client.Join(c.ctx, match.GetMatchId(), "bea")
	if err != nil {
		t.Fatal(err)
	}
	if first.Number != 0 || second.Number != 1 {
		t.Fatalf("joined seats %d and %d, want 0 and 1", first.Number, second.Number)
	}
	if first.Token == "" || second.Token == "" || first.Token == second.Token {
		t.Fatalf("tokens must be present and distinct: %q, %q", first.Token, second.Token)
	}
	for _, seat := range []*mercado.Seat{first, second} {
		state := wantVersion(t, c.ctx, seat, 0)
		if state.GetMatch().GetStatus() != mercadov1.MatchStatus_MATCH_STATUS_PLAYING {
			t.Fatalf("status %v after both seats joined, want playing", state.GetMatch().GetStatus())
		}
		if state.YourSeat == nil || state.GetYourSeat() != seat.Number {
			t.Errorf("seat %d's view says your_seat %v", seat.Number, state.YourSeat)
		}
		for _, info := range state.GetMatch().GetSeats() {
			if !info.GetTaken() {
				t.Errorf("seat %d is not taken", info.GetSeat())
			}
		}
	}
	// Both seats are taken now.
	_, err = c.client.Join(c.ctx, match.GetMatchId(), "cid")
	wantCode(t, err, codes.ResourceExhausted, "joining a full match")
	_, err = c.client.JoinSeat(c.ctx, match.GetMatchId(), 0, "cid")
	wantCode(t, err, codes.AlreadyExists, "joining a taken seat")
}

// bad_token: submit with no token is UNAUTHENTICATED; with an unknown token
// UNAUTHENTICATED; with another match's token PERMISSION_DENIED; GetView without a
// token is a spectator view (no your_seat, no legal actions); GetView with another
// match's token is PERMISSION_DENIED.
func badToken(t *testing.T, c conformance) {
	seats := c.playingMatch(t)
	elsewhere := c.playingMatch(t)
	mover, state, _ := toMove(t, c.ctx, seats)
	action := state.GetLegalActions()[0]
	request := func() *mercadov1.SubmitActionRequest {
		return &mercadov1.SubmitActionRequest{
			MatchId: mover.MatchID, ExpectedVersion: state.GetVersion(), RequestId: uuid.NewString(), Action: action,
		}
	}

	wantCode(t, submitRaw(c.ctx, c.client, "", request()), codes.Unauthenticated, "no token")
	wantCode(t, submitRaw(c.ctx, c.client, "not-a-token", request()), codes.Unauthenticated, "unknown token")
	wantCode(t, submitRaw(c.ctx, c.client, elsewhere[mover.Number].Token, request()), codes.PermissionDenied,
		"another match's token")
	// The same through the wrapper.
	_, err := c.client.Seat(mover.MatchID, mover.Number, "").ActAt(c.ctx, action, state.GetVersion())
	wantCode(t, err, codes.Unauthenticated, "Seat.ActAt without a token")
	_, err = c.client.Seat(mover.MatchID, mover.Number, elsewhere[0].Token).ActAt(c.ctx, action, state.GetVersion())
	wantCode(t, err, codes.PermissionDenied, "Seat.ActAt with another match's token")

	spectator, err := c.client.View(c.ctx, mover.MatchID, "")
	if err != nil {
		t.Fatal(err)
	}
	if spectator.YourSeat != nil || len(spectator.GetLegalActions()) != 0 {
		t.Errorf("a spectator's view has your_seat %v and %d legal actions",
			spectator.YourSeat, len(spectator.GetLegalActions()))
	}
	if spectator.GetVersion() != state.GetVersion() {
		t.Errorf("refused submissions changed the version: %d -> %d", state.GetVersion(), spectator.GetVersion())
	}
	_, err = c.client.View(c.ctx, mover.MatchID, elsewhere[0].Token)
	wantCode(t, err, codes.PermissionDenied, "GetView with another match's token")
	wantVersion(t, c.ctx, mover, state.GetVersion())
}

// illegal_action: a well-formed action that is not legal now (open_restaurant with an
// empty restaurant hand, or acting out of turn) is FAILED_PRECONDITION and the version
// is unchanged.
func illegalAction(t *testing.T, c conformance) {
	seats := c.playingMatch(t)
	mover, state, other := toMove(t, c.ctx, seats)
	// In a sealed step both seats are to move: once one has acted, it is out of turn.
	if slices.Contains(state.GetSeatsToMove(), other.Number) {
		playRandom(t, c.ctx, seats, 1, c.rng)
		mover, state, other = toMove(t, c.ctx, seats)
	}
	version := state.GetVersion()

	// Out of turn: the other seat sends the mover's legal action.
	_, err := other.ActAt(c.ctx, state.GetLegalActions()[0], version)
	wantCode(t, err, codes.FailedPrecondition, "acting out of turn")
	if c.game == mercadov1.Game_GAME_MERCADO {
		illegalRestaurant(t, c, mover, state)
	}
	after := wantVersion(t, c.ctx, mover, version)
	if !proto.Equal(after.GetView(), state.GetView()) {
		t.Errorf("a refused action changed the view")
	}
}

// illegalRestaurant: in Mercado, opening a restaurant the mover does not hold is
// FAILED_PRECONDITION.
func illegalRestaurant(t *testing.T, c conformance, mover *mercado.Seat, state *mercadov1.MatchState) {
	version := state.GetVersion()
	// A restaurant the mover does not hold, on a free square.
	hand := state.GetView().GetMercado().GetPlayers()[mover.Number].GetRestaurantHand()
	restaurant := mercadov1.Restaurant_RESTAURANT_SUSHI_BAR
	for slices.Contains(hand, restaurant) {
		restaurant++
	}
	if restaurant > mercadov1.Restaurant_RESTAURANT_PUB {
		t.Fatalf("the mover holds every restaurant: %v", hand)
	}
	occupied := map[[2]uint32]bool{}
	for _, content := range state.GetView().GetMercado().GetMarket() {
		occupied[[2]uint32{content.GetSquare().GetColumn(), content.GetSquare().GetRow()}] = true
	}
	var square *mercadov1.Square
	for col := uint32(1); col <= 5 && square == nil; col++ {
		for row := uint32(1); row <= 5 && square == nil; row++ {
			if !occupied[[2]uint32{col, row}] {
				square = &mercadov1.Square{Column: col, Row: row}
			}
		}
	}
	openRestaurant := &mercadov1.Action{Game: &mercadov1.Action_Mercado{Mercado: &mercadov1.MercadoAction{
		Action: &mercadov1.MercadoAction_OpenRestaurant{OpenRestaurant: &mercadov1.OpenRestaurant{
			Restaurant: restaurant, Square: square,
		}},
	}}}
	if mercado.IsLegal(state, openRestaurant) {
		t.Fatalf("opening %v on %v, which the mover does not hold, is listed as legal", restaurant, square)
	}
	_, err := mover.ActAt(c.ctx, openRestaurant, version)
	wantCode(t, err, codes.FailedPrecondition, "opening a restaurant not in hand")
}

// stale_version: submitting a legal action with expected_version one less than the
// match version is ABORTED and nothing changes (a version within a step of sealed
// choices is not stale: the scenario plays on to the step's end).
func staleVersion(t *testing.T, c conformance) {
	seats := c.playingMatch(t)
	playRandom(t, c.ctx, seats, 1, c.rng)
	mover, state, _ := toMove(t, c.ctx, seats)
	// In a simultaneous step the versions since it began are all current (the others'
	// sealed choices change nothing of the mover's): play on to the end of the step.
	for sealedChoice(t, c.ctx, mover, state.GetVersion()) {
		playRandom(t, c.ctx, seats, 1, c.rng)
		mover, state, _ = toMove(t, c.ctx, seats)
	}
	version := state.GetVersion()
	action := state.GetLegalActions()[c.rng.IntN(len(state.GetLegalActions()))]

	_, err := mover.Submit(c.ctx, action, version-1, uuid.NewString())
	wantCode(t, err, codes.Aborted, "a stale expected_version")
	after := wantVersion(t, c.ctx, mover, version)
	if !proto.Equal(after, state) {
		t.Errorf("a stale submission changed the state")
	}

	// Seat.ActAt recovers: it fetches the view and resubmits the still-legal action.
	response, err := mover.ActAt(c.ctx, action, version-1)
	if err != nil {
		t.Fatalf("ActAt from a stale version: %v", err)
	}
	if response.GetVersion() != version+1 {
		t.Errorf("ActAt from a stale version gave version %d, want %d", response.GetVersion(), version+1)
	}
	wantVersion(t, c.ctx, mover, version+1)
}

// sealedChoice tells whether the action at version came to seat as another seat's
// sealed choice: with its seat, without the action.
func sealedChoice(t *testing.T, ctx context.Context, seat *mercado.Seat, version uint64) bool {
	t.Helper()
	for update, err := range seat.Follow(ctx, version-1) {
		if err != nil {
			t.Fatal(err)
		}
		if mercado.IsAction(update) {
			return update.GetSeat() != seat.Number && update.GetAction() == nil
		}
	}
	t.Fatalf("the stream ended before the action at version %d", version)
	return false
}

// retry_same_request_id: submitting the same action twice with the same request id
// returns the same version and events; the match version grew by one only.
func retrySameRequestID(t *testing.T, c conformance) {
	seats := c.playingMatch(t)
	playRandom(t, c.ctx, seats, 2, c.rng)
	mover, state, _ := toMove(t, c.ctx, seats)
	version := state.GetVersion()
	action := state.GetLegalActions()[c.rng.IntN(len(state.GetLegalActions()))]
	requestID := uuid.NewString()

	first, err := mover.Submit(c.ctx, action, version, requestID)
	if err != nil {
		t.Fatal(err)
	}
	second, err := mover.Submit(c.ctx, action, version, requestID)
	if err != nil {
		t.Fatalf("the retry was refused: %v", err)
	}
	if first.GetVersion() != version+1 || second.GetVersion() != first.GetVersion() {
		t.Fatalf("versions %d and %d, want %d twice", first.GetVersion(), second.GetVersion(), version+1)
	}
	if len(first.GetEvents()) == 0 {
		t.Errorf("an accepted action brought no events")
	}
	if !slices.EqualFunc(first.GetEvents(), second.GetEvents(), func(a, b *mercadov1.Event) bool { return proto.Equal(a, b) }) {
		t.Errorf("the retry's events differ:\n%v\n%v", first.GetEvents(), second.GetEvents())
	}
	if !proto.Equal(first.GetState(), second.GetState()) {
		t.Errorf("the retry's state differs")
	}
	wantVersion(t, c.ctx, mover, version+1)
}

// resume_stream: follow the event stream of a match six actions in: the first
// message is the match as it stands (no action, version 6), then actions 1 and 2;
// drop it, reconnect with after_version 2 (the last action seen): again the match
// as it stands first, then every later action exactly once, in order. Then (beyond
// the scenario) live actions arrive on the same stream, each once. Another seat's
// sealed action is an action too: it names its seat, without the action.
func resumeStream(t *testing.T, c conformance) {
	const backlog, live = 6, 3
	seats := c.playingMatch(t)
	playRandom(t, c.ctx, seats, backlog, c.rng)

	var seen []followed
	note := func(follower *mercado.Seat, update *mercadov1.MatchUpdate) {
		t.Helper()
		hasAction := mercado.IsAction(update)
		if update.GetAction() != nil && !hasAction {
			t.Errorf("update %d: an action %v without an acting seat", update.GetVersion(), update.GetAction())
		}
		if hasAction && update.GetSeat() == follower.Number && update.GetAction() == nil {
			t.Errorf("update %d: seat %d's own action is missing from its stream", update.GetVersion(), follower.Number)
		}
		if update.GetState().GetVersion() != update.GetVersion() {
			t.Errorf("update %d carries the state at version %d", update.GetVersion(), update.GetState().GetVersion())
		}
		seen = append(seen, followed{update.GetVersion(), hasAction})
	}
	for update, err := range seats[0].Follow(c.ctx, 0) {
		if err != nil {
			t.Fatal(err)
		}
		note(seats[0], update)
		if len(seen) == 3 {
			break // drops the stream
		}
	}
	want := []followed{{6, false}, {1, true}, {2, true}}
	if !slices.Equal(seen, want) {
		t.Fatalf("the first stream brought %v, want %v", seen, want)
	}
	last := seen[len(seen)-1].version // the last action seen

	ctx, cancel := context.WithCancel(c.ctx)
	defer cancel()
	playing := make(chan struct{})
	played := make(chan error, 1)
	go func() {
		select {
		case <-playing:
			err := tryPlayRandom(ctx, seats, live, rand.New(rand.NewPCG(c.rng.Uint64(), 2)))
			if err != nil {
				cancel() // ends the stream below
			}
			played <- err
		case <-ctx.Done():
			played <- nil
		}
	}()
	seen = nil
	for update, err := range seats[1].Follow(ctx, last) {
		if err != nil {
			t.Fatalf("following from version %d: %v (playing: %v)", last, err, <-played)
		}
		if !mercado.IsAction(update) && len(seen) > 0 {
			continue // after the first update: a change of seats or clocks, not asked about here
		}
		note(seats[1], update)
		if mercado.IsAction(update) && update.GetVersion() == backlog {
			close(playing) // the backlog is in: now live updates
		}
		if mercado.IsAction(update) && update.GetVersion() == backlog+live {
			break
		}
	}
	if err := <-played; err != nil {
		t.Fatal(err)
	}
	want = []followed{{6, false}}
	for v := last + 1; v <= backlog+live; v++ {
		want = append(want, followed{v, true})
	}
	if !slices.Equal(seen, want) {
		t.Fatalf("the stream resumed after version %d brought %v, want %v", last, seen, want)
	}
}

// stream_starts_with_the_match: read a waiting 2-player match with one seat taken
// (its view: waiting, version 0); another client takes the last seat; then open
// the stream with after_version 0: its first message, at once, is the match playing
// at version 0 (no action), so the start is not missed.
func streamStartsWithTheMatch(t *testing.T, c conformance) {
	match, err := c.client.CreateMatch(c.ctx, mercado.MatchOptions{Game: c.game, Players: 2})
	if err != nil {
		t.Fatal(err)
	}
	first, err := c.client.Join(c.ctx, match.GetMatchId(), testserver.SeatName(t, 0))
	if err != nil {
		t.Fatal(err)
	}
	state := wantVersion(t, c.ctx, first, 0)
	if state.GetMatch().GetStatus() != mercadov1.MatchStatus_MATCH_STATUS_WAITING {
		t.Fatalf("status %v with one seat taken, want waiting", state.GetMatch().GetStatus())
	}
	other, err := mercado.Dial(c.target)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := other.Join(c.ctx, match.GetMatchId(), testserver.SeatName(t, 1)); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(c.ctx, 5*time.Second)
	defer cancel()
	for update, err := range first.Follow(ctx, 0) {
		if err != nil {
			t.Fatalf("no first message within 5 s: %v", err)
		}
		if update.GetAction() != nil || update.Seat != nil || update.GetVersion() != 0 {
			t.Errorf("the first message is at version %d with action %v (seat %v), want the match at version 0 without one",
				update.GetVersion(), update.GetAction(), update.Seat)
		}
		if status := update.GetState().GetMatch().GetStatus(); status != mercadov1.MatchStatus_MATCH_STATUS_PLAYING {
			t.Errorf("the first message shows the match %v, want playing", status)
		}
		break
	}
}

// attempt is one unary call as the server answered it.
type attempt struct {
	method     string
	code       codes.Code
	retryAfter string // the retry-after trailer, "" without
}

// attempts records every unary call a client makes, retries included.
type attempts struct {
	mu  sync.Mutex
	all []attempt
}

func (a *attempts) intercept(ctx context.Context, method string, request, reply any, cc *grpc.ClientConn,
	invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
	var trailer metadata.MD
	err := invoker(ctx, method, request, reply, cc, append(opts, grpc.Trailer(&trailer))...)
	a.mu.Lock()
	defer a.mu.Unlock()
	a.all = append(a.all, attempt{path.Base(method), status.Code(err), strings.Join(trailer.Get("retry-after"), ",")})
	return err
}

func (a *attempts) made() []attempt {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.all)
}

// retry_after: against a server started with --rate-limit CreateMatch=1/1, two
// create_match calls in a row both succeed through the client's wrapper: the second
// is refused RESOURCE_EXHAUSTED with `retry-after: 1` in its trailing metadata, and
// the wrapper waits that long (the two calls take at least 0.9 s in all) and repeats
// it; a raw call through the generated stub shows the refusal and its retry-after.
func retryAfter(t *testing.T, c conformance) {
	t.Parallel()
	srv := testserver.StartWith(t, "--rate-limit", "CreateMatch=1/1")
	var calls attempts
	client := testserver.Dial(t, srv, mercado.WithDialOptions(grpc.WithChainUnaryInterceptor(calls.intercept)))

	start := time.Now()
	for i := range 2 {
		if _, err := client.CreateMatch(c.ctx, mercado.MatchOptions{Players: 2}); err != nil {
			t.Fatalf("CreateMatch %d: %v", i+1, err)
		}
	}
	if elapsed := time.Since(start); elapsed < 900*time.Millisecond {
		t.Errorf("the two CreateMatch calls took %v, want at least 0.9 s", elapsed)
	}
	want := []attempt{
		{"CreateMatch", codes.OK, ""},
		{"CreateMatch", codes.ResourceExhausted, "1"},
		{"CreateMatch", codes.OK, ""},
	}
	if got := calls.made(); !slices.Equal(got, want) {
		t.Errorf("calls made %v, want %v", got, want)
	}

	var trailer metadata.MD
	_, err := client.RPC().CreateMatch(c.ctx,
		&mercadov1.CreateMatchRequest{Game: mercadov1.Game_GAME_MERCADO, Players: 2}, grpc.Trailer(&trailer))
	wantCode(t, err, codes.ResourceExhausted, "a raw CreateMatch right after")
	if wait, ok := mercado.RetryAfter(err, trailer); !ok || wait != time.Second {
		t.Errorf("the refusal's retry-after trailer is %q (RetryAfter: %v, %v), want 1 s",
			trailer.Get("retry-after"), wait, ok)
	}
}

// tls: against a server started with --tls-cert/--tls-key (a certificate for 127.0.0.1
// signed by a CA made for the test with tests/tls_cert.py), a client given that CA file
// creates and joins a match; a client that does not trust the CA fails with UNAVAILABLE.
func tlsConnection(t *testing.T, c conformance) {
	t.Parallel()
	srv := testserver.StartTLS(t)
	dial := func(opts ...mercado.Option) *mercado.Client {
		client, err := mercado.Dial(srv.Target(), opts...)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = client.Close() })
		return client
	}

	client := dial(mercado.WithTLSCAFile(srv.CAFile))
	match, err := client.CreateMatch(c.ctx, mercado.MatchOptions{Players: 2})
	if err != nil {
		t.Fatalf("creating a match over TLS: %v", err)
	}
	seat, err := client.Join(c.ctx, match.GetMatchId(), testserver.SeatName(t, 0))
	if err != nil {
		t.Fatalf("joining over TLS: %v", err)
	}
	if seat.Token == "" {
		t.Errorf("joining over TLS gave no token")
	}
	wantVersion(t, c.ctx, seat, 0)

	for name, opts := range map[string][]mercado.Option{
		"a plaintext client":                   nil,
		"a TLS client with the system's roots": {mercado.WithTLS()},
	} {
		_, err := dial(opts...).CreateMatch(c.ctx, mercado.MatchOptions{Players: 2})
		wantCode(t, err, codes.Unavailable, name)
	}
}
