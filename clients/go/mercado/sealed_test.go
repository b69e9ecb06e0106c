package mercado_test

// Leilão's sealed bids, checked on the bytes each receiver gets: until the last bid
// of a step, no other seat and no spectator receives a seat's bid.

import (
	"bytes"
	"context"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/structpb"

	mercadov1 "github.com/mercado-game/mercado/clients/go/gen/mercado/v1"
	"github.com/mercado-game/mercado/clients/go/internal/testserver"
	"github.com/mercado-game/mercado/clients/go/mercado"
)

// rawCodec is gRPC's proto codec, keeping the bytes of the last message it received.
type rawCodec struct {
	mu   sync.Mutex
	last []byte
}

func (c *rawCodec) Name() string { return "proto" }

func (c *rawCodec) Marshal(v any) (mem.BufferSlice, error) {
	return encoding.GetCodecV2("proto").Marshal(v)
}

func (c *rawCodec) Unmarshal(data mem.BufferSlice, v any) error {
	raw := data.Materialize()
	c.mu.Lock()
	c.last = raw
	c.mu.Unlock()
	return proto.Unmarshal(raw, v.(proto.Message))
}

func (c *rawCodec) received() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.last
}

// receiver is one party's stream of the match, and its GetView, both keeping the
// bytes received.
type receiver struct {
	name   string
	client *mercado.Client
	token  string // "" for a spectator
	codec  rawCodec
	stream grpc.ServerStreamingClient[mercadov1.MatchUpdate]
}

func newReceiver(t *testing.T, ctx context.Context, srv *testserver.Server, name, matchID, token string) *receiver {
	t.Helper()
	r := &receiver{name: name, client: testserver.Dial(t, srv), token: token}
	stream, err := r.client.RPC().StreamEvents(mercado.WithToken(ctx, token),
		&mercadov1.StreamEventsRequest{MatchId: matchID}, grpc.ForceCodecV2(&r.codec))
	if err != nil {
		t.Fatal(err)
	}
	r.stream = stream
	return r
}

// nextAction is the next update of an action (updates of seats or clocks are
// skipped) and its bytes as received.
func (r *receiver) nextAction(t *testing.T) (*mercadov1.MatchUpdate, []byte) {
	t.Helper()
	for {
		update, err := r.stream.Recv()
		if err != nil {
			t.Fatalf("%s's stream: %v", r.name, err)
		}
		if mercado.IsAction(update) {
			return update, r.codec.received()
		}
	}
}

// seat is seat on the receiver's own connection.
func (r *receiver) seat(seat *mercado.Seat) *mercado.Seat {
	return r.client.Seat(seat.MatchID, seat.Number, seat.Token)
}

// view is the receiver's GetView and its bytes as received.
func (r *receiver) view(t *testing.T, ctx context.Context, matchID string) (*mercadov1.MatchState, []byte) {
	t.Helper()
	var codec rawCodec
	state, err := r.client.RPC().GetView(mercado.WithToken(ctx, r.token), &mercadov1.GetViewRequest{MatchId: matchID},
		grpc.ForceCodecV2(&codec))
	if err != nil {
		t.Fatal(err)
	}
	return state, codec.received()
}

// wireField is one field of a message's bytes: its number, the bytes as sent (tag
// included) and, for a length-delimited field, its content.
type wireField struct {
	number  protowire.Number
	whole   []byte
	content []byte
}

func wireFields(t *testing.T, raw []byte) []wireField {
	t.Helper()
	var fields []wireField
	for len(raw) > 0 {
		number, kind, n := protowire.ConsumeTag(raw)
		if n < 0 {
			t.Fatalf("bad wire bytes: %v", protowire.ParseError(n))
		}
		m := protowire.ConsumeFieldValue(number, kind, raw[n:])
		if m < 0 {
			t.Fatalf("bad wire bytes: %v", protowire.ParseError(m))
		}
		field := wireField{number: number, whole: raw[:n+m]}
		if kind == protowire.BytesType {
			field.content, _ = protowire.ConsumeBytes(raw[n:])
		}
		fields = append(fields, field)
		raw = raw[n+m:]
	}
	return fields
}

