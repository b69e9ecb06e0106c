// Command mercado-load is the load generator of `mercado bench players`: many players, each on a
// connection of its own, following their matches and acting at a human pace.
//
//	mercado-load -server 127.0.0.1:50051 -players 1000 [-sizes 2] [-games mercado] [-pace 8s] [-ramp 10s] [-seed 1]
//
// Each player connects from a loopback address of its own (127.1.0.0 upwards), as players on the
// internet come from addresses of their own (with -per-connection K, K players of different tables
// share each connection and its address, for a machine whose open-file limit is below one connection
// per player), signs in as a guest player and sits at a table of 2, 3
// or 4 players (-sizes: the sizes its tables take in turn). At each table one player creates a
// match of the table's game (-games, in turn) with the server's default clock, every player takes
// its seat and follows the match's stream for as long as the match lasts, and a seat to move acts
// after a think time drawn uniformly between half and one and a half times -pace, with one of its
// legal actions at random. A finished match is followed by a new one at the same table. The tables
// start one after another over -ramp (0: all at once).
//
// It talks on stdin and stdout in JSON lines. Once every player follows its first match it prints
// {"ready":true} (or, if they do not within -ready-timeout, its figures, and exits with an error). Each line it reads then names the phase that the figures count in from then on
// ({"phase":"steady"}), until {"stop":true}: it prints its figures by phase (figures.go) and exits.
// A submission counts in the phase it started in; a stream's opening in the phase it was asked in.
//
// Nothing is retried by the client library (its reconnect timeout is 0), so that every failure is
// counted: a player whose stream fails opens it again after a second, resuming after the last
// action it saw, and a seat whose submission failed chooses again after another think time.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"

	mercadov1 "github.com/mercado-game/mercado/clients/go/gen/mercado/v1"
	"github.com/mercado-game/mercado/clients/go/mercado"
)

// config is what the flags say.
type config struct {
	server     string
	players    int
	sizes      []int
	games      []mercadov1.Game
	pace       time.Duration
	ramp       time.Duration
	seed       uint64
	firstAddr  net.IP // the first connection's source address; the next ones count up from it
	shared     int    // players per connection
	readyAfter time.Duration
	cpuProfile string
	// A seat's calls carry its player's token rather than its seat token.
	playerCredential bool
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "mercado-load:", err)
		os.Exit(1)
	}
}

func parse(args []string) (config, error) {
	flags := flag.NewFlagSet("mercado-load", flag.ContinueOnError)
	server := flags.String("server", "127.0.0.1:50051", "the server's host:port")
	players := flags.Int("players", 100, "players, each on a connection of its own")
	sizes := flags.String("sizes", "2", "the players at each table, the tables taking them in turn (e.g. 2,3,4)")
	games := flags.String("games", "mercado", "the games the tables play, in turn (mercado, oregano, leilao)")
	pace := flags.Duration("pace", 8*time.Second, "the mean think time before each action")
	ramp := flags.Duration("ramp", 10*time.Second, "the time over which the tables sit down, one after another")
	seed := flags.Uint64("seed", 1, "seed of the think times and the actions chosen")
	first := flags.String("first-address", "127.1.0.0", "the source address of the first connection")
	shared := flags.Int("per-connection", 1, "players sharing each connection (and its address): players of different tables")
	readyAfter := flags.Duration("ready-timeout", 10*time.Minute, "how long every player may take to follow its first match")
	credential := flags.String("credential", "seat", "what a seat's calls carry: its seat token (as a Seat of the client library), or its player's token (as the browser page)")
	cpuProfile := flags.String("cpuprofile", "", "write the load generator's own CPU profile (pprof) to this file")
	if err := flags.Parse(args); err != nil {
		return config{}, err
	}
	c := config{server: *server, players: *players, pace: *pace, ramp: *ramp, seed: *seed, readyAfter: *readyAfter,
		shared: *shared, cpuProfile: *cpuProfile, playerCredential: *credential == "player"}
	if *credential != "seat" && *credential != "player" {
		return config{}, fmt.Errorf("-credential: %q is not seat or player", *credential)
	}
	for _, text := range strings.Split(*sizes, ",") {
		size, err := strconv.Atoi(strings.TrimSpace(text))
		if err != nil || size < 2 || size > 4 {
			return config{}, fmt.Errorf("-sizes: %q is not a table size of 2 to 4", text)
		}
		c.sizes = append(c.sizes, size)
	}
	for _, name := range strings.Split(*games, ",") {
		game, ok := mercadov1.Game_value["GAME_"+strings.ToUpper(strings.TrimSpace(name))]
		if !ok || game == int32(mercadov1.Game_GAME_UNSPECIFIED) {
			return config{}, fmt.Errorf("-games: unknown game %q", name)
		}
		c.games = append(c.games, mercadov1.Game(game))
	}
	if c.firstAddr = net.ParseIP(*first).To4(); c.firstAddr == nil {
		return config{}, fmt.Errorf("-first-address: %q is not an IPv4 address", *first)
	}
	if c.players < 2 {
		return config{}, errors.New("-players: at least 2")
	}
	if c.shared < 1 {
		return config{}, errors.New("-per-connection: at least 1")
	}
	if c.pace <= 0 {
		return config{}, errors.New("-pace: above 0")
	}
	return c, nil
}

