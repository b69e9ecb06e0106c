package mercado_test

// The wrapper's retry, resubmit and resume logic against a scripted in-process
// server, without Python.

import (
	"context"
	"errors"
	"net"
	"slices"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/test/bufconn"
	"google.golang.org/protobuf/proto"

	mercadov1 "github.com/mercado-game/mercado/clients/go/gen/mercado/v1"
	"github.com/mercado-game/mercado/clients/go/mercado"
)

// fakeServer answers with scripted functions and records what it was sent.
type fakeServer struct {
	mercadov1.UnimplementedMatchServiceServer

	mu      sync.Mutex
	submits []*mercadov1.SubmitActionRequest
	creates []*mercadov1.CreateMatchRequest
	joins   []*mercadov1.JoinMatchRequest
	streams []uint64 // after_version of each StreamEvents call
	tokens  []string // the authorization metadata of each call
	claims  []*mercadov1.ClaimBotSeatRequest
	views   int
	other   []string // the other calls: LeaveMatch, ReclaimSeat, AgentHeartbeat
	beats   []*mercadov1.AgentHeartbeatRequest
	finds   []*mercadov1.FindMatchRequest

	submit func(n int, request *mercadov1.SubmitActionRequest) (*mercadov1.SubmitActionResponse, error)
	view   func(n int) (*mercadov1.MatchState, error)
	stream func(n int, request *mercadov1.StreamEventsRequest, send func(*mercadov1.MatchUpdate) error) error
	create func(n int) (*mercadov1.CreateMatchResponse, error)
	join   func(n int) (*mercadov1.JoinMatchResponse, error)
	claim  func(n int) (*mercadov1.ClaimBotSeatResponse, error)
	find   func(n int, ctx context.Context, send func(*mercadov1.FindMatchUpdate) error) error
}

// fairUse is what a scripted function returns for a fair-use refusal: the fake
// answers RESOURCE_EXHAUSTED with a retry-after trailer.
type fairUse struct{ retryAfter string }

func (fairUse) Error() string { return "fair-use refusal" }

// refusal turns a fairUse error into the refusal, setting the trailer with setTrailer.
func refusal(err error, setTrailer func(metadata.MD)) error {
	var refused fairUse
	if !errors.As(err, &refused) {
		return err
	}
	setTrailer(metadata.Pairs("retry-after", refused.retryAfter))
	return status.Error(codes.ResourceExhausted, "too many calls")
}

// receive records a call's authorization metadata and, with note, the call
// itself (under the lock); note returns the call's number for the script.
func (f *fakeServer) receive(ctx context.Context, note func() int) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	md, _ := metadata.FromIncomingContext(ctx)
	f.tokens = append(f.tokens, md.Get("authorization")...)
	return note()
}

// answer is the scripted answer of a unary call, a fairUse error as the refusal.
func answer[Resp any](ctx context.Context, response Resp, err error) (Resp, error) {
	return response, refusal(err, func(md metadata.MD) { _ = grpc.SetTrailer(ctx, md) })
}

func (f *fakeServer) SubmitAction(ctx context.Context, request *mercadov1.SubmitActionRequest) (*mercadov1.SubmitActionResponse, error) {
	n := f.receive(ctx, func() int { f.submits = append(f.submits, request); return len(f.submits) })
	response, err := f.submit(n, request)
	return answer(ctx, response, err)
}

func (f *fakeServer) GetView(ctx context.Context, _ *mercadov1.GetViewRequest) (*mercadov1.MatchState, error) {
	n := f.receive(ctx, func() int { f.views++; return f.views })
	response, err := f.view(n)
	return answer(ctx, response, err)
}

func (f *fakeServer) CreateMatch(ctx context.Context, request *mercadov1.CreateMatchRequest) (*mercadov1.CreateMatchResponse, error) {
	n := f.receive(ctx, func() int { f.creates = append(f.creates, request); return len(f.creates) })
	response, err := f.create(n)
	return answer(ctx, response, err)
}

func (f *fakeServer) JoinMatch(ctx context.Context, request *mercadov1.JoinMatchRequest) (*mercadov1.JoinMatchResponse, error) {
	n := f.receive(ctx, func() int { f.joins = append(f.joins, request); return len(f.joins) })
	response, err := f.join(n)
	return answer(ctx, response, err)
}

func (f *fakeServer) ClaimBotSeat(ctx context.Context, request *mercadov1.ClaimBotSeatRequest) (*mercadov1.ClaimBotSeatResponse, error) {
	n := f.receive(ctx, func() int { f.claims = append(f.claims, request); return len(f.claims) })
	response, err := f.claim(n)
	return answer(ctx, response, err)
}

func (f *fakeServer) StreamEvents(request *mercadov1.StreamEventsRequest, stream grpc.ServerStreamingServer[mercadov1.MatchUpdate]) error {
	n := f.receive(stream.Context(), func() int {
		f.streams = append(f.streams, request.GetAfterVersion())
		return len(f.streams)
	})
	return refusal(f.stream(n, request, stream.Send), stream.SetTrailer)
}

func (f *fakeServer) FindMatch(request *mercadov1.FindMatchRequest, stream grpc.ServerStreamingServer[mercadov1.FindMatchUpdate]) error {
	n := f.receive(stream.Context(), func() int { f.finds = append(f.finds, request); return len(f.finds) })
	return refusal(f.find(n, stream.Context(), stream.Send), stream.SetTrailer)
}

// noteOther records one of the calls without a script.
func (f *fakeServer) noteOther(ctx context.Context, call string) {
	f.receive(ctx, func() int { f.other = append(f.other, call); return len(f.other) })
}

