package main

import (
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc/status"
)

// samplesKept is how many distinct messages of each call and code the report quotes.
const samplesKept = 3

// figures are the run's counts, by phase.
type figures struct {
	mu     sync.Mutex
	phases []*phase
	now    atomic.Pointer[phase]
}

func newFigures() *figures {
	f := &figures{}
	f.enter("setup")
	return f
}

func (f *figures) current() *phase { return f.now.Load() }

// enter starts counting in the phase name from now on.
func (f *figures) enter(name string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	next := &phase{name: name, started: time.Now(), errors: map[string]map[string]int{}, samples: map[string][]string{}}
	if previous := f.now.Load(); previous != nil {
		previous.end(next.started)
	}
	f.phases = append(f.phases, next)
	f.now.Store(next)
}

// phase is what happened between two commands.
type phase struct {
	name    string
	started time.Time

	mu              sync.Mutex
	ended           time.Time
	submits         []float64 // milliseconds, each kind
	propagations    []float64
	opens           []float64
	updates         int64
	matchesStarted  int
	matchesFinished int
	errors          map[string]map[string]int // call -> code -> count
	samples         map[string][]string       // "call code" -> distinct messages
	mostFailing     int64
	recoveredAt     time.Time // when the last player failing got through again
}

func milliseconds(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func (p *phase) end(at time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ended = at
}

func (p *phase) submitted(d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.submits = append(p.submits, milliseconds(d))
}

func (p *phase) propagated(d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.propagations = append(p.propagations, milliseconds(d))
}

func (p *phase) streamOpened(d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.opens = append(p.opens, milliseconds(d))
}

func (p *phase) updateReceived() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.updates++
}

func (p *phase) matchStarted() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.matchesStarted++
}

func (p *phase) matchFinished() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.matchesFinished++
}

func (p *phase) failed(call string, err error) {
	code := status.Code(err).String()
	message := status.Convert(err).Message()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.errors[call] == nil {
		p.errors[call] = map[string]int{}
	}
	p.errors[call][upperSnake(code)]++
	key := call + " " + upperSnake(code)
	if quoted := p.samples[key]; len(quoted) < samplesKept && !slices.Contains(quoted, message) {
		p.samples[key] = append(quoted, message)
	}
}

func (p *phase) failingNow(count int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.mostFailing = max(p.mostFailing, count)
}

func (p *phase) recovered() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.recoveredAt = time.Now()
}

// upperSnake writes a gRPC code as the API's documents name it: Unavailable -> UNAVAILABLE,
// DeadlineExceeded -> DEADLINE_EXCEEDED.
func upperSnake(code string) string {
	out := make([]byte, 0, len(code)+4)
	for i := 0; i < len(code); i++ {
		c := code[i]
		if 'A' <= c && c <= 'Z' {
			if i > 0 {
				out = append(out, '_')
			}
		} else if 'a' <= c && c <= 'z' {
			c -= 'a' - 'A'
		}
		out = append(out, c)
	}
	return string(out)
}

// latency is the p50, p99 and max of samples in milliseconds (nearest rank), and their count.
type latency struct {
	Count int     `json:"count"`
	P50   float64 `json:"p50"`
	P99   float64 `json:"p99"`
	Max   float64 `json:"max"`
}

func summarize(samples []float64) latency {
	if len(samples) == 0 {
		return latency{}
	}
	ordered := slices.Clone(samples)
	slices.Sort(ordered)
	rank := func(fraction float64) float64 {
		at := max(0, int(math.Ceil(fraction*float64(len(ordered))))-1)
		return math.Round(ordered[at]*100) / 100
	}
	return latency{Count: len(ordered), P50: rank(0.50), P99: rank(0.99), Max: rank(1)}
}

// phaseReport is a phase's figures as the report gives them.
type phaseReport struct {
	Seconds            float64                   `json:"seconds"`
	Submits            latency                   `json:"submit_latency_ms"`
	Propagation        latency                   `json:"propagation_latency_ms"`
	StreamOpens        latency                   `json:"stream_open_latency_ms"`
	UpdatesReceived    int64                     `json:"updates_received"`
	MatchesStarted     int                       `json:"matches_started"`
	MatchesFinished    int                       `json:"matches_finished"`
	Errors             map[string]map[string]int `json:"errors"`
	ErrorSamples       map[string][]string       `json:"error_samples"`
	MostPlayersFailing int64                     `json:"most_players_failing"`
	// From the phase's start until the last player failing in it got through again; null if none failed.
	RecoveredAfter *float64 `json:"recovered_after_seconds"`
}

func (p *phase) report(now time.Time) phaseReport {
	p.mu.Lock()
	defer p.mu.Unlock()
	ended := p.ended
	if ended.IsZero() {
		ended = now
	}
	r := phaseReport{
		Seconds:            math.Round(ended.Sub(p.started).Seconds()*1000) / 1000,
		Submits:            summarize(p.submits),
		Propagation:        summarize(p.propagations),
		StreamOpens:        summarize(p.opens),
		UpdatesReceived:    p.updates,
		MatchesStarted:     p.matchesStarted,
		MatchesFinished:    p.matchesFinished,
		Errors:             p.errors,
		ErrorSamples:       p.samples,
		MostPlayersFailing: p.mostFailing,
	}
	if !p.recoveredAt.IsZero() {
		after := math.Round(p.recoveredAt.Sub(p.started).Seconds()*1000) / 1000
		r.RecoveredAfter = &after
	}
	return r
}

// report is the whole run's figures: the players' states at the stop, then each phase's.
type report struct {
	Players        int                    `json:"players"`
	Connections    int                    `json:"connections"`
	Tables         int                    `json:"tables"`
	Following      int                    `json:"players_following"`
	BetweenMatches int                    `json:"players_between_matches"`
	Failing        int                    `json:"players_failing"`
	Phases         map[string]phaseReport `json:"phases"`
	HeapMiB        float64                `json:"load_heap_mib"`
	Goroutines     int                    `json:"load_goroutines"`
	GoVersion      string                 `json:"go_version"`
}

func (l *load) report() report {
	r := report{Players: len(l.players), Connections: len(l.clients), Tables: len(l.tables), Phases: map[string]phaseReport{}}
	for _, p := range l.players {
		switch p.state.Load() {
		case following:
			r.Following++
		case failing:
			r.Failing++
		default:
			r.BetweenMatches++
		}
	}
	now := time.Now()
	l.figures.mu.Lock()
	for _, p := range l.figures.phases {
		r.Phases[p.name] = p.report(now)
	}
	l.figures.mu.Unlock()
	var memory runtime.MemStats
	runtime.ReadMemStats(&memory)
	r.HeapMiB = math.Round(float64(memory.HeapInuse)/(1<<20)*10) / 10
	r.Goroutines = runtime.NumGoroutine()
	r.GoVersion = runtime.Version()
	return r
}