// command is one line of stdin.
type command struct {
	Phase string `json:"phase"`
	Stop  bool   `json:"stop"`
}

func run(ctx context.Context, args []string, in io.Reader, out io.Writer) error {
	c, err := parse(args)
	if err != nil {
		return err
	}
	if c.cpuProfile != "" {
		profile, err := os.Create(c.cpuProfile)
		if err != nil {
			return err
		}
		defer profile.Close()
		if err := pprof.StartCPUProfile(profile); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	load := newLoad(c)
	defer load.close()
	if err := load.sitDown(ctx); err != nil {
		return err
	}
	ready, readyCancel := context.WithTimeout(ctx, c.readyAfter)
	defer readyCancel()
	encoder := json.NewEncoder(out)
	if err := load.waitReady(ready); err != nil {
		// What went wrong is in the figures: the errors by call and code, with their messages.
		if err := encoder.Encode(load.report()); err != nil {
			return err
		}
		return fmt.Errorf("%d of %d players follow a match after %s: %w", load.following.Load(), c.players, c.readyAfter, err)
	}
	if err := encoder.Encode(map[string]bool{"ready": true}); err != nil {
		return err
	}
	lines := bufio.NewScanner(in)
	for lines.Scan() {
		var cmd command
		if err := json.Unmarshal(lines.Bytes(), &cmd); err != nil {
			return fmt.Errorf("reading a command: %w", err)
		}
		if cmd.Stop {
			report := load.report()
			cancel()
			load.wait()
			return encoder.Encode(report)
		}
		load.figures.enter(cmd.Phase)
	}
	if err := lines.Err(); err != nil {
		return err
	}
	return errors.New("stdin closed before a stop command")
}

// dial connects a player from its own loopback source address. The library retries nothing, and
// the connection comes back within a few seconds of a server's restart, as a player's page would.
func dial(target string, source net.IP) (*mercado.Client, error) {
	dialer := &net.Dialer{LocalAddr: &net.TCPAddr{IP: source}}
	return mercado.Dial("passthrough:///"+target,
		mercado.WithReconnectTimeout(0),
		mercado.WithDialOptions(
			grpc.WithContextDialer(func(ctx context.Context, address string) (net.Conn, error) {
				return dialer.DialContext(ctx, "tcp", address)
			}),
			grpc.WithConnectParams(grpc.ConnectParams{
				Backoff:           backoff.Config{BaseDelay: time.Second, Multiplier: 1.6, Jitter: 0.2, MaxDelay: 5 * time.Second},
				MinConnectTimeout: 20 * time.Second,
			}),
			// An idle player's connection holds no buffers of its own.
			grpc.WithSharedWriteBuffer(true),
		))
}

// address is the source address of player i: first, counted up by i.
func address(first net.IP, i int) net.IP {
	base := uint32(first[0])<<24 | uint32(first[1])<<16 | uint32(first[2])<<8 | uint32(first[3])
	n := base + uint32(i)
	return net.IPv4(byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
}

// tables splits players into tables whose sizes follow sizes in turn, the last one taking the players
// left: a single player left joins the table before it, or takes one of its four to make a pair.
func tables(players int, sizes []int) []int {
	var out []int
	for i, left := 0, players; left > 0; i++ {
		size := min(sizes[i%len(sizes)], left)
		if size == 1 {
			if last := len(out) - 1; out[last] < 4 {
				out[last]++
			} else {
				out[last]--
				out = append(out, 2)
			}
			break
		}
		out = append(out, size)
		left -= size
	}
	return out
}