func (f *fakeServer) LeaveMatch(ctx context.Context, request *mercadov1.LeaveMatchRequest) (*mercadov1.LeaveMatchResponse, error) {
	f.noteOther(ctx, "LeaveMatch "+request.GetMatchId())
	return &mercadov1.LeaveMatchResponse{Match: &mercadov1.MatchSummary{MatchId: request.GetMatchId()}}, nil
}

func (f *fakeServer) ReclaimSeat(ctx context.Context, request *mercadov1.ReclaimSeatRequest) (*mercadov1.MatchState, error) {
	f.noteOther(ctx, "ReclaimSeat "+request.GetMatchId())
	return playingState(3), nil
}

func (f *fakeServer) AgentHeartbeat(ctx context.Context, request *mercadov1.AgentHeartbeatRequest) (*mercadov1.AgentHeartbeatResponse, error) {
	f.receive(ctx, func() int {
		f.other = append(f.other, "AgentHeartbeat")
		f.beats = append(f.beats, request)
		return len(f.beats)
	})
	return &mercadov1.AgentHeartbeatResponse{IntervalSeconds: 10}, nil
}

// recorded returns a copy of one of f's records, taken under its lock.
func recorded[T any](f *fakeServer, record *[]T) []T {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(*record)
}

func (f *fakeServer) submitted() []*mercadov1.SubmitActionRequest { return recorded(f, &f.submits) }
func (f *fakeServer) created() []*mercadov1.CreateMatchRequest    { return recorded(f, &f.creates) }
func (f *fakeServer) joined() []*mercadov1.JoinMatchRequest       { return recorded(f, &f.joins) }
func (f *fakeServer) claimed() []*mercadov1.ClaimBotSeatRequest   { return recorded(f, &f.claims) }
func (f *fakeServer) streamed() []uint64                          { return recorded(f, &f.streams) }
func (f *fakeServer) tokensSeen() []string                        { return recorded(f, &f.tokens) }
func (f *fakeServer) otherCalls() []string                        { return recorded(f, &f.other) }
func (f *fakeServer) found() []*mercadov1.FindMatchRequest        { return recorded(f, &f.finds) }

// startFake serves f in-process and returns a seat "m"/0 with token "tok" on it.
func startFake(t *testing.T, f *fakeServer) *mercado.Seat {
	t.Helper()
	listener := bufconn.Listen(1 << 20)
	server := grpc.NewServer()
	mercadov1.RegisterMatchServiceServer(server, f)
	go func() { _ = server.Serve(listener) }()
	t.Cleanup(server.Stop)
	client, err := mercado.Dial("passthrough:///fake",
		mercado.WithReconnectTimeout(5*time.Second),
		mercado.WithDialOptions(grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) {
			return listener.DialContext(ctx)
		})))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.Close() })
	return client.Seat("m", 0, "tok")
}

func mercadoAction(action *mercadov1.MercadoAction) *mercadov1.Action {
	return &mercadov1.Action{Game: &mercadov1.Action_Mercado{Mercado: action}}
}

var (
	takeCoin   = mercadoAction(&mercadov1.MercadoAction{Action: &mercadov1.MercadoAction_TakeCoin{TakeCoin: &mercadov1.TakeCoin{}}})
	redrawHand = mercadoAction(&mercadov1.MercadoAction{Action: &mercadov1.MercadoAction_RedrawHand{RedrawHand: &mercadov1.RedrawHand{}}})
)

// playingState is seat 0's view of a match in play at version: its turn when it
// has legal actions, seat 1's otherwise.
func playingState(version uint64, legal ...*mercadov1.Action) *mercadov1.MatchState {
	yourSeat, toMove := uint32(0), uint32(1)
	if len(legal) > 0 {
		toMove = 0
	}
	return &mercadov1.MatchState{
		Match:        &mercadov1.MatchSummary{MatchId: "m", Status: mercadov1.MatchStatus_MATCH_STATUS_PLAYING, Version: version},
		Version:      version,
		YourSeat:     &yourSeat,
		SeatsToMove:  []uint32{toMove},
		LegalActions: legal,
	}
}

func finishedState(version uint64) *mercadov1.MatchState {
	return withStatus(playingState(version), mercadov1.MatchStatus_MATCH_STATUS_FINISHED)
}

func withStatus(state *mercadov1.MatchState, status mercadov1.MatchStatus) *mercadov1.MatchState {
	state.Match.Status = status
	return state
}

// actionUpdate is the update of an accepted action (seat 1 took a coin) with its state.
func actionUpdate(state *mercadov1.MatchState) *mercadov1.MatchUpdate {
	seat := uint32(1)
	return &mercadov1.MatchUpdate{Version: state.GetVersion(), Seat: &seat, Action: takeCoin, State: state}
}

// snapshot is an update without an action: the match as it stands (the first
// update of a stream), or a change of seats, clocks or status.
func snapshot(state *mercadov1.MatchState) *mercadov1.MatchUpdate {
	return &mercadov1.MatchUpdate{Version: state.GetVersion(), State: state}
}

func sendAll(send func(*mercadov1.MatchUpdate) error, updates ...*mercadov1.MatchUpdate) error {
	for _, update := range updates {
		if err := send(update); err != nil {
			return err
		}
	}
	return nil
}

