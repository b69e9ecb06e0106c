// Package testserver runs real processes for the Go client's tests: the
// project's own `mercado serve` (on a free port, its database in t.TempDir(),
// with an agent key of its own, without the web port) and `mercado ai` with the
// same key (its state file in t.TempDir()), both stopped with SIGTERM when the
// test ends.
package testserver

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mercado-game/mercado/clients/go/mercado"
)

const (
	startupTimeout = 30 * time.Second
	stopTimeout    = 30 * time.Second
	// callTimeout bounds the calls of one test (Context).
	callTimeout = 90 * time.Second
)

// RepoRoot is the mercado repository root: the nearest directory above the
// working directory (a package directory under clients/go) that holds the API.
func RepoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "proto", "mercado", "v1", "match.proto")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("cannot find the repository root (with proto/mercado/v1/match.proto) above the working directory")
		}
		dir = parent
	}
}

// mercadoBin is the project's `mercado` command: $MERCADO_BIN, or .venv/bin/mercado at the root.
func mercadoBin(t testing.TB) string {
	t.Helper()
	if bin := os.Getenv("MERCADO_BIN"); bin != "" {
		return bin
	}
	bin := filepath.Join(RepoRoot(t), ".venv", "bin", "mercado")
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("%s is missing: run `make setup` at the repository root (or set MERCADO_BIN): %v", bin, err)
	}
	return bin
}

// logLines collects a process's stderr and reports the port of its "listening"
// line (a server) and its "agent started" line (an agent, after its first heartbeat).
type logLines struct {
	mu           sync.Mutex
	all          bytes.Buffer
	partial      []byte
	listening    chan int
	agentStarted chan struct{}
}

func newLogLines() *logLines {
	return &logLines{listening: make(chan int, 1), agentStarted: make(chan struct{}, 1)}
}

func (l *logLines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.all.Write(p)
	l.partial = append(l.partial, p...)
	for {
		i := bytes.IndexByte(l.partial, '\n')
		if i < 0 {
			break
		}
		line := l.partial[:i]
		var record struct {
			Message string `json:"message"`
			Port    int    `json:"port"`
		}
		if json.Unmarshal(line, &record) == nil {
			switch record.Message {
			case "listening":
				select {
				case l.listening <- record.Port:
				default:
				}
			case "agent started":
				select {
				case l.agentStarted <- struct{}{}:
				default:
				}
			}
		}
		l.partial = l.partial[i+1:]
	}
	return len(p), nil
}

func (l *logLines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.all.String()
}

// process is one running child process, stopped with SIGTERM at the end of the test.
type process struct {
	name   string
	strict bool // a non-zero exit after SIGTERM fails the test (else it is logged)
	cmd    *exec.Cmd
	log    *logLines

	exited  chan struct{} // closed when the process has exited; waitErr is then set
	waitErr error

	stopOnce sync.Once
	stopErr  error
}

// startProcess runs `mercado args...` with the environment variables env (KEY=VALUE) added.
func startProcess(t testing.TB, name string, strict bool, env []string, args ...string) *process {
	t.Helper()
	p := &process{name: name, strict: strict, log: newLogLines(), exited: make(chan struct{})}
	p.cmd = exec.Command(mercadoBin(t), args...)
	p.cmd.Dir = RepoRoot(t)
	p.cmd.Env = append(os.Environ(), append([]string{"PYTHONUNBUFFERED=1"}, env...)...)
	p.cmd.Stdout = p.log
	p.cmd.Stderr = p.log
	p.cmd.SysProcAttr = childAttributes()
	p.cmd.WaitDelay = 5 * time.Second // children that inherited stderr must not hold Wait up
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", name, err)
	}
	go func() {
		p.waitErr = p.cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		if err := p.stop(); err != nil {
			if p.strict {
				t.Errorf("stopping %s: %v", name, err)
			} else {
				t.Logf("stopping %s: %v", name, err)
			}
		}
		if t.Failed() {
			t.Logf("%s log:\n%s", name, p.log)
		}
	})
	return p
}

// stop sends SIGTERM and waits for the exit (SIGKILL after stopTimeout). Stopping twice is fine.
func (p *process) stop() error {
	p.stopOnce.Do(func() { p.stopErr = p.terminate() })
	return p.stopErr
}

func (p *process) terminate() error {
	select {
	case <-p.exited:
		return fmt.Errorf("%s had exited early: %v", p.name, p.waitErr)
	default:
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		return err
	}
	select {
	case <-p.exited:
		if p.waitErr != nil {
			return fmt.Errorf("%s exited after SIGTERM: %v", p.name, p.waitErr)
		}
		return nil
	case <-time.After(stopTimeout):
		_ = p.cmd.Process.Kill()
		<-p.exited
		return fmt.Errorf("%s did not stop within %s of SIGTERM; killed", p.name, stopTimeout)
	}
}

// Server is a running `mercado serve`; Restart keeps its database, port, agent key and flags.
type Server struct {
	// AgentKey is the server's agent key (MERCADO_AGENT_KEY), which ClaimBotSeat
	// needs and StartAgent's agent has.
	AgentKey string
	// CAFile is the CA certificate (PEM) a client must trust, when the server
	// speaks TLS (StartTLS); "" for plaintext.
	CAFile string

	t     testing.TB
	db    string
	flags []string
	port  int
	proc  *process
}