// fieldNumber is the number of message's field called name.
func fieldNumber(t *testing.T, message proto.Message, name string) protowire.Number {
	t.Helper()
	field := message.ProtoReflect().Descriptor().Fields().ByName(protoreflect.Name(name))
	if field == nil {
		t.Fatalf("%T has no field %s", message, name)
	}
	return field.Number()
}

// within is the content of every field numbered number in raw, concatenated: the
// fields of a repeated or nested one.
func within(t *testing.T, raw []byte, number protowire.Number) []byte {
	var out []byte
	for _, field := range wireFields(t, raw) {
		if field.number == number {
			out = append(out, field.content...)
		}
	}
	return out
}

// exposure is where received bytes could show a sealed bid: an update's action and
// events, and the view's Struct without the receiver's own legal actions (they list
// every bid it may make itself).
type exposure struct{ action, events, view []byte }

func exposureOfUpdate(t *testing.T, raw []byte) exposure {
	update := &mercadov1.MatchUpdate{}
	var e exposure
	for _, field := range wireFields(t, raw) {
		switch field.number {
		case fieldNumber(t, update, "action"):
			e.action = append(e.action, field.whole...)
		case fieldNumber(t, update, "events"):
			e.events = append(e.events, field.whole...)
		}
	}
	e.view = exposureOfState(t, within(t, raw, fieldNumber(t, update, "state"))).view
	return e
}

func exposureOfState(t *testing.T, raw []byte) exposure {
	view := within(t, raw, fieldNumber(t, &mercadov1.MatchState{}, "view"))
	leilao := within(t, view, fieldNumber(t, &mercadov1.View{}, "leilao"))
	fields := within(t, leilao, fieldNumber(t, &mercadov1.LeilaoView{}, "view"))
	var e exposure
	for _, entry := range wireFields(t, fields) { // the Struct's map entries: key 1, value 2
		if key := string(within(t, entry.content, 1)); key != "legal_actions" {
			e.view = append(e.view, entry.whole...)
		}
	}
	return e
}