func TestActAtResubmitsAfterAbortedWithTheSameRequestID(t *testing.T) {
	f := &fakeServer{
		submit: func(n int, request *mercadov1.SubmitActionRequest) (*mercadov1.SubmitActionResponse, error) {
			if request.GetExpectedVersion() != 5 {
				return nil, status.Error(codes.Aborted, "the match is at version 5")
			}
			return &mercadov1.SubmitActionResponse{Version: 6}, nil
		},
		view: func(int) (*mercadov1.MatchState, error) { return playingState(5, redrawHand, takeCoin), nil },
	}
	seat := startFake(t, f)
	response, err := seat.ActAt(context.Background(), takeCoin, 4)
	if err != nil || response.GetVersion() != 6 {
		t.Fatalf("ActAt = %v, %v; want version 6", response, err)
	}
	if len(f.submitted()) != 2 || f.submitted()[0].GetRequestId() != f.submitted()[1].GetRequestId() || f.submitted()[0].GetRequestId() == "" {
		t.Fatalf("want two submissions with one request id, got %v", f.submitted())
	}
	if f.submitted()[1].GetExpectedVersion() != 5 {
		t.Errorf("resubmitted at version %d, want 5", f.submitted()[1].GetExpectedVersion())
	}
	for _, token := range f.tokensSeen() {
		if token != "Bearer tok" {
			t.Errorf("authorization metadata %q, want %q", token, "Bearer tok")
		}
	}
}

func TestActAtGivesUpWhenTheActionIsNoLongerLegal(t *testing.T) {
	f := &fakeServer{
		submit: func(int, *mercadov1.SubmitActionRequest) (*mercadov1.SubmitActionResponse, error) {
			return nil, status.Error(codes.Aborted, "stale")
		},
		view: func(int) (*mercadov1.MatchState, error) { return playingState(5, redrawHand), nil },
	}
	seat := startFake(t, f)
	_, err := seat.ActAt(context.Background(), takeCoin, 4)
	if status.Code(err) != codes.Aborted || len(f.submitted()) != 1 {
		t.Fatalf("got %v after %d submissions; want ABORTED after 1", err, len(f.submitted()))
	}
}

func TestSubmitRetriesUnavailableButNotRefusals(t *testing.T) {
	f := &fakeServer{
		submit: func(n int, request *mercadov1.SubmitActionRequest) (*mercadov1.SubmitActionResponse, error) {
			switch {
			case request.GetRequestId() == "refused":
				return nil, status.Error(codes.FailedPrecondition, "not your turn")
			case n < 3:
				return nil, status.Error(codes.Unavailable, "restarting")
			}
			return &mercadov1.SubmitActionResponse{Version: 1}, nil
		},
	}
	seat := startFake(t, f)
	if _, err := seat.Submit(context.Background(), takeCoin, 0, "r1"); err != nil {
		t.Fatal(err)
	}
	if len(f.submitted()) != 3 {
		t.Fatalf("%d submissions, want 3", len(f.submitted()))
	}
	_, err := seat.Submit(context.Background(), takeCoin, 0, "refused")
	if status.Code(err) != codes.FailedPrecondition || len(f.submitted()) != 4 {
		t.Fatalf("got %v after %d submissions; want FAILED_PRECONDITION, not retried", err, len(f.submitted()))
	}
}

// sendVersions sends the updates of actions at versions.
func sendVersions(send func(*mercadov1.MatchUpdate) error, versions ...uint64) error {
	for _, v := range versions {
		if err := send(actionUpdate(playingState(v))); err != nil {
			return err
		}
	}
	return nil
}

func collect(t *testing.T, seat *mercado.Seat, after uint64) ([]followed, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var updates []followed
	for update, err := range seat.Follow(ctx, after) {
		if err != nil {
			return updates, err
		}
		updates = append(updates, followed{update.GetVersion(), mercado.IsAction(update)})
	}
	return updates, nil
}

