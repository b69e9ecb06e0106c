package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	mercadov1 "github.com/mercado-game/mercado/clients/go/gen/mercado/v1"
	"github.com/mercado-game/mercado/clients/go/mercado"
)

// retryPause is how long a player waits after a failed call before it tries again.
const retryPause = time.Second

// joinAttempts is how often a player asks for its seat while the server refuses it for now.
const joinAttempts = 30

// What a player is doing, as the report counts them.
const (
	betweenMatches int32 = iota // signing in, or setting up its table's next match
	following                   // its stream is open and brought the match as it stands
	failing                     // its last call or stream failed: it tries again shortly
)

// load is every player and table of a run.
type load struct {
	config    config
	figures   *figures
	clients   []*mercado.Client // the connections
	players   []*player
	tables    []*table
	failing   atomic.Int64 // players whose last call or stream failed
	following atomic.Int64
	firstLeft atomic.Int64  // players yet to follow their first match
	ready     chan struct{} // closed when firstLeft reaches 0
	running   sync.WaitGroup
}

func newLoad(c config) *load {
	l := &load{config: c, figures: newFigures(), ready: make(chan struct{})}
	l.firstLeft.Store(int64(c.players))
	return l
}

// sitDown connects the players and starts the tables, one after another over the ramp. Player i
// uses connection i modulo their count: the players of a table have connections of their own.
func (l *load) sitDown(ctx context.Context) error {
	c := l.config
	for i := range (c.players + c.shared - 1) / c.shared {
		client, err := dial(c.server, address(c.firstAddr, i))
		if err != nil {
			return err
		}
		l.clients = append(l.clients, client)
	}
	sizes := tables(c.players, c.sizes)
	for t, size := range sizes {
		seated := &table{load: l, game: c.games[t%len(c.games)]}
		for range size {
			i := len(l.players)
			client := l.clients[i%len(l.clients)]
			p := &player{index: i, client: client, load: l, rng: rand.New(rand.NewPCG(c.seed, uint64(i)))}
			l.players = append(l.players, p)
			seated.players = append(seated.players, p)
		}
		l.tables = append(l.tables, seated)
	}
	for t, seated := range l.tables {
		delay := c.ramp * time.Duration(t) / time.Duration(len(l.tables))
		l.running.Add(1)
		go func() {
			defer l.running.Done()
			seated.run(ctx, delay)
		}()
	}
	return nil
}

