package mercado_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mercado-game/mercado/clients/go/internal/testserver"
	"github.com/mercado-game/mercado/clients/go/mercado"
)

const modulePath = "github.com/mercado-game/mercado/clients/go"

// Version is VERSION at the repository root, the one version of the API and every
// client (scripts/generate-version.sh writes it into version.go).
func TestVersionIsVERSION(t *testing.T) {
	want := readVERSION(t)
	if mercado.Version != want {
		t.Errorf("mercado.Version is %q, VERSION %q: run `make generate`", mercado.Version, want)
	}
}

// readVERSION reads VERSION at the repository root, from this package's directory.
func readVERSION(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "VERSION"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(data))
}

// The module as a third party depends on it: a module of its own in a temporary
// directory outside the repository requires the client at the version of VERSION,
// replaced with this checkout (as before a release, when the tag clients/go/vX.Y.Z
// does not exist yet). `go mod tidy` resolves it; `go run` plays a match against the
// AI on a real server with testdata/dependent/main.go, which uses only the public
// packages. The client's tool requirements must not reach the dependent, and its
// internal packages must stay out of reach.
func TestModuleAsDependency(t *testing.T) {
	t.Parallel()
	version := readVERSION(t)
	srv := testserver.Start(t)
	testserver.StartAgent(t, srv, "easy")

	moduleDir, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	ownGoMod := readFile(t, filepath.Join(moduleDir, "go.mod"))
	goLine := regexp.MustCompile(`(?m)^go [0-9.]+$`).FindString(ownGoMod)
	if goLine == "" {
		t.Fatal("go.mod has no go line")
	}
	dir := t.TempDir()
	if root := testserver.RepoRoot(t); strings.HasPrefix(dir, root+string(filepath.Separator)) {
		t.Fatalf("the temporary directory %s is inside the repository (%s): set TMPDIR elsewhere", dir, root)
	}
	// The dependent's go line is the client's: the oldest Go a dependent may use.
	writeFile(t, filepath.Join(dir, "go.mod"), fmt.Sprintf(
		"module example.com/dependent\n\n%s\n\nrequire %s v%s\n\nreplace %s => %s\n",
		goLine, modulePath, version, modulePath, moduleDir))
	// The client's own checksums, so that a warm module cache needs no network: tidy
	// keeps only the lines the dependent needs (sum.golang.org would give the same).
	writeFile(t, filepath.Join(dir, "go.sum"), readFile(t, filepath.Join(moduleDir, "go.sum")))
	writeFile(t, filepath.Join(dir, "main.go"), readFile(t, filepath.Join("testdata", "dependent", "main.go")))

	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	goCmd := func(args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, "go", args...)
		cmd.Dir = dir
		// No go.work, this toolchain; the other modules come from the module cache or proxy.
		cmd.Env = append(os.Environ(), "GOWORK=off", "GOTOOLCHAIN=local", "GOFLAGS=-mod=mod")
		var out bytes.Buffer
		cmd.Stdout = &out
		cmd.Stderr = &out
		err := cmd.Run()
		return out.String(), err
	}

	start := time.Now()
	if out, err := goCmd("mod", "tidy"); err != nil {
		t.Fatalf("go mod tidy: %v\n%s", err, out)
	}
	t.Logf("go mod tidy took %s", time.Since(start).Round(time.Millisecond))
	goMod, goSum := readFile(t, filepath.Join(dir, "go.mod")), readFile(t, filepath.Join(dir, "go.sum"))
	if !strings.Contains(goMod, fmt.Sprintf("require %s v%s\n", modulePath, version)) {
		t.Errorf("after go mod tidy, go.mod no longer requires %s v%s:\n%s", modulePath, version, goMod)
	}
	// The tools of the client's go.mod (protoc-gen-go, protoc-gen-go-grpc) build its
	// generated code; a dependent needs neither them nor checksums of them.
	if strings.Contains(goMod, "protoc-gen-go") || regexp.MustCompile(`(?m)^tool[ (]`).MatchString(goMod) {
		t.Errorf("the dependent's go.mod has the client's tools after go mod tidy:\n%s", goMod)
	}
	for _, want := range []string{"google.golang.org/grpc ", "google.golang.org/protobuf "} {
		if !strings.Contains(goMod, want) || !strings.Contains(goSum, want) {
			t.Errorf("the dependent's go.mod and go.sum lack %q:\n%s\n%s", want, goMod, goSum)
		}
	}
	for line := range strings.Lines(goSum) {
		if strings.HasPrefix(line, modulePath+" ") || strings.HasPrefix(line, "google.golang.org/grpc/cmd/protoc-gen-go-grpc ") {
			t.Errorf("the dependent's go.sum has a line it does not need: %s", line)
		}
	}

	start = time.Now()
	out, err := goCmd("run", "-mod=readonly", ".", srv.Target()) // tidy's go.mod and go.sum are complete
	if err != nil {
		t.Fatalf("go run: %v\n%s", err, out)
	}
	t.Logf("go run took %s:\n%s", time.Since(start).Round(time.Millisecond), out)
	if !strings.Contains(out, "client version: "+version+"\n") {
		t.Errorf("the dependent does not see mercado.Version %s:\n%s", version, out)
	}
	// A score may be negative: each restaurant left in hand costs a point.
	for _, game := range []string{"mercado", "oregano", "leilao"} {
		result := regexp.MustCompile(`(?m)^` + game + ` scores: \[-?\d+ -?\d+\] ranks: \[[12] [12]\]\n(  [^:\n]+: -?\d+\n)+`)
		if !result.MatchString(out) {
			t.Errorf("no result of a %s match, scores, ranks and parts:\n%s", game, out)
		}
	}

	// A dependent cannot import the client's internal packages (the test server).
	writeFile(t, filepath.Join(dir, "usesinternal", "main.go"),
		"package main\n\nimport _ \""+modulePath+"/internal/testserver\"\n\nfunc main() {}\n")
	out, err = goCmd("build", "-mod=readonly", "-o", os.DevNull, "./usesinternal")
	if err == nil || !strings.Contains(out, "use of internal package") {
		t.Errorf("a dependent could build an import of internal/testserver (%v):\n%s", err, out)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
