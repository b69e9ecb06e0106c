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

	mercadov1 "github.com/mercado-game/mercado/clients/go/gen/mercado/v1"
	"github.com/mercado-game/mercado/clients/go/mercado"
)

// fakeServer answers with scripted functions and records what it was sent.
type fakeServer struct {
	mercadov1.UnimplementedMatchServiceServer

	mu      sync.Mutex
	submits []*mercadov1.SubmitActionRequest
	streams []uint64 // after_version of each StreamEvents call
	tokens  []string // the authorization metadata of each call
	creates int
	claims  int

	submit func(n int, request *mercadov1.SubmitActionRequest) (*mercadov1.SubmitActionResponse, error)
	view   func() (*mercadov1.MatchState, error)
	stream func(n int, request *mercadov1.StreamEventsRequest, send func(*mercadov1.MatchUpdate) error) error
	create func(n int) (*mercadov1.CreateMatchResponse, error)
	claim  func(n int) (*mercadov1.ClaimBotSeatResponse, error)
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

func unaryRefusal(ctx context.Context, err error) error {
	return refusal(err, func(md metadata.MD) { _ = grpc.SetTrailer(ctx, md) })
}

func (f *fakeServer) record(ctx context.Context) {
	md, _ := metadata.FromIncomingContext(ctx)
	f.tokens = append(f.tokens, md.Get("authorization")...)
}

func (f *fakeServer) SubmitAction(ctx context.Context, request *mercadov1.SubmitActionRequest) (*mercadov1.SubmitActionResponse, error) {
	f.mu.Lock()
	f.record(ctx)
	f.submits = append(f.submits, request)
	n := len(f.submits)
	f.mu.Unlock()
	response, err := f.submit(n, request)
	return response, unaryRefusal(ctx, err)
}

func (f *fakeServer) GetView(ctx context.Context, request *mercadov1.GetViewRequest) (*mercadov1.MatchState, error) {
	f.mu.Lock()
	f.record(ctx)
	f.mu.Unlock()
	return f.view()
}

func (f *fakeServer) StreamEvents(request *mercadov1.StreamEventsRequest, stream grpc.ServerStreamingServer[mercadov1.MatchUpdate]) error {
	f.mu.Lock()
	f.record(stream.Context())
	f.streams = append(f.streams, request.GetAfterVersion())
	n := len(f.streams)
	f.mu.Unlock()
	return refusal(f.stream(n, request, stream.Send), stream.SetTrailer)
}

func (f *fakeServer) CreateMatch(ctx context.Context, _ *mercadov1.CreateMatchRequest) (*mercadov1.CreateMatchResponse, error) {
	f.mu.Lock()
	f.record(ctx)
	f.creates++
	n := f.creates
	f.mu.Unlock()
	response, err := f.create(n)
	return response, unaryRefusal(ctx, err)
}

func (f *fakeServer) ClaimBotSeat(ctx context.Context, _ *mercadov1.ClaimBotSeatRequest) (*mercadov1.ClaimBotSeatResponse, error) {
	f.mu.Lock()
	f.record(ctx)
	f.claims++
	n := f.claims
	f.mu.Unlock()
	response, err := f.claim(n)
	return response, unaryRefusal(ctx, err)
}

func (f *fakeServer) calls() (creates, claims int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.creates, f.claims
}

func (f *fakeServer) submitted() []*mercadov1.SubmitActionRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.submits)
}

func (f *fakeServer) streamed() []uint64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.streams)
}

func (f *fakeServer) tokensSeen() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.tokens)
}

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

func playingState(version uint64, legal ...*mercadov1.Action) *mercadov1.MatchState {
	return &mercadov1.MatchState{
		Match:        &mercadov1.MatchSummary{MatchId: "m", Status: mercadov1.MatchStatus_MATCH_STATUS_PLAYING, Version: version},
		Version:      version,
		LegalActions: legal,
	}
}

func finishedState(version uint64) *mercadov1.MatchState {
	state := playingState(version)
	state.Match.Status = mercadov1.MatchStatus_MATCH_STATUS_FINISHED
	return state
}

