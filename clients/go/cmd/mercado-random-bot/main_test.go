package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/mercado-game/mercado/clients/go/internal/testserver"
)

func TestRandomBotAgainstAI(t *testing.T) {
	srv := testserver.Start(t)
	testserver.StartAgent(t, srv, "easy")
	var out bytes.Buffer
	err := run(testserver.Context(t), []string{"-server", srv.Target(), "-vs-ai", "easy", "-name", "go-bot", "-seed", "7"}, &out)
	if err != nil {
		t.Fatalf("%v\n%s", err, &out)
	}
	text := out.String()
	for _, want := range []string{"created match", "joined match", "as seat 0", "match over", "rank 1", "<- you", testserver.AgentName} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	t.Log("\n" + text)
}

// Over TLS, trusting the test's CA.
func TestRandomBotOverTLS(t *testing.T) {
	srv := testserver.StartTLS(t)
	testserver.StartAgent(t, srv, "easy")
	var out bytes.Buffer
	err := run(testserver.Context(t), []string{"-server", srv.Target(), "-ca-file", srv.CAFile, "-vs-ai", "easy", "-seed", "8"}, &out)
	if err != nil {
		t.Fatalf("%v\n%s", err, &out)
	}
	if text := out.String(); !strings.Contains(text, "match over") || !strings.Contains(text, testserver.AgentName) {
		t.Errorf("the match did not finish against the test's agent:\n%s", text)
	}
}

func TestFlags(t *testing.T) {
	for _, args := range [][]string{{}, {"-match", "m", "-vs-ai", "easy"}, {"-vs-ai", "impossible"}, {"-match", "m", "-ca-file", "/nonexistent.pem"}} {
		if err := run(t.Context(), append(args, "-server", "127.0.0.1:1"), &bytes.Buffer{}); err == nil {
			t.Errorf("run(%q) succeeded", args)
		}
	}
}