// numberEntry is the wire bytes of a Struct's entry key: number.
func numberEntry(t *testing.T, key string, number uint32) []byte {
	raw, err := proto.Marshal(&structpb.Struct{Fields: map[string]*structpb.Value{key: structpb.NewNumberValue(float64(number))}})
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// secret is a bid's wire bytes as it would be received: as the update's action, and
// as its card and extra in a Struct (the view's sealed choice, a sealed event).
type secret struct{ action, card, extra []byte }

func secretOf(t *testing.T, bid *mercadov1.Action) secret {
	raw, err := proto.Marshal(bid)
	if err != nil {
		t.Fatal(err)
	}
	tag := protowire.AppendTag(nil, fieldNumber(t, &mercadov1.MatchUpdate{}, "action"), protowire.BytesType)
	b := bid.GetLeilao().GetBid()
	return secret{protowire.AppendBytes(tag, raw), numberEntry(t, "card", b.GetCard()), numberEntry(t, "extra", b.GetExtra())}
}

// shows lists what of s the bytes show.
func (s secret) shows(raw []byte) []string {
	var found []string
	for name, part := range map[string][]byte{"action": s.action, "card": s.card, "extra": s.extra} {
		if bytes.Contains(raw, part) {
			found = append(found, name)
		}
	}
	slices.Sort(found)
	return found
}

// bidWithExtra is a random legal bid of state with an extra card.
func bidWithExtra(t *testing.T, rng *rand.Rand, state *mercadov1.MatchState) *mercadov1.Action {
	t.Helper()
	var bids []*mercadov1.Action
	for _, action := range state.GetLegalActions() {
		if action.GetLeilao().GetBid().Extra != nil {
			bids = append(bids, action)
		}
	}
	if len(bids) == 0 {
		t.Fatalf("no legal bid with an extra card at version %d", state.GetVersion())
	}
	return bids[rng.IntN(len(bids))]
}

func leilaoJSON(state *mercadov1.MatchState) map[string]any {
	return state.GetView().GetLeilao().GetView().AsMap()
}

func eventsJSON(update *mercadov1.MatchUpdate) []map[string]any {
	var events []map[string]any
	for _, event := range update.GetEvents() {
		events = append(events, event.GetLeilao().GetEvent().AsMap())
	}
	return events
}

// A 2-seat Leilão match, each seat with a client of its own and a spectator with a
// third: seat 0 bids; seat 1's and the spectator's stream messages and views do not
// hold the bid's bytes where seat 0's own do (the same search finds them there, and
// in everyone's reveal later), and their views change only in who has acted; then
// seat 1 bids, and every stream receives both bids together in that last bid's update.
func TestSealedBidReachesNobodyBeforeTheReveal(t *testing.T) {
	t.Parallel()
	srv := testserver.Start(t)
	ctx := testserver.Context(t)
	rng := newRand(t)
	seats := playingMatchWith(t, ctx, testserver.Dial(t, srv),
		mercado.MatchOptions{Game: mercadov1.Game_GAME_LEILAO, TimeControl: mercado.NoClock()})
	matchID := seats[0].MatchID
	receivers := []*receiver{
		newReceiver(t, ctx, srv, "seat 0", matchID, seats[0].Token),
		newReceiver(t, ctx, srv, "seat 1", matchID, seats[1].Token),
		newReceiver(t, ctx, srv, "a spectator", matchID, ""),
	}
	bidder, others := receivers[0], receivers[1:]

	start, _ := bidder.view(t, ctx, matchID)
	if !slices.Equal(start.GetSeatsToMove(), []uint32{0, 1}) || start.ToMove != nil {
		t.Fatalf("seats to move %v, to move %v at the start; want both seats, no single mover", start.GetSeatsToMove(), start.ToMove)
	}
	before := map[string]map[string]any{}
	for _, r := range others {
		state, _ := r.view(t, ctx, matchID)
		before[r.name] = leilaoJSON(state)
	}
	bid := bidWithExtra(t, rng, start)
	if _, err := bidder.seat(seats[0]).ActAt(ctx, bid, start.GetVersion()); err != nil {
		t.Fatal(err)
	}
	s := secretOf(t, bid)

	// Seat 0 receives its own bid: the search below finds what is there.
	update, raw := bidder.nextAction(t)
	if update.GetSeat() != 0 || !proto.Equal(update.GetAction(), bid) {
		t.Fatalf("seat 0's own update is seat %v's %v, want its bid %v", update.Seat, update.GetAction(), bid)
	}
	exposed := exposureOfUpdate(t, raw)
	if got := s.shows(exposed.action); !slices.Contains(got, "action") {
		t.Errorf("seat 0's update bytes lack its own bid: %v", got)
	}
	if got := s.shows(exposed.events); !slices.Equal(got, []string{"card", "extra"}) {
		t.Errorf("seat 0's events show %v of its own bid, want card and extra", got)
	}
	if got := s.shows(exposed.view); !slices.Equal(got, []string{"card", "extra"}) {
		t.Errorf("seat 0's view in its update shows %v of its own bid, want card and extra (its sealed choice)", got)
	}
	own, ownRaw := bidder.view(t, ctx, matchID)
	if got := s.shows(exposureOfState(t, ownRaw).view); !slices.Equal(got, []string{"card", "extra"}) {
		t.Errorf("seat 0's GetView shows %v of its own bid, want card and extra", got)
	}
	if len(own.GetLegalActions()) != 0 || !slices.Equal(own.GetSeatsToMove(), []uint32{1}) {
		t.Errorf("after its bid seat 0 has %d legal actions, seats to move %v; want none, [1]",
			len(own.GetLegalActions()), own.GetSeatsToMove())
	}

	// The others receive that seat 0 bid, and nothing of the bid.
	for _, r := range others {
		update, raw := r.nextAction(t)
		if update.GetSeat() != 0 || update.GetAction() != nil || update.GetVersion() != 1 {
			t.Errorf("%s's update: version %d, seat %v, action %v; want version 1, seat 0, no action",
				r.name, update.GetVersion(), update.Seat, update.GetAction())
		}
		want := map[string]any{"type": "sealed", "seat": 0.0, "step": "bid"}
		if events := eventsJSON(update); len(events) != 1 || !equalJSON(events[0], want) {
			t.Errorf("%s's events are %v, want just %v", r.name, events, want)
		}
		exposed := exposureOfUpdate(t, raw)
		for what, part := range map[string][]byte{"action": exposed.action, "events": exposed.events, "view": exposed.view} {
			if got := s.shows(part); len(got) > 0 {
				t.Errorf("%s's update shows seat 0's bid (%v) in its %s", r.name, got, what)
			}
		}
		state, stateRaw := r.view(t, ctx, matchID)
		if got := s.shows(exposureOfState(t, stateRaw).view); len(got) > 0 {
			t.Errorf("%s's GetView shows seat 0's bid (%v)", r.name, got)
		}
		if sealed := leilaoJSON(state)["sealed"]; sealed != nil {
			t.Errorf("%s's view has the sealed choice %v", r.name, sealed)
		}
		if hands, _ := leilaoJSON(state)["hands"].([]any); len(hands) != 2 || len(hands[0].([]any)) != 20 {
			t.Errorf("%s sees the hands %v, want seat 0's with all 20 cards", r.name, hands)
		}
		// Whatever the shape a leak would take: the view changed only in who has acted.
		if changed := changedKeys(before[r.name], leilaoJSON(state)); !slices.Equal(changed, []string{"acted", "to_move"}) {
			t.Errorf("%s's view changed in %v with seat 0's bid, want only who acted and who is to move", r.name, changed)
		}
	}

	// Seat 1 bids, the last of the step: every stream gets both bids in that update.
	state, _ := receivers[1].view(t, ctx, matchID)
	last := bidWithExtra(t, rng, state)
	if _, err := receivers[1].seat(seats[1]).ActAt(ctx, last, state.GetVersion()); err != nil {
		t.Fatal(err)
	}
	wantBids := []any{bidJSON(0, bid), bidJSON(1, last)}
	for _, r := range receivers {
		update, raw := r.nextAction(t)
		var reveals []map[string]any
		for _, event := range eventsJSON(update) {
			if event["type"] == "reveal" {
				reveals = append(reveals, event)
			}
		}
		if update.GetVersion() != 2 || update.GetSeat() != 1 || len(reveals) != 1 || !equalJSON(reveals[0]["bids"], wantBids) {
			t.Errorf("%s's update of version %d (seat %v) reveals %v, want one reveal of %v", r.name, update.GetVersion(),
				update.Seat, reveals, wantBids)
		}
		if got := s.shows(exposureOfUpdate(t, raw).events); !slices.Equal(got, []string{"card", "extra"}) {
			t.Errorf("%s's reveal shows %v of seat 0's bid in its bytes, want card and extra", r.name, got)
		}
	}
}

// changedKeys are the keys whose values differ between two JSON objects, sorted.
func changedKeys(before, after map[string]any) []string {
	var changed []string
	for key := range before {
		if _, ok := after[key]; !ok {
			changed = append(changed, key)
		}
	}
	for key, value := range after {
		if !equalJSON(before[key], value) {
			changed = append(changed, key)
		}
	}
	slices.Sort(changed)
	return changed
}

func bidJSON(seat uint32, action *mercadov1.Action) map[string]any {
	b := action.GetLeilao().GetBid()
	return map[string]any{"seat": float64(seat), "card": float64(b.GetCard()), "extra": float64(b.GetExtra())}
}

// equalJSON compares JSON values read from Structs.
func equalJSON(a, b any) bool {
	x, errA := structpb.NewValue(a)
	y, errB := structpb.NewValue(b)
	return errA == nil && errB == nil && proto.Equal(x, y)
}
