package main

import (
	"net"
	"slices"
	"testing"
)

func TestTablesTakeTheSizesInTurnAndSeatEveryPlayer(t *testing.T) {
	cases := []struct {
		players int
		sizes   []int
		want    []int
	}{
		{20, []int{2}, slices.Repeat([]int{2}, 10)},
		{21, []int{2}, append(slices.Repeat([]int{2}, 9), 3)}, // the one left joins the last table
		{20, []int{2, 3, 4}, []int{2, 3, 4, 2, 3, 4, 2}},
		{9, []int{4}, []int{4, 3, 2}}, // a last table of four gives one up to make a pair
		{3, []int{2, 3, 4}, []int{3}},
	}
	for _, c := range cases {
		got := tables(c.players, c.sizes)
		if !slices.Equal(got, c.want) {
			t.Errorf("tables(%d, %v) = %v, want %v", c.players, c.sizes, got, c.want)
		}
		seated := 0
		for _, size := range got {
			seated += size
			if size < 2 || size > 4 {
				t.Errorf("tables(%d, %v): a table of %d", c.players, c.sizes, size)
			}
		}
		if seated != c.players {
			t.Errorf("tables(%d, %v) seats %d players", c.players, c.sizes, seated)
		}
	}
}

func TestEachConnectionHasAnAddressOfItsOwn(t *testing.T) {
	first := net.ParseIP("127.1.0.0").To4()
	if got := address(first, 0).String(); got != "127.1.0.0" {
		t.Errorf("address 0 = %s", got)
	}
	if got := address(first, 70000).String(); got != "127.2.17.112" {
		t.Errorf("address 70000 = %s", got)
	}
}

func TestLatenciesAreNearestRankPercentiles(t *testing.T) {
	samples := make([]float64, 0, 200)
	for i := 200; i >= 1; i-- {
		samples = append(samples, float64(i))
	}
	got := summarize(samples)
	if got != (latency{Count: 200, P50: 100, P99: 198, Max: 200}) {
		t.Errorf("summarize = %+v", got)
	}
	if summarize(nil) != (latency{}) {
		t.Error("no samples: all zero")
	}
}

func TestCodesAreNamedAsTheAPIDocumentsThem(t *testing.T) {
	for code, want := range map[string]string{"Unavailable": "UNAVAILABLE", "DeadlineExceeded": "DEADLINE_EXCEEDED", "ResourceExhausted": "RESOURCE_EXHAUSTED"} {
		if got := upperSnake(code); got != want {
			t.Errorf("upperSnake(%q) = %q, want %q", code, got, want)
		}
	}
}