// Start starts a server for the test on a free port with a new database and a
// new agent key.
func Start(t testing.TB) *Server {
	t.Helper()
	return StartWith(t)
}

// StartWith is Start with extra `mercado serve` flags, such as
// "--rate-limit", "CreateMatch=1/1".
func StartWith(t testing.TB, flags ...string) *Server {
	t.Helper()
	s := &Server{AgentKey: rand.Text(), t: t, db: filepath.Join(t.TempDir(), "mercado.db"), flags: flags}
	s.start()
	return s
}

// StartTLS is StartWith for a server that speaks TLS only, with a certificate
// for 127.0.0.1 signed by a CA made for the test (MakeCertificates); its
// CAFile is set.
func StartTLS(t testing.TB, flags ...string) *Server {
	t.Helper()
	certs := MakeCertificates(t)
	s := StartWith(t, append([]string{"--tls-cert", certs.Cert, "--tls-key", certs.Key}, flags...)...)
	s.CAFile = certs.CA
	return s
}

func (s *Server) start() {
	s.t.Helper()
	args := append([]string{"serve", "--allow-anonymous", "--host", "127.0.0.1", "--port", fmt.Sprint(s.port), "--web-port", "-1",
		"--db", s.db}, s.flags...)
	s.proc = startProcess(s.t, "mercado serve", true, []string{"MERCADO_AGENT_KEY=" + s.AgentKey}, args...)
	select {
	case port := <-s.proc.log.listening:
		s.port = port
	case <-s.proc.exited:
		s.t.Fatalf("the server exited before listening (%v):\n%s", s.proc.waitErr, s.proc.log)
	case <-time.After(startupTimeout):
		s.t.Fatalf("the server did not log its listening line within %s:\n%s", startupTimeout, s.proc.log)
	}
}

// Certificates are the PEM files of a test CA and of a server certificate it signed.
type Certificates struct {
	CA, Cert, Key string // paths
}

// MakeCertificates makes a CA and a certificate for 127.0.0.1 and localhost in
// t.TempDir(), with the project's tests/tls_cert.py (run by the venv's Python).
func MakeCertificates(t testing.TB) Certificates {
	t.Helper()
	root := RepoRoot(t)
	dir := t.TempDir()
	cmd := exec.Command(filepath.Join(root, ".venv", "bin", "python"), filepath.Join(root, "tests", "tls_cert.py"), dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("making the test certificates (is `make setup` done?): %v\n%s", err, out)
	}
	return Certificates{CA: filepath.Join(dir, "ca.pem"), Cert: filepath.Join(dir, "cert.pem"), Key: filepath.Join(dir, "key.pem")}
}

// Target is the server's address, host:port.
func (s *Server) Target() string { return fmt.Sprintf("127.0.0.1:%d", s.port) }

// Restart stops the server gracefully and starts it again on the same port and database.
func (s *Server) Restart() {
	s.t.Helper()
	if err := s.proc.stop(); err != nil {
		s.t.Fatal(err)
	}
	s.start()
}

// AgentName is the name StartAgent's agent gives itself (in the server's logs; the seats it
// claims are named after their levels).
const AgentName = "go-test-ai"

// StartAgent runs `mercado ai` on the server with its agent key, claiming seats
// reserved for bots of level, with a state file of its own in t.TempDir(). It
// returns once the agent has sent its first heartbeat (its "agent started" line),
// so that the server accepts matches with bot seats from then on.
func StartAgent(t testing.TB, s *Server, level string) {
	t.Helper()
	args := []string{"ai", "--server", s.Target(), "--level", level, "--name", AgentName, "--log-level", "info",
		"--state-file", filepath.Join(t.TempDir(), "agent.json")}
	if s.CAFile != "" {
		args = append(args, "--tls", "--ca-file", s.CAFile)
	}
	p := startProcess(t, "mercado ai", false, []string{"MERCADO_AGENT_KEY=" + s.AgentKey}, args...)
	select {
	case <-p.log.agentStarted:
	case <-p.exited:
		t.Fatalf("the agent exited before it started (%v):\n%s", p.waitErr, p.log)
	case <-time.After(startupTimeout):
		t.Fatalf("the agent did not log its \"agent started\" line within %s:\n%s", startupTimeout, p.log)
	}
}

// Dial returns a client of the server, closed at the end of the test. It
// trusts the server's CA when the server speaks TLS; opts come after that.
func Dial(t testing.TB, s *Server, opts ...mercado.Option) *mercado.Client {
	t.Helper()
	if s.CAFile != "" {
		opts = append([]mercado.Option{mercado.WithTLSCAFile(s.CAFile)}, opts...)
	}
	client, err := mercado.Dial(s.Target(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.Close() })
	return client
}

// Context returns a context for the test's calls, cancelled when the test ends.
func Context(t testing.TB) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	t.Cleanup(cancel)
	return ctx
}

// SeatName is a display name for seat in the test.
func SeatName(t testing.TB, seat int) string {
	name := strings.NewReplacer("/", "-", " ", "-").Replace(t.Name())
	if len(name) > 30 {
		name = name[len(name)-30:]
	}
	return fmt.Sprintf("%s-%d", name, seat)
}