func TestActAtResubmitsAfterAbortedWithTheSameRequestID(t *testing.T) {
	f := &fakeServer{
		submit: func(n int, request *mercadov1.SubmitActionRequest) (*mercadov1.SubmitActionResponse, error) {
			if request.GetExpectedVersion() != 5 {
				return nil, status.Error(codes.Aborted, "the match is at version 5")
			}
			return &mercadov1.SubmitActionResponse{Version: 6}, nil
		},
		view: func() (*mercadov1.MatchState, error) { return playingState(5, redrawHand, takeCoin), nil },
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
		view: func() (*mercadov1.MatchState, error) { return playingState(5, redrawHand), nil },
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

func sendVersions(send func(*mercadov1.MatchUpdate) error, versions ...uint64) error {
	for _, v := range versions {
		if err := send(&mercadov1.MatchUpdate{Version: v, State: playingState(v)}); err != nil {
			return err
		}
	}
	return nil
}

func collect(t *testing.T, seat *mercado.Seat, after uint64) ([]uint64, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var versions []uint64
	for update, err := range seat.Follow(ctx, after) {
		if err != nil {
			return versions, err
		}
		versions = append(versions, update.GetVersion())
	}
	return versions, nil
}

func TestFollowResumesAfterAnError(t *testing.T) {
	f := &fakeServer{
		stream: func(n int, request *mercadov1.StreamEventsRequest, send func(*mercadov1.MatchUpdate) error) error {
			switch n {
			case 1:
				_ = sendVersions(send, 1, 2)
				return status.Error(codes.Unavailable, "connection lost")
			case 2:
				return status.Error(codes.Unavailable, "still down")
			}
			if err := sendVersions(send, request.GetAfterVersion()+1); err != nil {
				return err
			}
			return send(&mercadov1.MatchUpdate{Version: 4, State: finishedState(4)})
		},
	}
	seat := startFake(t, f)
	versions, err := collect(t, seat, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(versions, []uint64{1, 2, 3, 4}) || !slices.Equal(f.streamed(), []uint64{0, 2, 2}) {
		t.Fatalf("versions %v from streams after %v; want 1..4 from streams after 0, 2, 2", versions, f.streamed())
	}
}

// The server ends every stream on shutdown; that is no end of the match.
func TestFollowResumesWhenAStreamEndsBeforeTheMatch(t *testing.T) {
	f := &fakeServer{
		stream: func(n int, request *mercadov1.StreamEventsRequest, send func(*mercadov1.MatchUpdate) error) error {
			if n == 1 {
				return sendVersions(send, 1, 2)
			}
			return send(&mercadov1.MatchUpdate{Version: 3, State: finishedState(3)})
		},
		view: func() (*mercadov1.MatchState, error) { return playingState(2), nil },
	}
	seat := startFake(t, f)
	versions, err := collect(t, seat, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(versions, []uint64{1, 2, 3}) || !slices.Equal(f.streamed(), []uint64{0, 2}) {
		t.Fatalf("versions %v from streams after %v; want 1..3 from streams after 0, 2", versions, f.streamed())
	}
}

func TestFollowEndsOnAFinishedMatch(t *testing.T) {
	f := &fakeServer{
		stream: func(int, *mercadov1.StreamEventsRequest, func(*mercadov1.MatchUpdate) error) error { return nil },
		view:   func() (*mercadov1.MatchState, error) { return finishedState(7), nil },
	}
	seat := startFake(t, f)
	versions, err := collect(t, seat, 7)
	if err != nil || len(versions) != 0 || len(f.streamed()) != 1 {
		t.Fatalf("got %v, %v from %d streams; want nothing from one stream", versions, err, len(f.streamed()))
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
		if creates, _ := f.calls(); err != nil || match.GetMatchId() != "m" || creates != 2 {
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
				return send(&mercadov1.MatchUpdate{Version: 2, State: finishedState(2)})
			}
			return status.Error(codes.Internal, "a third stream")
		}}
		versions, err := collect(t, startFake(t, f), 0)
		if err != nil || !slices.Equal(versions, []uint64{1, 2}) || !slices.Equal(f.streamed(), []uint64{0, 1}) {
			t.Fatalf("versions %v (%v) from streams after %v; want 1, 2 from streams after 0, 1", versions, err, f.streamed())
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
		if _, claims := f.calls(); status.Code(err) != want || claims != i+1 {
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
	if creates, _ := f.calls(); status.Code(err) != codes.Unavailable || creates != 1 {
		t.Fatalf("got %v after %d calls; want UNAVAILABLE after 1", err, creates)
	}
}