func (l *load) waitReady(ctx context.Context) error {
	select {
	case <-l.ready:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// wait returns once every table has stopped.
func (l *load) wait() { l.running.Wait() }

func (l *load) close() {
	for _, client := range l.clients {
		client.Close()
	}
}

// setState moves a player to what it does now, keeping the counts of failing and following players.
func (l *load) setState(p *player, state int32) {
	before := p.state.Swap(state)
	if before == state {
		return
	}
	switch before {
	case failing:
		if l.failing.Add(-1) == 0 {
			l.figures.current().recovered()
		}
	case following:
		l.following.Add(-1)
	}
	switch state {
	case failing:
		l.figures.current().failingNow(l.failing.Add(1))
	case following:
		l.following.Add(1)
		if !p.followedOnce.Swap(true) {
			if l.firstLeft.Add(-1) == 0 {
				close(l.ready)
			}
		}
	}
}

// failed counts a call's failure (unless the run is stopping) and marks its player as failing.
func (l *load) failed(ctx context.Context, p *player, call string, err error) {
	if ctx.Err() != nil {
		return
	}
	l.figures.current().failed(call, err)
	l.setState(p, failing)
}

// table is the players who play matches together, one after another.
type table struct {
	load    *load
	game    mercadov1.Game
	players []*player

	mu         sync.Mutex
	deliveries map[uint64]*delivery // of the match in play, by version
}

// delivery is one accepted action on its way to the other seats' streams.
type delivery struct {
	acked   time.Time // when the submitter had its answer; zero until then
	phase   *phase    // the phase of the answer
	waiting int       // the other seats whose streams have yet to bring it
	last    time.Time // the latest of their receipts
}

func (t *table) run(ctx context.Context, delay time.Duration) {
	if pause(ctx, delay) != nil {
		return
	}
	for _, p := range t.players {
		for !p.signIn(ctx) {
			if pause(ctx, retryPause) != nil {
				return
			}
		}
	}
	for ctx.Err() == nil {
		if !t.play(ctx) && pause(ctx, retryPause) != nil {
			return
		}
	}
}

// play sets up a match for the table and plays it to its end; false when it could not be set up.
func (t *table) play(ctx context.Context) bool {
	creator := t.players[0]
	summary, err := creator.client.CreateMatch(mercado.WithToken(ctx, creator.token),
		mercado.MatchOptions{Game: t.game, Players: len(t.players)})
	if err != nil {
		t.load.failed(ctx, creator, "CreateMatch", err)
		return false
	}
	seats := make([]*mercado.Seat, len(t.players))
	for i, p := range t.players {
		seat, err := p.join(ctx, summary.GetMatchId(), i)
		if err != nil {
			t.load.failed(ctx, p, "JoinMatch", err)
			return false // the match waits for its seats until it expires
		}
		if t.load.config.playerCredential {
			seat = p.client.Seat(seat.MatchID, seat.Number, p.token)
		}
		seats[i] = seat
	}
	t.mu.Lock()
	t.deliveries = map[uint64]*delivery{}
	t.mu.Unlock()
	t.load.figures.current().matchStarted()
	var playing sync.WaitGroup
	for i, p := range t.players {
		playing.Add(1)
		go func() {
			defer playing.Done()
			p.follow(ctx, t, seats[i])
		}()
	}
	playing.Wait()
	if ctx.Err() == nil {
		t.load.figures.current().matchFinished()
	}
	return true
}

// entry is the delivery of version (under t.mu).
func (t *table) entry(version uint64) *delivery {
	d := t.deliveries[version]
	if d == nil {
		d = &delivery{waiting: len(t.players) - 1}
		t.deliveries[version] = d
	}
	return d
}

// acked notes the submitter's answer for version at time at.
func (t *table) acked(version uint64, at time.Time, in *phase) {
	t.mu.Lock()
	defer t.mu.Unlock()
	d := t.entry(version)
	d.acked, d.phase = at, in
	t.complete(version, d)
}

// received notes another seat's stream bringing version at time at.
func (t *table) received(version uint64, at time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	d := t.entry(version)
	d.waiting--
	if at.After(d.last) {
		d.last = at
	}
	t.complete(version, d)
}

// complete counts the propagation of version once it is answered and every other seat has it: from
// the answer to the last receipt (a stream may bring it before the answer arrives: 0 then).
func (t *table) complete(version uint64, d *delivery) {
	if d.waiting > 0 || d.acked.IsZero() {
		return
	}
	d.phase.propagated(max(0, d.last.Sub(d.acked)))
	delete(t.deliveries, version)
}

// player is one person: a connection of its own, a guest player, a seat at a time.
type player struct {
	index        int
	client       *mercado.Client
	token        string // the guest player's credential
	load         *load
	state        atomic.Int32
	followedOnce atomic.Bool

	mu       sync.Mutex // what follows: the match in play, shared by its stream and its submissions
	rng      *rand.Rand
	seat     *mercado.Seat
	table    *table
	newest   uint64                // the newest version its stream brought: older states are past
	latest   *mercadov1.MatchState // the newest state in which the seat has legal actions; nil if none
	actedAt  int64                 // the version it last submitted at; -1 before its first
	thinking bool                  // a submission is scheduled
	requests int
}

func (p *player) signIn(ctx context.Context) bool {
	if p.token != "" {
		return true
	}
	_, token, err := p.client.CreatePlayer(ctx, fmt.Sprintf("player %d", p.index))
	if err != nil {
		p.load.failed(ctx, p, "CreatePlayer", err)
		return false
	}
	p.token = token
	return true
}

// join takes seat i of the match. A join refused for now (codes.ResourceExhausted: a fair-use limit,
// or a server too busy to take it; nothing was done) is asked again after a pause, as a player's page
// would, a few times: its failures are counted, the last one returned.
func (p *player) join(ctx context.Context, matchID string, i int) (*mercado.Seat, error) {
	for attempt := 1; ; attempt++ {
		seat, err := p.client.JoinSeat(mercado.WithToken(ctx, p.token), matchID, uint32(i), "")
		if err == nil || status.Code(err) != codes.ResourceExhausted || attempt == joinAttempts {
			return seat, err
		}
		p.load.failed(ctx, p, "JoinMatch", err)
		if err := pause(ctx, retryPause); err != nil {
			return nil, err
		}
	}
}

// follow holds the seat's stream until its match is over (or the run stops), and acts in turn. A
// failed stream is opened again after a pause, from the last action it brought.
func (p *player) follow(ctx context.Context, t *table, seat *mercado.Seat) {
	p.mu.Lock()
	p.seat, p.table, p.newest, p.latest, p.actedAt = seat, t, 0, nil, -1
	p.mu.Unlock()
	defer p.load.setState(p, betweenMatches)
	var last uint64 // the version of the last action its stream brought
	for ctx.Err() == nil {
		asked, in := time.Now(), p.load.figures.current()
		opened := false
		for update, err := range seat.Follow(ctx, last) {
			if err != nil {
				p.load.failed(ctx, p, "StreamEvents", err)
				break
			}
			now := time.Now()
			if !opened {
				opened = true
				in.streamOpened(now.Sub(asked))
				p.load.setState(p, following)
			}
			p.load.figures.current().updateReceived()
			if mercado.IsAction(update) {
				last = max(last, update.GetVersion())
				if update.GetSeat() != seat.Number {
					t.received(update.GetVersion(), now)
				}
			}
			if mercado.Finished(update.GetState()) {
				return
			}
			p.consider(ctx, update.GetState())
		}
		if pause(ctx, retryPause) != nil {
			return
		}
	}
}

// consider schedules the seat's next action when state gives it legal actions it has not acted on.
func (p *player) consider(ctx context.Context, state *mercadov1.MatchState) {
	p.mu.Lock()
	defer p.mu.Unlock()
	version := state.GetVersion()
	if version < p.newest {
		return // a past state, from a resumed stream's backlog
	}
	p.newest = version
	if len(state.GetLegalActions()) == 0 {
		p.latest = nil
		return
	}
	if int64(version) <= p.actedAt {
		return
	}
	p.latest = state
	p.think(ctx)
}

// think schedules a submission after a think time drawn around the pace (under p.mu).
func (p *player) think(ctx context.Context) {
	if p.thinking {
		return
	}
	p.thinking = true
	pace := float64(p.load.config.pace)
	time.AfterFunc(time.Duration(pace*(0.5+p.rng.Float64())), func() { p.act(ctx) })
}

// act submits one of the legal actions of the newest state that has them.
func (p *player) act(ctx context.Context) {
	p.mu.Lock()
	p.thinking = false
	state, seat, t := p.latest, p.seat, p.table
	if state == nil || ctx.Err() != nil {
		p.mu.Unlock()
		return
	}
	legal := state.GetLegalActions()
	action := legal[p.rng.IntN(len(legal))]
	version := state.GetVersion()
	p.actedAt = int64(version)
	p.requests++
	request := fmt.Sprintf("%d-%d", p.index, p.requests)
	p.mu.Unlock()

	in := p.load.figures.current()
	start := time.Now()
	response, err := seat.Submit(ctx, action, version, request)
	end := time.Now()
	if err != nil {
		p.load.failed(ctx, p, "SubmitAction", err)
		if status.Code(err) == codes.Aborted {
			return // the match moved on: the stream brings the newer state
		}
		p.mu.Lock()
		if p.latest == state && ctx.Err() == nil { // nothing newer came: choose again after a while
			p.actedAt = int64(version) - 1
			p.think(ctx)
		}
		p.mu.Unlock()
		return
	}
	in.submitted(end.Sub(start))
	if p.state.Load() == failing {
		p.load.setState(p, following)
	}
	t.acked(response.GetVersion(), end, in)
}

// pause waits d, or until ctx ends (its error then).
func pause(ctx context.Context, d time.Duration) error {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
	}
}