func TestFollowResumesAfterAnError(t *testing.T) {
	f := &fakeServer{
		stream: func(n int, request *mercadov1.StreamEventsRequest, send func(*mercadov1.MatchUpdate) error) error {
			switch n {
			case 1:
				_ = sendAll(send, snapshot(playingState(2)))
				_ = sendVersions(send, 1, 2)
				return status.Error(codes.Unavailable, "connection lost")
			case 2:
				return status.Error(codes.Unavailable, "still down")
			}
			return sendAll(send, snapshot(playingState(3)), actionUpdate(playingState(3)), actionUpdate(finishedState(4)))
		},
	}
	seat := startFake(t, f)
	updates, err := collect(t, seat, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []followed{{2, false}, {1, true}, {2, true}, {3, false}, {3, true}, {4, true}}
	if !slices.Equal(updates, want) || !slices.Equal(f.streamed(), []uint64{0, 2, 2}) {
		t.Fatalf("updates %v from streams after %v; want %v from streams after 0, 2, 2", updates, f.streamed(), want)
	}
}

// Another seat's sealed action comes with its seat and without the action: it is
// an action all the same, so a reconnect resumes after it.
func TestFollowResumesAfterASealedAction(t *testing.T) {
	sealed := func(version uint64) *mercadov1.MatchUpdate {
		update := actionUpdate(playingState(version))
		update.Action = nil
		return update
	}
	f := &fakeServer{
		stream: func(n int, request *mercadov1.StreamEventsRequest, send func(*mercadov1.MatchUpdate) error) error {
			if n == 1 {
				_ = sendAll(send, snapshot(playingState(0)), sealed(1))
				return status.Error(codes.Unavailable, "connection lost")
			}
			return sendAll(send, snapshot(playingState(1)), actionUpdate(finishedState(2)))
		},
	}
	updates, err := collect(t, startFake(t, f), 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []followed{{0, false}, {1, true}, {1, false}, {2, true}}
	if !slices.Equal(updates, want) || !slices.Equal(f.streamed(), []uint64{0, 1}) {
		t.Fatalf("updates %v from streams after %v; want %v from streams after 0, 1", updates, f.streamed(), want)
	}
}

// The first update of a stream is the match as it stands, ahead of the backlog:
// a reconnect resumes after the last action delivered, not after that version.
func TestFollowResumesAfterTheLastActionNotTheFirstUpdate(t *testing.T) {
	f := &fakeServer{
		stream: func(n int, request *mercadov1.StreamEventsRequest, send func(*mercadov1.MatchUpdate) error) error {
			if n == 1 {
				_ = sendAll(send, snapshot(playingState(6)))
				_ = sendVersions(send, 1)
				return status.Error(codes.Unavailable, "connection lost")
			}
			_ = sendAll(send, snapshot(playingState(6)))
			_ = sendVersions(send, 2, 3, 4, 5)
			return send(actionUpdate(finishedState(6)))
		},
	}
	updates, err := collect(t, startFake(t, f), 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []followed{{6, false}, {1, true}, {6, false}, {2, true}, {3, true}, {4, true}, {5, true}, {6, true}}
	if !slices.Equal(updates, want) || !slices.Equal(f.streamed(), []uint64{0, 1}) {
		t.Fatalf("updates %v from streams after %v; want %v from streams after 0, 1", updates, f.streamed(), want)
	}
}

// A stream that ends (OK) before the match is over is reconnected.
func TestFollowResumesWhenAStreamEndsBeforeTheMatch(t *testing.T) {
	f := &fakeServer{
		stream: func(n int, request *mercadov1.StreamEventsRequest, send func(*mercadov1.MatchUpdate) error) error {
			if n == 1 {
				_ = sendAll(send, snapshot(playingState(2)))
				return sendVersions(send, 1, 2)
			}
			return sendAll(send, snapshot(finishedState(3)), actionUpdate(finishedState(3)))
		},
	}
	seat := startFake(t, f)
	updates, err := collect(t, seat, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []followed{{2, false}, {1, true}, {2, true}, {3, false}, {3, true}}
	if !slices.Equal(updates, want) || !slices.Equal(f.streamed(), []uint64{0, 2}) {
		t.Fatalf("updates %v from streams after %v; want %v from streams after 0, 2", updates, f.streamed(), want)
	}
}

func TestFollowEndsOnAMatchThatIsOver(t *testing.T) {
	for _, over := range []mercadov1.MatchStatus{mercadov1.MatchStatus_MATCH_STATUS_FINISHED, mercadov1.MatchStatus_MATCH_STATUS_CANCELLED} {
		t.Run(over.String(), func(t *testing.T) {
			f := &fakeServer{
				stream: func(n int, _ *mercadov1.StreamEventsRequest, send func(*mercadov1.MatchUpdate) error) error {
					return send(snapshot(withStatus(playingState(7), over)))
				},
			}
			updates, err := collect(t, startFake(t, f), 7)
			if err != nil || !slices.Equal(updates, []followed{{7, false}}) || len(f.streamed()) != 1 {
				t.Fatalf("got %v, %v from %d streams; want the match as it stands from one stream", updates, err, len(f.streamed()))
			}
		})
	}
}

func TestFollowReportsRefusals(t *testing.T) {
	f := &fakeServer{
		stream: func(int, *mercadov1.StreamEventsRequest, func(*mercadov1.MatchUpdate) error) error {
			return status.Error(codes.NotFound, "no match")
		},
	}
	seat := startFake(t, f)
	_, err := collect(t, seat, 0)
	if status.Code(err) != codes.NotFound || len(f.streamed()) != 1 {
		t.Fatalf("got %v from %d streams; want NOT_FOUND from one", err, len(f.streamed()))
	}
}

func TestFinished(t *testing.T) {
	for status, want := range map[mercadov1.MatchStatus]bool{
		mercadov1.MatchStatus_MATCH_STATUS_WAITING:   false,
		mercadov1.MatchStatus_MATCH_STATUS_PLAYING:   false,
		mercadov1.MatchStatus_MATCH_STATUS_FINISHED:  true,
		mercadov1.MatchStatus_MATCH_STATUS_CANCELLED: true,
	} {
		if got := mercado.Finished(withStatus(playingState(0), status)); got != want {
			t.Errorf("Finished(%v) = %v, want %v", status, got, want)
		}
	}
}

// Play acts on the first update (the match as it stands, at a later version than
// its view) once, and not on the past states of the backlog after it: they come
// with the newest state, which the answer to its action is.
func TestPlayActsOnceAndNotOnPastStates(t *testing.T) {
	f := &fakeServer{
		view: func(int) (*mercadov1.MatchState, error) { return playingState(4), nil },
		stream: func(n int, _ *mercadov1.StreamEventsRequest, send func(*mercadov1.MatchUpdate) error) error {
			return sendAll(send,
				snapshot(playingState(6, takeCoin)),
				actionUpdate(playingState(5, redrawHand)), // a past turn of ours, played meanwhile
				actionUpdate(playingState(6, takeCoin)),
				snapshot(playingState(6, takeCoin)), // a clock change
				actionUpdate(playingState(7)),
				actionUpdate(finishedState(8)))
		},
		submit: func(_ int, request *mercadov1.SubmitActionRequest) (*mercadov1.SubmitActionResponse, error) {
			after := request.GetExpectedVersion() + 1
			return &mercadov1.SubmitActionResponse{Version: after, State: playingState(after)}, nil
		},
	}
	seat := startFake(t, f)
	var asked []uint64
	final, err := seat.Play(context.Background(), func(state *mercadov1.MatchState) *mercadov1.Action {
		asked = append(asked, state.GetVersion())
		return state.GetLegalActions()[0]
	})
	if err != nil || final.GetVersion() != 8 {
		t.Fatalf("Play = %v, %v; want the match finished at version 8", final, err)
	}
	submitted := f.submitted()
	if !slices.Equal(asked, []uint64{6}) || len(submitted) != 1 || submitted[0].GetExpectedVersion() != 6 {
		t.Fatalf("asked to choose at versions %v, submitted %v; want one action at version 6", asked, submitted)
	}
	if !slices.Equal(f.streamed(), []uint64{4}) {
		t.Errorf("streams after %v, want after 4 (the view's version)", f.streamed())
	}
}

// Play waits for a waiting match to start on the stream, and returns a cancelled one.
func TestPlayWaitsForTheStartAndEndsOnCancellation(t *testing.T) {
	waiting := func() *mercadov1.MatchState {
		return withStatus(playingState(0), mercadov1.MatchStatus_MATCH_STATUS_WAITING)
	}
	t.Run("started", func(t *testing.T) {
		f := &fakeServer{
			view: func(int) (*mercadov1.MatchState, error) { return waiting(), nil },
			stream: func(n int, _ *mercadov1.StreamEventsRequest, send func(*mercadov1.MatchUpdate) error) error {
				return sendAll(send, snapshot(waiting()), snapshot(playingState(0, takeCoin)), actionUpdate(finishedState(1)))
			},
			submit: func(int, *mercadov1.SubmitActionRequest) (*mercadov1.SubmitActionResponse, error) {
				return &mercadov1.SubmitActionResponse{Version: 1}, nil
			},
		}
		seat := startFake(t, f)
		final, err := seat.Play(context.Background(), func(state *mercadov1.MatchState) *mercadov1.Action { return takeCoin })
		if err != nil || !mercado.Finished(final) || len(f.submitted()) != 1 || f.submitted()[0].GetExpectedVersion() != 0 {
			t.Fatalf("Play = %v, %v after submissions %v; want the match finished after one action at version 0",
				final, err, f.submitted())
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		f := &fakeServer{
			view: func(int) (*mercadov1.MatchState, error) { return waiting(), nil },
			stream: func(n int, _ *mercadov1.StreamEventsRequest, send func(*mercadov1.MatchUpdate) error) error {
				return sendAll(send, snapshot(waiting()),
					snapshot(withStatus(playingState(0), mercadov1.MatchStatus_MATCH_STATUS_CANCELLED)))
			},
		}
		final, err := startFake(t, f).Play(context.Background(), func(*mercadov1.MatchState) *mercadov1.Action { return takeCoin })
		if err != nil || final.GetMatch().GetStatus() != mercadov1.MatchStatus_MATCH_STATUS_CANCELLED || len(f.submitted()) != 0 {
			t.Fatalf("Play = %v, %v; want the cancelled match, no action", final, err)
		}
	})
}

// An action refused because the seat's time ran out (the AI plays it) does not
// end Play, which acts again at that version once the seat is reclaimed; any other
// FAILED_PRECONDITION ends it.
func TestPlayCarriesOnWhenTheAIPlaysTheSeat(t *testing.T) {
	// Seat 0 at version 0: its turn, or played by the AI (no legal actions).
	turn := func(playedByAI bool) *mercadov1.MatchState {
		state := playingState(0, takeCoin)
		if playedByAI {
			state = playingState(0)
		}
		state.Match.Seats = []*mercadov1.SeatInfo{{Seat: 0, Taken: true, PlayedByAi: playedByAI}, {Seat: 1, Taken: true}}
		return state
	}
	for _, timedOut := range []bool{true, false} {
		f := &fakeServer{
			view: func(n int) (*mercadov1.MatchState, error) { return turn(timedOut && n > 1), nil },
			// The seat's turn; the AI takes it over; then, once reclaimed, its turn again.
			stream: func(n int, _ *mercadov1.StreamEventsRequest, send func(*mercadov1.MatchUpdate) error) error {
				return sendAll(send, snapshot(turn(false)), snapshot(turn(true)), snapshot(turn(false)),
					actionUpdate(finishedState(1)))
			},
			submit: func(n int, _ *mercadov1.SubmitActionRequest) (*mercadov1.SubmitActionResponse, error) {
				if n == 1 {
					return nil, status.Error(codes.FailedPrecondition, "the AI plays this seat")
				}
				return &mercadov1.SubmitActionResponse{Version: 1}, nil
			},
		}
		final, err := startFake(t, f).Play(context.Background(), func(*mercadov1.MatchState) *mercadov1.Action { return takeCoin })
		if timedOut && (err != nil || !mercado.Finished(final) || len(f.submitted()) != 2) {
			t.Errorf("timed out: Play = %v, %v after %d submissions; want the finished match after 2 (again once reclaimed)",
				final, err, len(f.submitted()))
		}
		if !timedOut && status.Code(err) != codes.FailedPrecondition {
			t.Errorf("not timed out: Play = %v, %v; want FAILED_PRECONDITION", final, err)
		}
	}
}

func TestLeaveReclaimAndHeartbeatSendTheirTokens(t *testing.T) {
	f := &fakeServer{}
	seat := startFake(t, f)
	if summary, err := seat.Leave(context.Background()); err != nil || summary.GetMatchId() != "m" {
		t.Fatalf("Leave = %v, %v", summary, err)
	}
	if state, err := seat.Reclaim(context.Background()); err != nil || state.GetVersion() != 3 {
		t.Fatalf("Reclaim = %v, %v", state, err)
	}
	interval, err := seat.Client().AgentHeartbeat(context.Background(), "agent-key", "agent-1", 7, mercadov1.BotLevel_BOT_LEVEL_HARD)
	if err != nil || interval != 10*time.Second {
		t.Fatalf("AgentHeartbeat = %v, %v; want 10 s", interval, err)
	}
	if calls := f.otherCalls(); !slices.Equal(calls, []string{"LeaveMatch m", "ReclaimSeat m", "AgentHeartbeat"}) {
		t.Errorf("calls %v", calls)
	}
	if tokens := f.tokensSeen(); !slices.Equal(tokens, []string{"Bearer tok", "Bearer tok", "Bearer agent-key"}) {
		t.Errorf("authorization metadata %q, want the seat token twice, then the agent key", tokens)
	}
	beat := f.beats[0]
	if beat.GetAgentId() != "agent-1" || beat.GetFreeSlots() != 7 || !slices.Equal(beat.GetLevels(), []mercadov1.BotLevel{mercadov1.BotLevel_BOT_LEVEL_HARD}) {
		t.Errorf("heartbeat %v", beat)
	}
}

// CreateMatch sends the time control it is given, and none (the server's default) without.
func TestCreateMatchSendsTheTimeControl(t *testing.T) {
	f := &fakeServer{create: func(int) (*mercadov1.CreateMatchResponse, error) {
		return &mercadov1.CreateMatchResponse{Match: &mercadov1.MatchSummary{MatchId: "m"}}, nil
	}}
	client := startFake(t, f).Client()
	clock := mercado.Clock(90*time.Second, 5*time.Minute, mercadov1.OnTimeout_ON_TIMEOUT_FORFEIT)
	for _, tc := range []*mercadov1.TimeControl{nil, mercado.NoClock(), clock} {
		if _, err := client.CreateMatch(context.Background(), mercado.MatchOptions{TimeControl: tc}); err != nil {
			t.Fatal(err)
		}
	}
	var got []*mercadov1.TimeControl
	for _, request := range f.created() {
		got = append(got, request.TimeControl)
	}
	if len(got) != 3 || got[0] != nil || got[1] == nil || got[1].GetTurnSeconds() != 0 ||
		got[2].GetTurnSeconds() != 90 || got[2].GetReserveSeconds() != 300 || got[2].GetOnTimeout() != mercadov1.OnTimeout_ON_TIMEOUT_FORFEIT {
		t.Fatalf("time controls sent: %v", got)
	}
}

// CreateMatch sends the game and its options message in the request's options, and
// refuses a message that is no game's options without a call.
func TestCreateMatchSendsTheGameAndItsOptions(t *testing.T) {
	f := &fakeServer{create: func(int) (*mercadov1.CreateMatchResponse, error) {
		return &mercadov1.CreateMatchResponse{Match: &mercadov1.MatchSummary{MatchId: "m"}}, nil
	}}
	client := startFake(t, f).Client()
	penalty := "one"
	leilao := &mercadov1.LeilaoOptions{CardPenalty: &penalty}
	for _, opts := range []mercado.MatchOptions{{}, {Game: mercadov1.Game_GAME_LEILAO, Options: leilao}} {
		if _, err := client.CreateMatch(context.Background(), opts); err != nil {
			t.Fatal(err)
		}
	}
	_, err := client.CreateMatch(context.Background(), mercado.MatchOptions{Options: &mercadov1.TimeControl{}})
	if status.Code(err) != codes.InvalidArgument {
		t.Errorf("a time control as the options: %v, want INVALID_ARGUMENT", err)
	}
	sent := f.created()
	if len(sent) != 2 || sent[0].GetGame() != mercadov1.Game_GAME_MERCADO || sent[0].Options != nil ||
		sent[1].GetGame() != mercadov1.Game_GAME_LEILAO || !proto.Equal(sent[1].GetLeilao(), leilao) {
		t.Fatalf("requests sent: %v", sent)
	}
}

func TestRetryAfter(t *testing.T) {
	throttled := status.Error(codes.ResourceExhausted, "too many calls")
	for _, c := range []struct {
		err     error
		trailer metadata.MD
		want    time.Duration
		ok      bool
	}{
		{throttled, metadata.Pairs("retry-after", "3"), 3 * time.Second, true},
		{throttled, metadata.Pairs("retry-after", "0"), 0, true},
		{throttled, nil, 0, false},
		{throttled, metadata.Pairs("retry-after", "soon"), 0, false},
		{throttled, metadata.Pairs("retry-after", "-1"), 0, false},
		{status.Error(codes.Unavailable, "down"), metadata.Pairs("retry-after", "3"), 0, false},
		{nil, metadata.Pairs("retry-after", "3"), 0, false},
	} {
		if got, ok := mercado.RetryAfter(c.err, c.trailer); got != c.want || ok != c.ok {
			t.Errorf("RetryAfter(%v, %v) = %v, %v; want %v, %v", c.err, c.trailer, got, ok, c.want, c.ok)
		}
	}
}

// Every call is repeated after a fair-use refusal, once its retry-after has passed.
func TestFairUseRefusalsAreRepeatedAfterRetryAfter(t *testing.T) {
	t.Run("CreateMatch", func(t *testing.T) {
		t.Parallel()
		f := &fakeServer{create: func(n int) (*mercadov1.CreateMatchResponse, error) {
			if n == 1 {
				return nil, fairUse{"1"}
			}
			return &mercadov1.CreateMatchResponse{Match: &mercadov1.MatchSummary{MatchId: "m"}}, nil
		}}
		client := startFake(t, f).Client()
		start := time.Now()
		match, err := client.CreateMatch(context.Background(), mercado.MatchOptions{})
		if creates := len(f.created()); err != nil || match.GetMatchId() != "m" || creates != 2 {
			t.Fatalf("CreateMatch = %v, %v after %d calls; want match m after 2", match, err, creates)
		}
		if elapsed := time.Since(start); elapsed < time.Second {
			t.Errorf("repeated after %v, before the retry-after of 1 s", elapsed)
		}
	})
	t.Run("Follow", func(t *testing.T) {
		t.Parallel()
		f := &fakeServer{stream: func(n int, _ *mercadov1.StreamEventsRequest, send func(*mercadov1.MatchUpdate) error) error {
			switch n {
			case 1:
				_ = sendVersions(send, 1)
				return fairUse{"1"}
			case 2:
				return send(actionUpdate(finishedState(2)))
			}
			return status.Error(codes.Internal, "a third stream")
		}}
		updates, err := collect(t, startFake(t, f), 0)
		if err != nil || !slices.Equal(updates, []followed{{1, true}, {2, true}}) || !slices.Equal(f.streamed(), []uint64{0, 1}) {
			t.Fatalf("updates %v (%v) from streams after %v; want actions 1, 2 from streams after 0, 1", updates, err, f.streamed())
		}
	})
}

// A refusal asking for a wait beyond the reconnect timeout comes back at once.
func TestFairUseRefusalBeyondTheReconnectTimeoutIsReturned(t *testing.T) {
	f := &fakeServer{submit: func(int, *mercadov1.SubmitActionRequest) (*mercadov1.SubmitActionResponse, error) {
		return nil, fairUse{"3600"}
	}}
	seat := startFake(t, f)
	_, err := seat.Submit(context.Background(), takeCoin, 0, "r1")
	if status.Code(err) != codes.ResourceExhausted || len(f.submitted()) != 1 {
		t.Fatalf("got %v after %d submissions; want RESOURCE_EXHAUSTED after 1", err, len(f.submitted()))
	}
}

func TestClaimBotSeatSendsTheAgentKeyAndIsNotRetriedWithoutRetryAfter(t *testing.T) {
	f := &fakeServer{claim: func(n int) (*mercadov1.ClaimBotSeatResponse, error) {
		if n == 1 {
			return nil, status.Error(codes.ResourceExhausted, "no bot seat is waiting")
		}
		return nil, status.Error(codes.Unavailable, "restarting")
	}}
	client := startFake(t, f).Client()
	for i, want := range []codes.Code{codes.ResourceExhausted, codes.Unavailable} {
		_, _, err := client.ClaimBotSeat(context.Background(), "agent-key", "bot")
		if claims := len(f.claimed()); status.Code(err) != want || claims != i+1 {
			t.Fatalf("claim %d: got %v after %d calls; want %v, not retried", i+1, err, claims, want)
		}
	}
	if tokens := f.tokensSeen(); !slices.Equal(tokens, []string{"Bearer agent-key", "Bearer agent-key"}) {
		t.Errorf("authorization metadata %q, want the agent key as bearer token", tokens)
	}
}

func TestCreateMatchIsNotRetriedWhenUnavailable(t *testing.T) {
	f := &fakeServer{create: func(int) (*mercadov1.CreateMatchResponse, error) {
		return nil, status.Error(codes.Unavailable, "restarting")
	}}
	_, err := startFake(t, f).Client().CreateMatch(context.Background(), mercado.MatchOptions{})
	if creates := len(f.created()); status.Code(err) != codes.Unavailable || creates != 1 {
		t.Fatalf("got %v after %d calls; want UNAVAILABLE after 1", err, creates)
	}
}

func TestJoinIsRetriedWhenUnavailableUnderOneRequestID(t *testing.T) {
	f := &fakeServer{join: func(n int) (*mercadov1.JoinMatchResponse, error) {
		if n == 1 {
			return nil, status.Error(codes.Unavailable, "restarting") // the first answer is lost
		}
		return &mercadov1.JoinMatchResponse{Seat: 1, SeatToken: "seat-tok"}, nil
	}}
	seat, err := startFake(t, f).Client().Join(context.Background(), "m", "ana")
	joins := f.joined()
	if err != nil || seat.Number != 1 || seat.Token != "seat-tok" || len(joins) != 2 {
		t.Fatalf("got %v, %v after %d calls; want seat 1 after 2", seat, err, len(joins))
	}
	if id := joins[0].GetRequestId(); id == "" || joins[1].GetRequestId() != id {
		t.Errorf("request ids %q and %q: want one, the same for the retry", id, joins[1].GetRequestId())
	}
}

// queuedUpdate and foundUpdate are FindMatch's messages.
func queuedUpdate(waitedMs uint64) *mercadov1.FindMatchUpdate {
	return &mercadov1.FindMatchUpdate{Kind: &mercadov1.FindMatchUpdate_Queued{Queued: &mercadov1.Queued{WaitedMs: waitedMs, QueuedPlayers: 1}}}
}

func foundUpdate(matchID string, seat uint32) *mercadov1.FindMatchUpdate {
	return &mercadov1.FindMatchUpdate{Kind: &mercadov1.FindMatchUpdate_Found{Found: &mercadov1.MatchFound{MatchId: matchID, Seat: seat, SeatToken: "seat-tok"}}}
}

// findAll runs FindMatch to its end and returns what it yielded.
func findAll(t *testing.T, client *mercado.Client, token string, players uint32, allowAI bool) ([]*mercadov1.FindMatchUpdate, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var updates []*mercadov1.FindMatchUpdate
	for update, err := range client.FindMatch(ctx, token, mercadov1.Game_GAME_MERCADO, players, allowAI) {
		if err != nil {
			if update != nil {
				t.Errorf("an error came with an update: %v", update)
			}
			return updates, err
		}
		updates = append(updates, update)
	}
	return updates, nil
}

// FindMatch sends the player's token and request, repeats a fair-use refusal, and ends with
// the MatchFound without waiting for the server to end the stream.
func TestFindMatchRepeatsAFairUseRefusalAndEndsWithTheMatch(t *testing.T) {
	f := &fakeServer{find: func(n int, ctx context.Context, send func(*mercadov1.FindMatchUpdate) error) error {
		if n == 1 {
			return fairUse{"0"}
		}
		if err := errors.Join(send(queuedUpdate(0)), send(queuedUpdate(1000)), send(foundUpdate("m2", 2))); err != nil {
			return err
		}
		<-ctx.Done() // the client closes the stream
		return ctx.Err()
	}}
	client := startFake(t, f).Client()
	updates, err := findAll(t, client, "player-tok", 3, true)
	if err != nil || len(updates) != 3 || updates[1].GetQueued().GetWaitedMs() != 1000 || updates[2].GetFound().GetMatchId() != "m2" {
		t.Fatalf("FindMatch yielded %v, %v; want two Queued and the MatchFound", updates, err)
	}
	requests := f.found()
	if len(requests) != 2 || requests[1].GetPlayers() != 3 || !requests[1].GetAllowAi() || requests[1].GetGame() != mercadov1.Game_GAME_MERCADO {
		t.Errorf("requests %v; want two for 3 players with AI", requests)
	}
	if tokens := f.tokensSeen(); !slices.Equal(tokens, []string{"Bearer player-tok", "Bearer player-tok"}) {
		t.Errorf("authorization metadata %q, want the player token twice", tokens)
	}
}

// A match may have been made without its MatchFound arriving: FindMatch does not queue again
// after a failure other than a fair-use refusal, nor after a stream that ended without a match.
func TestFindMatchIsNotRepeatedAfterOtherFailures(t *testing.T) {
	for _, c := range []struct {
		name   string
		stream func(send func(*mercadov1.FindMatchUpdate) error) error
		sent   int
		want   codes.Code
	}{
		{"unavailable", func(func(*mercadov1.FindMatchUpdate) error) error {
			return status.Error(codes.Unavailable, "restarting")
		}, 0, codes.Unavailable},
		{"already queued", func(func(*mercadov1.FindMatchUpdate) error) error {
			return status.Error(codes.AlreadyExists, "already queued")
		}, 0, codes.AlreadyExists},
		{"dropped while queued", func(send func(*mercadov1.FindMatchUpdate) error) error {
			return errors.Join(send(queuedUpdate(0)), status.Error(codes.Unavailable, "stopping"))
		}, 1, codes.Unavailable},
		{"ended without a match", func(send func(*mercadov1.FindMatchUpdate) error) error {
			return send(queuedUpdate(0))
		}, 1, codes.Unavailable},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := &fakeServer{find: func(_ int, _ context.Context, send func(*mercadov1.FindMatchUpdate) error) error {
				return c.stream(send)
			}}
			updates, err := findAll(t, startFake(t, f).Client(), "player-tok", 2, false)
			if status.Code(err) != c.want || len(updates) != c.sent || len(f.found()) != 1 {
				t.Fatalf("got %d updates and %v after %d calls; want %d and %v after 1", len(updates), err, len(f.found()), c.sent, c.want)
			}
		})
	}
}

// A Seat sends its own token even when ctx carries another credential (WithToken replaces it).
func TestWithTokenReplacesTheCredential(t *testing.T) {
	f := &fakeServer{view: func(int) (*mercadov1.MatchState, error) { return playingState(1), nil }}
	seat := startFake(t, f)
	asPlayer := mercado.WithToken(context.Background(), "player-tok")
	if _, err := seat.View(asPlayer); err != nil {
		t.Fatal(err)
	}
	if _, err := seat.Client().View(asPlayer, "m", ""); err != nil {
		t.Fatal(err)
	}
	if tokens := f.tokensSeen(); !slices.Equal(tokens, []string{"Bearer tok", "Bearer player-tok"}) {
		t.Errorf("authorization metadata %q, want the seat's token alone, then ctx's", tokens)
	}
}

// CreateMatch sends HotSeat and Unrated, and the credential ctx carries.
func TestCreateMatchSendsHotSeatUnratedAndTheCreator(t *testing.T) {
	f := &fakeServer{create: func(int) (*mercadov1.CreateMatchResponse, error) {
		return &mercadov1.CreateMatchResponse{Match: &mercadov1.MatchSummary{MatchId: "m"}}, nil
	}}
	client := startFake(t, f).Client()
	asPlayer := mercado.WithToken(context.Background(), "player-tok")
	for _, opts := range []mercado.MatchOptions{{}, {HotSeat: true}, {Unrated: true}} {
		if _, err := client.CreateMatch(asPlayer, opts); err != nil {
			t.Fatal(err)
		}
	}
	created := f.created()
	if len(created) != 3 || created[0].GetHotSeat() || created[0].GetUnrated() ||
		!created[1].GetHotSeat() || created[1].GetUnrated() || created[2].GetHotSeat() || !created[2].GetUnrated() {
		t.Fatalf("requests %v", created)
	}
	if tokens := f.tokensSeen(); !slices.Equal(tokens, []string{"Bearer player-tok", "Bearer player-tok", "Bearer player-tok"}) {
		t.Errorf("authorization metadata %q, want the player token", tokens)
	}
}
